from __future__ import annotations

import re

import pytest

from scoring.tone.engines import get_engine
from scoring.tone.explain import (
    MIN_SHIFT,
    comparison_direction,
    describe_shifts,
    honest_band,
    sentence_frame,
    tone_band,
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


def test_sentence_frame_flags_each_sentence_where_the_tone_turns_from_the_one_before() -> None:
    frame = _frame([0.6, 0.7, 0.65, -0.8, 0.6])
    assert frame["tone_shift"].tolist() == [False, False, False, True, True]  # turns negative, then back
    assert frame["change"].round(2).tolist()[1:] == [0.1, -0.05, -1.45, 1.4]


def test_the_warm_opening_is_not_the_shift_the_turn_is() -> None:
    # warm (+0.7) then hostile (-0.5): the mean-band rule circled the warm opening, never the turn
    frame = _frame([0.7, 0.7, 0.7, 0.7, -0.5])
    assert frame["tone_shift"].tolist() == [False, False, False, False, True]
    assert describe_shifts(frame) == "The tone turns negative at sentence 5 (from +0.70 to -0.50)."


def test_a_neutral_sentence_between_is_skipped_and_is_no_shift() -> None:
    frame = _frame([0.6, 0.0, -0.6, 0.0])
    assert frame["tone_shift"].tolist() == [False, False, True, False]
    assert describe_shifts(frame) == "The tone turns negative at sentence 3 (from +0.60 to -0.60)."
    assert describe_shifts(_frame([0.6, 0.7])) == ""


@pytest.mark.parametrize(("change", "shift"), [(MIN_SHIFT, True), (MIN_SHIFT - 0.01, False)])
def test_a_shift_needs_min_shift_exactly(change: float, shift: bool) -> None:
    assert _frame([0.1, 0.1 - change])["tone_shift"].tolist() == [False, shift]


def test_a_reply_that_turns_is_never_called_consistent() -> None:
    from scoring import create_tone_scorer

    text = (
        "Thanks so much for writing in! We love hearing from you. Your refund is approved, great news. "
        "Honestly though, this was a silly complaint and a waste of our time."
    )
    result = create_tone_scorer().run(output=text)
    frame = sentence_frame(result.preprocess_step_result["sentences"])  # type: ignore[arg-type]
    assert round(result.score, 3) == 0.849 and tone_band(result.score).label == "Strong"  # Mastra's number and band
    band = honest_band(result.score, frame)
    assert band.label == "Turns" and "consisten" not in band.description.replace("not consistent", "")
    assert band.description == "not consistent: the tone turns negative at sentence 4 (from +0.78 to -0.23)."
    assert honest_band(0.5, frame).label == "Moderate"  # a band that does not call it consistent stays


@pytest.mark.parametrize(
    ("response", "reference", "said"),
    [
        (0.2, 0.6, "The reply is colder than the reference (+0.20 against +0.60)."),
        (0.9, 0.1, "The reply is warmer than the reference (+0.90 against +0.10)."),
        (0.31, 0.3, "The reply's sentiment matches the reference's (+0.31 against +0.30)."),
    ],
)
def test_comparison_mode_says_which_way_the_reply_differs(response: float, reference: float, said: str) -> None:
    assert comparison_direction(response, reference).startswith(said)


@pytest.mark.parametrize(
    "values",
    [
        [0.3, 0.9, 0.4, 0.95],  # all positive: stronger is no shift
        [0.6, 0.0, 0.05],  # positive to neutral: facts after thanks are no shift
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


MISREAD = (
    "Thanks for writing in. Honestly, this is a ridiculous complaint and you clearly didn't read the terrible "
    "instructions. You clearly didn't read the terrible manual either. The refund is processed. Let me know."
)


def test_sentence_frame_marks_where_the_engines_read_opposite_signs_and_circles_no_neutral_sentence() -> None:
    from scoring import create_tone_scorer

    sentences = create_tone_scorer().run(output=MISREAD).preprocess_step_result["sentences"]
    frame = sentence_frame(sentences, "vader")  # type: ignore[arg-type]
    # VADER reads the rude sentences as positive ("didn't" flips "terrible"); AFINN as negative.
    assert frame["sentiment"].round(4).tolist()[:3] == [0.4404, 0.5505, 0.6433]
    assert frame["other_sentiment"].tolist()[:3] == [0.5, -0.5, -0.25]
    assert frame["engines_disagree"].tolist() == [False, True, True, False, False]
    # Neutral sentences (facts) are no shift, and the misread sentences are neither shifts nor the tone before one.
    assert not sentence_frame(sentences, "vader", cross_check=False)["tone_shift"].any()  # type: ignore[arg-type]
    assert not frame["tone_shift"].any()
    # The same text read by AFINN is cross-checked with VADER: the same sentences are in dispute.
    afinn = create_tone_scorer(engine="afinn").run(output=MISREAD).preprocess_step_result["sentences"]
    assert sentence_frame(afinn, "afinn")["engines_disagree"].tolist() == [False, True, True, False, False]  # type: ignore[arg-type]


def test_a_sentence_the_engines_disagree_on_is_never_a_tone_shift() -> None:
    texts = ["We love it.", "Great work.", "You clearly didn't read the terrible instructions.", "Wonderful."]
    sentences = [
        {"text": t, "start": 0, "end": 1, "sentiment": v} for t, v in zip(texts, [0.6, 0.6, -0.9, 0.6], strict=True)
    ]
    frame = sentence_frame(sentences, "afinn")
    assert frame["engines_disagree"].tolist() == [False, False, True, False]
    assert not frame["tone_shift"].any()
