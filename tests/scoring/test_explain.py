from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import create_tone_scorer
from scoring.engines import get_engine
from scoring.explain import (
    diff_markdown,
    escape_markdown,
    highlight_markdown,
    sentence_frame,
    tone_band,
    word_diff,
    word_drivers,
)


@pytest.mark.parametrize(
    ("score", "scale", "label"),
    [
        (1.0, 1, "Perfect"),
        (0.95, 1, "Perfect"),
        (0.9, 1, "Strong"),
        (0.7, 1, "Strong"),
        (0.6, 1, "Moderate"),
        (0.4, 1, "Moderate"),
        (0.3, 1, "Poor"),
        (0.1, 1, "Poor"),
        (0.0, 1, "None"),
        (7.0, 10, "Strong"),
    ],
)
def test_tone_band_follows_the_docs(score: float, scale: float, label: str) -> None:
    assert tone_band(score, scale).label == label


def _frame(values: list[float], engine: str = "vader"):
    return sentence_frame(
        [{"text": f"s{i}", "start": i, "end": i + 1, "sentiment": v} for i, v in enumerate(values)], engine
    )


def test_sentence_frame_flags_the_sentence_that_turns_against_the_mean() -> None:
    assert _frame([0.6, 0.7, 0.65, -0.8, 0.6])["tone_shift"].tolist() == [False, False, False, True, False]


@pytest.mark.parametrize(
    "values",
    [
        [0.3, 0.9, 0.4, 0.95],  # all positive: stronger is no shift
        [0.6, -0.8],  # fewer than three sentences
        [0.5, 0.5, 0.5],  # no spread at all
        [0.1, 0.05, -0.1, 0.1],  # spread below MIN_SHIFT
    ],
)
def test_sentence_frame_flags_no_shift_without_a_real_change_of_tone(values: list[float]) -> None:
    assert not _frame(values)["tone_shift"].any()


def test_sentence_frame_labels_with_the_engines_threshold() -> None:
    assert _frame([0.04, -0.04, 0.3])["label"].tolist() == ["neutral", "neutral", "positive"]
    assert _frame([0.04, -0.04, 0.0], "afinn")["label"].tolist() == ["positive", "negative", "neutral"]


@pytest.mark.parametrize("engine", ["vader", "afinn"])
@pytest.mark.parametrize(
    "sentence", ["I love this, it is great.", "This is not good at all.", "The service was TERRIBLE!!!", "But ok."]
)
def test_word_drivers_agree_in_sign_with_the_sentence_score(engine: str, sentence: str) -> None:
    drivers = word_drivers([sentence], engine)
    polarity = get_engine(engine).polarity(sentence)
    total = drivers["value"].sum()
    assert (total > 0) == (polarity > 0) and (total < 0) == (polarity < 0)
    assert set(drivers["sentence"]) <= {1}


def test_word_drivers_afinn_values_sum_to_the_sentence_score() -> None:
    sentence = "It was not good, but the staff were great and friendly."
    drivers = word_drivers([sentence], "afinn")
    tokens = len(re.findall(r"\S+", sentence))
    assert drivers["value"].sum() / tokens == pytest.approx(get_engine("afinn").polarity(sentence))


_OPEN = re.compile(r":(green|red|gray)-background\[")


def _read_back(markdown: str) -> str:
    """Undo highlight_markdown: drop directive syntax and ⚡, unescape; fail on any unescaped punctuation."""
    out, i, depth = [], 0, 0
    while i < len(markdown):
        if m := _OPEN.match(markdown, i):
            depth, i = depth + 1, m.end()
        elif markdown[i] == "\\":
            out.append(markdown[i + 1])
            i += 2
        elif markdown[i] == "]" and depth:
            depth, i = depth - 1, i + 1
        elif markdown[i] == "⚡":
            i += 1
        else:
            assert markdown[i] not in string.punctuation, (markdown, i)
            out.append(markdown[i])
            i += 1
    assert depth == 0
    return "".join(out)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from([*"ab Z.!?\n:$*_[]()<>#`~|\\-&'\"", "😀", "é"]), max_size=80),
    splitter=st.sampled_from(["smart", "mastra"]),
)
def test_highlight_markdown_escapes_everything_and_loses_nothing(text: str, splitter: str) -> None:
    text = text.replace("⚡", "")
    pre = create_tone_scorer(splitter=splitter).run(output=text).preprocess_step_result
    markdown = highlight_markdown(text, sentence_frame(pre["sentences"]))
    assert re.sub(r"\s", "", _read_back(markdown)) == re.sub(r"\s", "", text)


def test_highlight_markdown_colours_sentences_and_keeps_paragraphs() -> None:
    text = "I love it.\n\nThis is awful [click](javascript:alert(1)) <b>x</b>."
    pre = create_tone_scorer().run(output=text).preprocess_step_result
    markdown = highlight_markdown(text, sentence_frame(pre["sentences"]))
    assert markdown.startswith(":green-background[I love it\\.]")
    assert (
        "\n\n:red-background[This is awful \\[click\\]\\(javascript\\:alert\\(1\\)\\) \\<b\\>x\\<\\/b\\>\\.]"
        in markdown
    )


def test_escape_markdown_escapes_every_ascii_punctuation_character() -> None:
    assert escape_markdown(string.punctuation) == "".join("\\" + c for c in string.punctuation)
    assert escape_markdown("plain words 123 é") == "plain words 123 é"


@settings(max_examples=100, deadline=None)
@given(
    a=st.lists(st.sampled_from(["the", "a", "fox", "dog", "quick"]), max_size=12),
    b=st.lists(st.sampled_from(["the", "a", "fox", "cat"]), max_size=12),
)
def test_word_diff_rebuilds_both_texts(a: list[str], b: list[str]) -> None:
    diff = word_diff(" ".join(a), " ".join(b))
    assert " ".join(w for op, w in diff if op != "insert").split() == a
    assert " ".join(w for op, w in diff if op != "delete").split() == b


def test_diff_markdown_escapes_user_words() -> None:
    md = diff_markdown(word_diff("pay $5 now", "pay **$50** now"))
    assert md == "pay :red-background[~~\\$5~~] :green-background[\\*\\*\\$50\\*\\*] now"
