"""The VADER engine's compiled core (``scoring/tone/_vader_core.c``): built here, used, and the same to the bit.

The core scores ASCII text; each test compares it with the Python port (``_vader_polarity``) and with
vaderSentiment 3.3.2's own ``polarity_scores`` on adversarial ASCII: caps, negations, many "but"s, idioms,
boosters, punctuation-only tokens, "!!!"/"???", the separators ``str.split`` knows (\\x1c-\\x1f too), long texts.
"""

from __future__ import annotations

import math
import string
import warnings
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from vaderSentiment.vaderSentiment import (
    BOOSTER_DICT,
    C_INCR,
    N_SCALAR,
    NEGATE,
    SPECIAL_CASES,
    SentimentIntensityAnalyzer,
)

from scoring import native
from scoring.tone import lexicons
from scoring.tone.lexicons import VaderEngine, _vader_polarity, _vader_valences
from tests.scoring.native_cores import required_core

REFERENCE = SentimentIntensityAnalyzer()


def _core() -> Any:
    """The compiled core module; a test needing it fails where a C compiler could have built it, else skips."""
    return required_core(native.load(lexicons._VADER_CORE))


@pytest.fixture(scope="module")
def engine() -> VaderEngine:
    _core()
    return VaderEngine()


def test_the_core_is_built_and_used_where_a_compiler_exists(
    engine: VaderEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert engine._core is not None

    def refuse(*args: object) -> float:
        raise AssertionError("the Python path scored ASCII text")

    monkeypatch.setattr(lexicons, "_vader_polarity", refuse)
    assert (
        engine._polarity("Not bad at all, but GREAT!!")
        == REFERENCE.polarity_scores("Not bad at all, but GREAT!!")["compound"]
    )
    with pytest.raises(AssertionError, match="the Python path"):
        engine._polarity("great 😀")  # not ASCII: the Python path (emoji replacement)


def test_without_the_core_the_engine_warns_and_scores_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(native.PURE_PYTHON_ENV, raising=False)
    monkeypatch.setattr(lexicons, "_VADER_CORE", "scoring.tone._no_such_core")
    with pytest.warns(native.NativeCoreWarning, match="_no_such_core: the compiled core is not built"):
        fallback = VaderEngine()
    assert fallback._core is None
    for text in ["Not bad at all, but GREAT!!", "kind of good but least bad???", "", "   ", "the shit"]:
        assert repr(fallback._polarity(text)) == repr(REFERENCE.polarity_scores(text)["compound"])


def test_pure_python_env_turns_the_core_off_without_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.PURE_PYTHON_ENV, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert VaderEngine()._core is None


@pytest.mark.parametrize(
    ("text", "error", "match"), [("café", ValueError, "text must be ASCII"), (3, TypeError, "text must be a str")]
)
def test_core_rejects_what_it_does_not_score(engine: VaderEngine, text: object, error: type, match: str) -> None:
    assert engine._core is not None
    with pytest.raises(error, match=match):
        engine._core.polarity(text)  # type: ignore[arg-type]


def _assert_same(engine: VaderEngine, text: str) -> None:
    assert engine._core is not None
    expected = REFERENCE.polarity_scores(text)["compound"]
    assert repr(engine._core.polarity(text)) == repr(expected), text
    assert repr(_vader_polarity(engine._analyzer, text)) == repr(expected), text
    python_valences = _vader_valences(engine._analyzer, text.strip())[1]  # test_engines checks them against vader
    assert [repr(v) for v in engine._core.valences(text)] == [repr(float(v)) for v in python_valences], text


_WORDS = st.sampled_from(
    ["good", "bad", "GOOD", "Bad", "BaD", "great!", "horrible...", "not", "NOT", "isn't", "ISN'T", "never", "so",
     "SO", "this", "without", "doubt", "kind", "of", "KIND", "OF", "but", "BUT", "But,", "but...", "very", "VERY",
     "extremely", "EXTREMELY", "barely", "kinda", "sort", "the", "shit", "bomb", "bad", "ass", "yeah", "right", "cut",
     "mustard", "kiss", "death", "to", "die", "for", "bus", "stop", "beating", "heart", "just", "enough", "no", "No",
     "NO", "or", "nor", "least", "LEAST", "at", ":)", ":(", ":-)", "<3", "!", "!!!", "?", "??", "????", "...", "'",
     "--", "(good)", "'bad'", "lol", "LOL", "sux", "uh-uh", "n't", "don't", "dont", "cannot", "despite", "1", "a",
     "I", "A", "ok", "OK", "love", "hate", "fine", "zzz", "***", "!?", "?!", "",
     # lexicon values v, v/2 and 1.5v: rescaled by the "but" rule, one equals a later value (list.index)
     "hell", "adversity", "agonizing", "abhor", "fubar", "accusation", "adverse", "alarming"]
)  # fmt: skip
_SEPARATORS = st.sampled_from(
    [" ", "  ", "\n", "\t", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "", "!", ","]
)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(_WORDS, max_size=20), separators=st.lists(_SEPARATORS, max_size=20))
@example(words=[], separators=[])
@example(words=["good", "but", "good", "but", "bad", "good", "bad"], separators=[])
@example(words=["the", "shit", "but", "the", "bomb", "yeah", "right"], separators=[])
@example(words=["hell", "adversity", "but", "abhor", "fubar", "accusation", "adverse"], separators=[])
@example(words=["no", "good"], separators=["\x1c"])
def test_core_equals_python_and_vader_sentiment_on_rule_heavy_ascii(
    engine: VaderEngine, words: list[str], separators: list[str]
) -> None:
    text = "".join(w + (separators[i] if i < len(separators) else " ") for i, w in enumerate(words))
    _assert_same(engine, text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(st.characters(max_codepoint=127), max_size=80))
@example(text="")
@example(text="\x1c\x1d\x1e\x1f")
@example(text="!!!???")
@example(text="good\x1fbad\x1cnot")
def test_core_equals_python_and_vader_sentiment_on_any_ascii(engine: VaderEngine, text: str) -> None:
    _assert_same(engine, text)


def _core_scorer(**options: object) -> Any:
    tables = {"lexicon": REFERENCE.lexicon, "boosters": BOOSTER_DICT, "special_cases": SPECIAL_CASES, "negate": NEGATE}
    return _core().Scorer(
        **{**tables, "punctuation": string.punctuation, "n_scalar": N_SCALAR, "c_incr": C_INCR, **options}
    )


@settings(max_examples=200, deadline=None)
@given(words=st.lists(_WORDS, max_size=20), separators=st.lists(_SEPARATORS, max_size=20))
@example(words=["the", "shit", "good", "yeah", "right", "bad", "to", "die", "for"], separators=[])  # int valences
def test_core_summing_with_the_builtin_sum_gives_the_same(words: list[str], separators: list[str]) -> None:
    # The path Python 3.12+ takes (its sum compensates float rounding); on older Pythons the builtin adds in
    # order as the C loop does, so both give vaderSentiment's compound here.
    text = "".join(w + (separators[i] if i < len(separators) else " ") for i, w in enumerate(words))
    scorer = _core_scorer(builtin_sum=True)
    assert repr(scorer.polarity(text)) == repr(REFERENCE.polarity_scores(text)["compound"]), text


def test_core_scorer_needs_every_table() -> None:
    with pytest.raises(TypeError, match="missing the keyword argument negate"):
        _core().Scorer(lexicon={}, boosters={}, special_cases={}, punctuation="", n_scalar=-0.74, c_incr=0.733)
    with pytest.raises(TypeError, match=r"lexicon\['x'\] must be an int or a float"):
        _core_scorer(lexicon={"x": "1"})


_LONG_WORDS = st.sampled_from(
    ["good", "bad", "great", "terrible", "fine", "not", "but", "BUT", "very", "the", "a", "of", "kind", "no", "never",
     "so", "GOOD", "love", "hate", "okay", "sort", "at", "least", "without", "doubt", ":)", "!", "?", "the", "shit",
     "hell", "adversity", "agonizing", "abhor", "fubar", "accusation", "adverse", "alarming"]
)  # fmt: skip


@settings(max_examples=20, deadline=None)
@given(words=st.lists(_LONG_WORDS, min_size=300, max_size=2000))
def test_core_equals_python_and_vader_sentiment_on_long_texts_with_many_buts(
    engine: VaderEngine, words: list[str]
) -> None:
    # Repeated values and many "but"s exercise the core's version of vaderSentiment's list.index rule.
    _assert_same(engine, " ".join(words))


@pytest.mark.parametrize(
    "text",
    [
        "but " + "good " * 60_000,
        "good bad great " * 20_000 + "but",
        " ".join(["good", "bad", "nice", "awful", "fine", "hate", "love", "the", "bomb"] * 6_000) + " but",
        "good but bad, not great but fine " * 9_000,
    ],
)
def test_core_equals_the_python_port_on_300000_character_sentences(engine: VaderEngine, text: str) -> None:
    # One run-on sentence with tens of thousands of valences, repeated values and a "but": the "but" rule's
    # list.index is quadratic in vaderSentiment (too slow to compare here); the core and the port are not.
    assert engine._core is not None
    assert repr(engine._core.polarity(text)) == repr(_vader_polarity(engine._analyzer, text))
    assert engine._core.valences(text) == [float(v) for v in _vader_valences(engine._analyzer, text)[1]]


_HALFWAYS = [0.0, -0.0, 1.0, -1.0, 0.00005, -0.00005, 0.00015, 0.12345, -0.12345, 0.99995, -0.99995, 0.5, 2.675,
             0.29999999999999999, 1e-300, -1e-300, 5e-324, 0.000049999999999999996, 123456.78905]  # fmt: skip


@pytest.mark.parametrize("x", _HALFWAYS)
def test_core_round4_is_pythons_round_on_halfway_and_tiny_values(x: float) -> None:
    assert repr(_core().round4(x)) == repr(round(x, 4))


@settings(max_examples=500, deadline=None)
@given(x=st.floats(allow_nan=False, allow_infinity=False) | st.floats(-1.0, 1.0))
def test_core_round4_is_pythons_round(x: float) -> None:
    core = _core()
    assert repr(core.round4(x)) == repr(round(x, 4))
    assert math.copysign(1.0, core.round4(x)) == math.copysign(1.0, round(x, 4))
