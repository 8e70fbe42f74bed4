"""The AFINN engine's compiled core (``scoring/tone/_afinn_core.c``): built here, used, and the same to the bit.

The core scores ``comparative``'s ASCII fast path (ASCII text whose only whitespace is space and newline); each
test compares it with the Python fast path (``_comparative_python``) and with the full ``analyze`` (the npm
``sentiment`` package's algorithm, which tests/parity compares with ``@mastra/evals``), by ``repr``: the same
float to the last bit. The texts: negators before and after lexicon words, upper case, every punctuation mark,
the control bytes ``bytes.split`` keeps in a word (\\x1c-\\x1f, \\x00), tokens longer than the table's 31-byte
keys that start with a lexicon word, real review and tweet text, and long texts.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.engines_vs_humans import DEFAULT_DATA, load
from scoring import native
from scoring.tone import afinn
from scoring.tone.lexicons import AfinnEngine
from tests.parity.corpus import SAMPLE, build_cases
from tests.scoring.native_cores import required_core

DATA = Path(__file__).parent.parent / "data"


def _scorer() -> Any:
    """The module's core scorer; a test needing it fails where a C compiler could have built it, else skips."""
    required_core(native.load(afinn._AFINN_CORE))
    scorer = afinn._core_scorer()
    assert scorer is not None
    return scorer


def _assert_same(text: str) -> None:
    expected = repr(afinn.analyze(text).comparative)
    assert repr(afinn._comparative_python(text)) == expected, text
    assert repr(afinn.comparative(text)) == expected, text
    on_fast_path = text.isascii() and not any(c in text for c in "\t\v\f\r")
    core = _scorer().comparative(text)
    assert (core is not None) == on_fast_path, text
    if core is not None:
        assert repr(core) == expected, text


@pytest.fixture
def fresh_core(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Load the core again under this test's settings, and forget it afterwards."""
    monkeypatch.delenv(native.PURE_PYTHON_ENV, raising=False)
    afinn._core_scorer.cache_clear()
    yield
    afinn._core_scorer.cache_clear()


def test_the_core_is_built_and_used_on_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    _scorer()

    def refuse(text: str) -> float:
        raise AssertionError("the Python path scored fast-path text")

    monkeypatch.setattr(afinn, "_comparative_python", refuse)
    text = "Not bad at all, I LOVE it!"  # "bad" negated (+3), "love" (+3), 7 tokens
    assert afinn.comparative(text) == 6 / 7 == afinn.analyze(text).comparative
    assert afinn.comparatives(["not good", "good day"]) == [-1.5, 1.5]
    assert AfinnEngine().polarities(["good day", "not good", "good day"]) == [1.5, -1.5, 1.5]
    for text in ["great 😀", "good\tday", "good\rday", "good\x0bday", "good\x0cday"]:  # off the fast path
        with pytest.raises(AssertionError, match="the Python path"):
            afinn.comparative(text)


@pytest.mark.usefixtures("fresh_core")
def test_without_the_core_comparative_warns_and_scores_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(afinn, "_AFINN_CORE", "scoring.tone._no_such_core")
    texts = ["Not GOOD at all, but I love it!", "", "   ", "can't stand it", "good 😂", "a\tb good", "constructor good"]
    with pytest.warns(native.NativeCoreWarning, match="_no_such_core: the compiled core is not built"):
        assert afinn.comparative("good") == 3.0
    assert afinn._core_scorer() is None
    for text in texts:
        assert repr(afinn.comparative(text)) == repr(afinn.analyze(text).comparative)
    assert afinn.comparatives(texts) == [afinn.analyze(t).comparative for t in texts]


@pytest.mark.usefixtures("fresh_core")
def test_pure_python_env_turns_the_core_off_without_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.PURE_PYTHON_ENV, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert afinn._core_scorer() is None
        assert afinn.comparative("not good") == -1.5


def test_core_rejects_a_non_str_and_leaves_other_text_to_python() -> None:
    scorer = _scorer()
    with pytest.raises(TypeError, match="text must be a str; got bytes"):
        scorer.comparative(b"good")
    assert scorer.comparative("café good") is None
    assert scorer.comparative("good\tday") is None


def _core_class() -> Any:
    return required_core(native.load(afinn._AFINN_CORE)).Scorer


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"lexicon": {}, "negators": []}, TypeError, "missing the keyword argument separators"),
        ({"lexicon": {"x": 1.5}, "negators": [], "separators": ""}, ValueError, r"lexicon\['x'\] must be an int"),
        ({"lexicon": {"x": 128}, "negators": [], "separators": ""}, ValueError, "from -127 to 127; got 128"),
        ({"lexicon": {"x": 2**70}, "negators": [], "separators": ""}, ValueError, "from -127 to 127"),
        ({"lexicon": {1: 1}, "negators": [], "separators": ""}, TypeError, "lexicon must hold str words; got 1"),
        ({"lexicon": {"x" * 32: 1}, "negators": [], "separators": ""}, ValueError, "at most 31 characters"),
        ({"lexicon": {}, "negators": ["y" * 32], "separators": ""}, ValueError, "negators: words must have at most"),
        ({"lexicon": {}, "negators": [b"not"], "separators": ""}, TypeError, "negators must hold str words"),
        ({"lexicon": {}, "negators": [], "separators": "é"}, ValueError, "separators must be ASCII"),
    ],
)
def test_core_scorer_checks_what_it_is_given(options: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        _core_class()(**options)


def test_core_scorer_leaves_out_words_no_token_can_equal() -> None:
    # Longer than a key, yet no token can equal them (a space, punctuation, upper case, not ASCII): left out.
    lexicon = {"does not work at all, not even once": -3, "x" * 40 + "!": 2, "Good" * 10: 1, "é" * 40: 4, "ok": 1}
    scorer = _core_class()(lexicon=lexicon, negators=["no"], separators=afinn._PUNCTUATION + "\n")
    assert scorer.comparative("ok no ok OK") == (1 - 1 + 1) / 4
    assert scorer.comparative("x" * 40 + "! " + "good" * 10) == 0.0


_WORDS = st.sampled_from(
    ["good", "bad", "GOOD", "Bad", "love", "hate", "not", "NOT", "Not", "don't", "dont", "DON'T", "can't", "cant",
     "isn't", "won't", "doesnt", "non", "constructor", "Constructor", "x", "the", "a", "ok", "okay", "no", "fine",
     "great", "awful", "best", "worst", "can't stand", "does not work", "cool stuff", "self-confident", "well-being",
     "some kind", "good-bad", "g00d", "good'", "'good", "ha", "haha", "lol", "ugh", "wtf", "oversimplification",
     "environment-friendly", "superb" + "s" * 30, "good" * 8, "good" * 7 + "goo", "bad" * 11, "\x1cgood", "good\x1d",
     "\x00", "\x1f", "\x7f", ":)", ":(", "<3", "", "1", "-", "'", "--", "not-good", "notgood", "hasownproperty"]
)  # fmt: skip
_SEPARATORS = st.sampled_from(
    [" ", "  ", "\n", "\n\n", " \n ", ".", ",", "!", "?", "...", "!?", '"', "(", ")", "{", "}", "=", "_", "`", "~",
     "#", "$", "%", "^", "&", "*", ";", ":", "/", "", "-", "'", "\t", "\r", "\x0b", "\x0c", "\r\n", " \t "]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(words=st.lists(_WORDS, max_size=24), separators=st.lists(_SEPARATORS, max_size=24))
@example(words=[], separators=[])
@example(words=["not", "not", "good"], separators=[])
@example(words=["constructor", "good", "don't", "bad"], separators=[])
@example(words=["not", "good" * 8, "good"], separators=[])  # a 32-byte token after a negator ends the negation
@example(words=["good", "\x1c", "not", "bad"], separators=[])
def test_core_equals_python_and_analyze_on_negation_heavy_text(words: list[str], separators: list[str]) -> None:
    text = "".join(w + (separators[i] if i < len(separators) else " ") for i, w in enumerate(words))
    _assert_same(text)


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.characters(max_codepoint=127), max_size=80))
@example(text="")
@example(text="\n \n")
@example(text="\x1c\x1d\x1e\x1f")
@example(text="GOOD\x00bad not\x7fgood")
def test_core_equals_python_and_analyze_on_any_ascii(text: str) -> None:
    _assert_same(text)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=40))
def test_core_steps_aside_on_any_other_text(text: str) -> None:
    _assert_same(text)


def _real_texts() -> list[str]:
    texts = [case["output"][0] for case in build_cases() if case["kind"] == "tone"]  # type: ignore[index]
    texts += SAMPLE.read_text(encoding="utf-8").splitlines()
    texts += [(DATA / n).read_text(encoding="utf-8") for n in ("sentences.txt", "sentences_heldout.txt")]
    if DEFAULT_DATA.exists():  # VADER's 23,703 human-rated texts, where the shared data is here
        texts += load(DEFAULT_DATA)["text"].tolist()
    return texts


def test_core_equals_python_and_analyze_on_real_texts() -> None:
    texts = _real_texts()
    variants = texts + [t.encode("ascii", "ignore").decode() for t in texts] + [t.upper() for t in texts]
    scorer = _scorer()
    on_fast_path = 0
    for text in variants:
        expected = repr(afinn.analyze(text).comparative)
        assert repr(afinn.comparative(text)) == expected, text
        if (core := scorer.comparative(text)) is not None:
            assert repr(core) == expected, text
            on_fast_path += 1
    assert on_fast_path >= len(texts)  # at least the ASCII-only variants went through the core
    assert afinn.comparatives(variants) == [afinn.analyze(t).comparative for t in variants]


@pytest.mark.parametrize(
    "text",
    [
        "not good " * 40_000,
        "don't " * 50_000 + "love",
        "Good BAD not great can't STAND it. " * 10_000,
        "x" * 300_000 + " good",
        ("superb" * 10 + " not ") * 5_000 + "good",
        " \n" * 150_000,
        "abhor " * 60_000,  # -3 a token: a score far from 0, counted exactly
    ],
    ids=["negated", "negators", "mixed", "long-token", "long-tokens", "separators", "abhor"],
)
def test_core_equals_python_and_analyze_on_300000_character_texts(text: str) -> None:
    _assert_same(text)
