from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.similarity.explain import word_diff


@settings(max_examples=100, deadline=None)
@given(
    a=st.lists(st.sampled_from(["the", "a", "fox", "dog", "quick"]), max_size=12),
    b=st.lists(st.sampled_from(["the", "a", "fox", "cat"]), max_size=12),
)
def test_word_diff_rebuilds_both_texts(a: list[str], b: list[str]) -> None:
    diff = word_diff(" ".join(a), " ".join(b))
    assert " ".join(w for op, w in diff if op != "insert").split() == a
    assert " ".join(w for op, w in diff if op != "delete").split() == b
