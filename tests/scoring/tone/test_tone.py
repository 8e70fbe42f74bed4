from __future__ import annotations

import functools
import operator
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.strategies import sampled_from, text
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

from scoring import create_tone_scorer
from scoring.tone import afinn
from scoring.tone.scorer import MIN_STABILITY_SENTENCES, UNMEASURED_NOTE, _mean_and_variance, stability_note

VADER = SentimentIntensityAnalyzer()


@settings(max_examples=500, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.0, -0.0, 1 / 3]), min_size=1, max_size=12))
def test_mean_and_variance_add_left_to_right_from_zero_as_mastras_reduce(values: list[float]) -> None:
    """``values.reduce((a, b) => a + b, 0) / n``, then the squares' the same way: the same bits, -0.0 included."""
    total = functools.reduce(operator.add, values, 0.0)
    mean = total / len(values)
    variance = functools.reduce(operator.add, [(v - mean) ** 2 for v in values], 0.0) / len(values)
    assert [repr(x) for x in _mean_and_variance(values)] == [repr(mean), repr(variance)]


def test_tone_stability_afinn_mastra_example() -> None:
    r = create_tone_scorer(engine="afinn", splitter="mastra").run(output="It was great. Thanks!")
    assert r.score == 0.75
    assert r.to_dict()["analyzeStepResult"] == {"avgSentiment": 1.5, "sentimentVariance": 0.25}
    assert [s["text"] for s in r.preprocess_step_result["sentences"]] == ["It was great.", " Thanks!"]


def test_tone_comparison_with_reference_tone() -> None:
    r = create_tone_scorer("I love it", engine="afinn").run(output="I hate it")
    pre = r.preprocess_step_result
    assert (pre["responseSentiment"], pre["referenceSentiment"], pre["difference"], r.score) == (-1.0, 1.0, 2.0, 0.0)


def test_tone_ground_truth_selects_comparison_mode() -> None:
    r = create_tone_scorer().run(output="Great work!", ground_truth="Great work!")
    assert r.score == 1.0
    assert "difference" in r.analyze_step_result


def test_vader_sentence_sentiment_is_vader_compound() -> None:
    text = "The support was excellent. The wait was horrible! Fine."
    r = create_tone_scorer().run(output=text)
    for s in r.preprocess_step_result["sentences"]:
        assert s["sentiment"] == VADER.polarity_scores(s["text"])["compound"]
        assert text[s["start"] : s["end"]] == s["text"]


def test_tone_scale_multiplies_score() -> None:
    text = "Good. Bad."
    assert create_tone_scorer(scale=10).run(output=text).score == pytest.approx(
        10 * create_tone_scorer().run(output=text).score
    )


def test_tone_joins_messages_with_comma() -> None:
    r = create_tone_scorer("x", engine="afinn").run(
        output=[{"role": "assistant", "content": "good"}, {"role": "assistant", "content": "bad"}]
    )
    assert r.preprocess_step_result["sentences"][0]["text"] == "good, bad"


def test_run_id_is_fresh_unless_given() -> None:
    s = create_tone_scorer()
    assert s.run(output="a").run_id != s.run(output="a").run_id
    assert s.run(output="a", run_id="fixed").to_dict()["runId"] == "fixed"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"engine": "bert"}, ValueError, "engine must be one of"),
        ({"splitter": "nltk"}, ValueError, "splitter must be one of"),
        ({"scale": -1}, ValueError, "scale must be a positive number"),
        ({"reference_tone": 3}, TypeError, "reference_tone must be a string"),
    ],
)
def test_tone_rejects_bad_options(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        create_tone_scorer(**kwargs)


@pytest.mark.parametrize(
    ("output", "error", "match"),
    [
        (None, ValueError, "output is required"),
        (42, TypeError, "output must be a string"),
        (b"bytes", TypeError, "output must be a string"),
        ([1, 2], TypeError, "output must be a string"),
    ],
)
def test_tone_rejects_bad_output(output: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        create_tone_scorer().run(output=output)


@settings(max_examples=200)
@given(t=text(), engine=sampled_from(["vader", "afinn"]), splitter=sampled_from(["smart", "mastra"]))
def test_tone_bounded_and_deterministic(t: str, engine: str, splitter: str) -> None:
    s = create_tone_scorer(engine=engine, splitter=splitter, scale=5)
    a, b = s.run(output=t), s.run(output=t)
    assert 0.0 <= a.score <= 5.0
    assert a.score == b.score


@pytest.mark.parametrize("truth", ["", "   ", "\n\t"])
def test_blank_ground_truth_means_stability_in_run_and_score_many(truth: str) -> None:
    scorer = create_tone_scorer()
    result = scorer.run(output="Great. Awful.", ground_truth=truth)
    assert "sentimentVariance" in result.analyze_step_result
    assert scorer.score_many(outputs=["Great. Awful."], ground_truths=[truth])["score"] == [result.score]


@pytest.mark.parametrize(
    ("output", "splitter", "what"),
    [
        ("Thanks for your order, it ships today!", "smart", "only 1 sentence with words"),
        ("Thanks for your order, it ships today!", "mastra", "only 1 sentence with words"),
        ("!!! ???", "smart", "no sentence with words"),
        ("!!! ???", "mastra", "no sentence with words"),
        ("Great. ...", "smart", "only 1 sentence with words"),
    ],
)
def test_stability_of_too_little_text_keeps_mastras_score_and_says_it_measured_nothing(
    output: str, splitter: str, what: str
) -> None:
    result = create_tone_scorer(splitter=splitter).run(output=output)
    assert result.score == 1.0 and result.analyze_step_result["sentimentVariance"] == 0.0  # Mastra's number
    notes = [w for w in result.warnings if "stability" in w]
    assert len(notes) == 1 and notes[0].startswith(f"output has {what}: ") and "not enough text" in notes[0]
    assert set(result.to_dict()["analyzeStepResult"]) == {"avgSentiment", "sentimentVariance"}  # Mastra's keys only


@pytest.mark.parametrize(
    ("output", "reference"),
    [
        ("Great. Thanks!", None),
        ("Great 👍. Awful 😡", None),
        ("Thanks for your order.", "Happy to help!"),
        ("   ", None),
    ],
)
def test_no_stability_note_with_two_sentences_in_comparison_mode_or_for_empty_text(
    output: str, reference: str | None
) -> None:
    result = create_tone_scorer(reference).run(output=output)
    assert not [w for w in result.warnings if "stability" in w]
    assert stability_note(["Great.", "👍"]) is None and MIN_STABILITY_SENTENCES == 2


ONE_SENTENCE_REPLIES = ["Thanks for reaching out!", "Your order has shipped.", "?!", "Danke, das ist sehr gut."]
MIXED_REPLIES = ["Thanks for reaching out!", "I am sorry. That is terrible!", "Thanks for reaching out!", "Great. ?!"]


@pytest.mark.parametrize(("engine", "splitter"), [("vader", "smart"), ("afinn", "mastra")])
@pytest.mark.parametrize(
    ("outputs", "unmeasured"),
    [(ONE_SENTENCE_REPLIES, [True, True, True, True]), (MIXED_REPLIES, [True, False, True, True])],
)
def test_score_many_warns_of_too_little_text_for_stability_as_run_does(
    engine: str, splitter: str, outputs: list[str], unmeasured: list[bool]
) -> None:
    scorer = create_tone_scorer(engine=engine, splitter=splitter)
    got = scorer.score_many(outputs=outputs)
    assert got["warnings"] == [" ".join(scorer.run(output=t).warnings) for t in outputs]
    assert [re.search(UNMEASURED_NOTE, w) is not None for w in got["warnings"]] == unmeasured  # type: ignore[arg-type]
    assert got["score"] == [scorer.run(output=t).score for t in outputs]  # Mastra's numbers are kept


def test_score_many_notes_too_little_text_only_in_stability_mode() -> None:
    # The same one-sentence reply, compared with a reference in row 1 and alone in row 2
    got = create_tone_scorer().score_many(outputs=["Thanks!", "Thanks!"], ground_truths=["Happy to help!", None])
    assert got["warnings"][0] == "" and re.fullmatch(UNMEASURED_NOTE, str(got["warnings"][1]))


@pytest.mark.parametrize("sentences", [[], ["?!"], ["Thanks for your order!"], ["Thanks!", "..."]])
def test_unmeasured_note_finds_every_stability_note(sentences: list[str]) -> None:
    assert re.fullmatch(UNMEASURED_NOTE, stability_note(sentences) or "")


@pytest.mark.parametrize(("engine", "splitter"), [("vader", "smart"), ("afinn", "mastra")])
def test_tone_scores_a_300000_character_text(engine: str, splitter: str) -> None:
    # A long agent report: scored, not refused (the limit is a million characters, for memory only).
    sentence = "The refund was approved, but the parcel is late and the old card was lost. "
    text = (sentence * (300_000 // len(sentence) + 1))[:300_000]
    result = create_tone_scorer(engine=engine, splitter=splitter).run(output=text)
    sentences = result.preprocess_step_result["sentences"]
    assert len(sentences) >= 300_000 // len(sentence) and 0.0 <= result.score <= 1.0  # type: ignore[arg-type]
    assert create_tone_scorer("Happy to help!", engine=engine).run(output=text).score >= 0.0


_AFINN_WORDS = st.sampled_from(
    ["good", "bad", "not", "don't", "Not", "GOOD", "constructor", "love", "hate", "x", " ", "  ", "\n", "\t", "\r",
     ".", "!", "?", "-", "'", "😂", "é", "\u00a0", "\x00", "\x1c"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(words=st.lists(_AFINN_WORDS, max_size=16))
def test_afinn_comparative_equals_the_full_analysis(words: list[str]) -> None:
    text = "".join(words)
    assert repr(afinn.comparative(text)) == repr(afinn.analyze(text).comparative)


def test_an_engine_giving_the_wrong_number_of_scores_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run`` pairs each sentence with its score; a count that does not match is refused, never zipped short."""
    from scoring.tone import scorer as tone_scorer

    scorer = create_tone_scorer(engine="afinn")
    engine, split = tone_scorer._parts("afinn", scorer.splitter)

    class OneShort:
        def polarities(self, texts: list[str]) -> list[float]:
            return engine.polarities(texts)[:-1]

    monkeypatch.setitem(tone_scorer._PARTS, ("afinn", scorer.splitter), (OneShort(), split))
    with pytest.raises(RuntimeError, match="the afinn engine gave 1 scores for 2 sentences"):
        scorer.run(output="It was fine. Thanks!")
