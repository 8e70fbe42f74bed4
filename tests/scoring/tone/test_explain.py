from __future__ import annotations

import re

import pytest

from scoring.tone.engines import get_engine
from scoring.tone.explain import sentence_frame, tone_band, word_drivers


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
    # Against all five sentences the two neutral ones would be circled as tone shifts: the misread sentences
    # pulled the mean up. Against the sentences the engines agree on, nothing is a shift.
    assert sentence_frame(sentences, "vader", cross_check=False)["tone_shift"].tolist()[3:] == [True, True]  # type: ignore[arg-type]
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
