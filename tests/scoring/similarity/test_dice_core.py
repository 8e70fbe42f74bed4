"""The Dice score's compiled core (scoring/similarity/_dice_core.c) counts the bigrams the Counter code counts."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.throughput import source_texts
from scoring.similarity import scorer as module
from scoring.similarity.scorer import _normalise, _shared_pair_python, _without_whitespace, dice, dice_many
from tests.scoring.native_cores import assert_missing_core_warns, required_core

# One-byte (ASCII, Latin-1), two-byte (BMP) and four-byte (astral) characters, and lone surrogates, as
# _without_whitespace leaves them (UTF-16 code units): each string width CPython stores, and mixes of them.
_UNITS = st.text(alphabet="aab\xe9\xff\u4e2d\u20ac\ud83d\ude00\U0001f600", max_size=60)


def _same(a: str, b: str) -> None:
    assert required_core(module._CORE).shared_bigrams(a, b) == _shared_pair_python(a, b), (a, b)


def test_the_core_is_built_and_used_for_every_text(monkeypatch: pytest.MonkeyPatch) -> None:
    required_core(module._CORE)
    calls: list[tuple[str, str]] = []

    def python(a: str, b: str) -> int:
        calls.append((a, b))
        return _shared_pair_python(a, b)

    monkeypatch.setattr(module, "_shared_pair_python", python)
    assert dice("night", "nacht") == 0.25
    assert dice("Grüße aus 東京 😀", "Grüße nach 東京 😀") == 2 * 7 / (12 + 13 - 2)  # UTF-16 units: the emoji is two
    assert dice_many(["healed"], ["sealed"]) == [0.8]
    assert calls == []


def test_a_missing_core_warns_and_the_python_code_gives_the_same_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_missing_core_warns(monkeypatch, "scoring.similarity._dice_core", module._load_core)
    first, second = source_texts()[:300], source_texts()[1:301]
    expected = [dice(a, b) for a, b in zip(first, second, strict=True)], dice_many(first, second)
    monkeypatch.setattr(module, "_CORE", None)  # the Python code alone
    assert ([dice(a, b) for a, b in zip(first, second, strict=True)], dice_many(first, second)) == expected
    assert expected[0] == expected[1]


@settings(max_examples=1000, deadline=None)
@given(a=_UNITS, b=_UNITS)
def test_the_core_counts_what_the_counters_count(a: str, b: str) -> None:
    _same(a, b)
    _same(b, a)
    _same(a, a + b)


def test_long_texts_and_repeats_count_the_same() -> None:
    rng = random.Random(14)
    for alphabet in ("ab", "abcdefgh", "ab\u4e2d", "a\U0001f600"):  # one-byte table; the hashed table on the heap
        for size in (2, 3, 511, 513, 2_000, 50_000):
            a = "".join(rng.choices(alphabet, k=size))
            b = "".join(rng.choices(alphabet, k=rng.randint(1, size)))
            _same(a, b)
            _same(b, a)
    _same("ab" * 10_000, "ba" * 10_000)
    core = required_core(module._CORE)
    assert [core.shared_bigrams("aaaa", "aaa") for _ in range(3)] == [2, 2, 2]  # the byte table is reset
    assert core.shared_bigrams("", "ab") == core.shared_bigrams("a", "ab") == 0
    with pytest.raises(TypeError, match="two str"):
        core.shared_bigrams(b"ab", "ab")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="two str"):
        core.shared_bigrams("ab")  # type: ignore[call-arg]


def test_real_texts_count_the_same() -> None:
    texts = [_without_whitespace(_normalise(t, True, True)) for t in source_texts()[:4000]]
    for a, b in zip(texts, texts[1:] + texts[:1], strict=True):
        _same(a, b)
