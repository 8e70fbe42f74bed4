from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.similarity.explain import diff_head, word_diff


@settings(max_examples=100, deadline=None)
@given(
    a=st.lists(st.sampled_from(["the", "a", "fox", "dog", "quick"]), max_size=12),
    b=st.lists(st.sampled_from(["the", "a", "fox", "cat"]), max_size=12),
)
def test_word_diff_rebuilds_both_texts(a: list[str], b: list[str]) -> None:
    diff = word_diff(" ".join(a), " ".join(b))
    assert " ".join(w for op, w in diff if op != "insert").split() == a
    assert " ".join(w for op, w in diff if op != "delete").split() == b


def test_word_diff_of_long_texts_rebuilds_both() -> None:
    # Two different 100,000-character texts: difflib's matcher took minutes here, the Indel alignment does not.
    from bench.long_text import text_of

    a, b = text_of(100_000, kind="prose"), text_of(100_000, seed=2, kind="prose")
    diff = word_diff(a, b)
    assert " ".join(w for op, w in diff if op != "insert").split() == a.split()
    assert " ".join(w for op, w in diff if op != "delete").split() == b.split()
    assert all(x[0] != y[0] for x, y in itertools.pairwise(diff))  # runs are merged


@settings(max_examples=100, deadline=None)
@given(
    a=st.lists(st.sampled_from(["the", "a", "fox", "dog", "quick", "jumped"]), max_size=30),
    b=st.lists(st.sampled_from(["the", "a", "fox", "cat", "slow"]), max_size=30),
    limit=st.integers(0, 120),
)
def test_diff_head_is_a_prefix_of_the_diff_within_the_limit(a: list[str], b: list[str], limit: int) -> None:
    diff = word_diff(" ".join(a), " ".join(b))
    head, cut = diff_head(diff, limit)
    assert sum(len(w) for _, w in head) + len(head) - 1 <= limit or not head
    assert cut == (head != diff)
    for i, (op, words) in enumerate(head):  # each run is the diff's run, or (the last) its first words
        assert op == diff[i][0] and (words == diff[i][1] or (i == len(head) - 1 and diff[i][1].startswith(words + " ")))
