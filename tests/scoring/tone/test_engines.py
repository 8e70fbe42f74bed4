"""Our VADER port gives vaderSentiment 3.3.2's compound and word valences to the last bit.

Every test runs on both paths: the compiled core (``_vader_core.c``, for ASCII text) and the Python code.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vaderSentiment.vaderSentiment import BOOSTER_DICT, SentimentIntensityAnalyzer, SentiText

from scoring.text.splitters import split_smart
from scoring.tone.lexicons import VaderEngine, _vader_emoji_text, _vader_valences

DATA = Path(__file__).parent.parent / "data"
REFERENCE = SentimentIntensityAnalyzer()


def _texts() -> list[str]:
    lines = [
        line for name in ("sentences.txt", "sentences_heldout.txt") for line in (DATA / name).open(encoding="utf-8")
    ]
    labelled = [r["text"] for r in csv.DictReader((DATA / "toxicity_labelled.csv").open(encoding="utf-8"))]
    texts = [t.strip() for t in lines + labelled if t.strip()]
    return texts + [s.text for t in texts for s in split_smart(t)]


def _reference_valences(text: str) -> list[float]:
    """The valences ``polarity_scores`` computes, with vaderSentiment's own methods."""
    sentitext = SentiText(_vader_emoji_text(REFERENCE, text))
    words, sentiments = sentitext.words_and_emoticons, []
    for i, item in enumerate(words):
        kind_of = i < len(words) - 1 and item.lower() == "kind" and words[i + 1].lower() == "of"
        if item.lower() in BOOSTER_DICT or kind_of:
            sentiments.append(0)
        else:
            sentiments = REFERENCE.sentiment_valence(0, sentitext, item, i, sentiments)
    return list(REFERENCE._but_check(words, sentiments))


@pytest.fixture(scope="module", params=["core", "python"])
def vader(request: pytest.FixtureRequest) -> VaderEngine:
    """The VADER engine on the compiled core, and on the Python code alone."""
    engine = VaderEngine()
    if request.param == "python":
        engine._core = None
    elif engine._core is None:  # test_vader_core.py fails where a C compiler could have built it
        pytest.skip("the compiled core is not built here (or TONE_EXPLORER_PURE_PYTHON turns it off)")
    return engine


def _assert_same(vader: VaderEngine, text: str) -> None:
    expected = REFERENCE.polarity_scores(text)["compound"]
    found = vader._polarity(text)
    assert repr(found) == repr(expected), text  # repr: also the sign of a zero
    if vader._core is not None and text.isascii():
        valences: list[float] = vader._core.valences(text)
    else:
        valences = _vader_valences(REFERENCE, _vader_emoji_text(REFERENCE, text))[1]
    assert [repr(float(v)) for v in valences] == [repr(float(v)) for v in _reference_valences(text)], text


def test_vader_compound_and_valences_equal_vader_sentiment_on_real_text(vader: VaderEngine) -> None:
    texts = _texts()
    assert len(texts) > 1000
    for text in texts:
        _assert_same(vader, text)


_WORDS = st.sampled_from(
    ["good", "bad", "GOOD", "Bad", "great!", "horrible...", "not", "isn't", "never", "so", "this", "without", "doubt",
     "kind", "of", "but", "BUT", "very", "VERY", "extremely", "barely", "the", "shit", "bomb", "yeah", "right", "cut",
     "mustard", "bad ass", "sort of", "kiss of death", "to die for", "no", "No", "or", "nor", "least", "at", "at least",
     ":)", ":(", "!", "!!!", "?", "??", "????", "😀", "💔", "❤️", "lol", "sux", "uh-uh", "n't", "'", "(good)", "--"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(words=st.lists(_WORDS, max_size=14), separators=st.lists(st.sampled_from([" ", "  ", "\n", ""]), max_size=14))
def test_vader_equals_vader_sentiment_on_rule_heavy_word_salad(
    vader: VaderEngine, words: list[str], separators: list[str]
) -> None:
    text = "".join(w + (separators[i] if i < len(separators) else " ") for i, w in enumerate(words))
    _assert_same(vader, text)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=60))
def test_vader_equals_vader_sentiment_on_any_text(vader: VaderEngine, text: str) -> None:
    _assert_same(vader, text)


_LONG_WORDS = st.sampled_from(
    ["good", "bad", "great", "terrible", "fine", "not", "but", "BUT", "very", "the", "a", "of", "kind", "no", "never",
     "so", "GOOD", "love", "hate", "okay", "sort of", "at least", "without doubt", ":)", "😀", "!", "?"]
)  # fmt: skip


@settings(max_examples=25, deadline=None)
@given(words=st.lists(_LONG_WORDS, min_size=300, max_size=1500))
def test_vader_equals_vader_sentiment_on_long_texts_with_many_buts(vader: VaderEngine, words: list[str]) -> None:
    # vaderSentiment's "but" rule rescales the first position holding each value (list.index): repeated
    # values in a long run-on sentence exercise every branch of the port's heap-based equivalent.
    _assert_same(vader, " ".join(words))


def test_vader_port_does_not_call_vader_sentiments_quadratic_but_rule(
    vader: VaderEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its list.index scan made one 300,000-character run-on sentence take a minute (bench/long_text.py).
    def refuse(*args: object) -> None:
        raise AssertionError("the quadratic _but_check was called")

    text = "good but bad, not great but fine " * 300
    expected = REFERENCE.polarity_scores(text)["compound"]
    monkeypatch.setattr(SentimentIntensityAnalyzer, "_but_check", staticmethod(refuse))
    assert vader._polarity(text) == expected
