"""Table-driven bad input over the library: each case gets a clear error naming the argument, or a valid score.

The table (`CASES`) is the one docs/reliability.md lists. An ``expect`` of an exception class means every scorer
must raise exactly that, with the argument's name in the message; ``"score"`` means a finite score in
``[0, scale]``, equal to one computed without the scorer's ``run`` (``_expected``), and a result that survives
``json.dumps``; ``"score+warning"`` also wants a warning.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import create_content_similarity_scorer, create_tone_scorer, run_evals
from scoring.batch.runner import evaluate
from scoring.limits import LimitError, get_limits
from scoring.result import ScoreResult
from scoring.similarity.scorer import ALGORITHMS
from scoring.text.splitters import get_sentence_texts
from scoring.tone.engines import get_engine

OVER_LIMIT = ("Thanks, that helped a lot. " * 40_000)[:1_000_001]  # one character over the default limit


@dataclass(frozen=True)
class Case:
    name: str
    value: object
    expect: type[Exception] | str  # an exception class, "score" or "score+warning"
    match: str = ""


CASES = [
    Case("None", None, ValueError, "is required"),
    Case("integer", 42, TypeError, "got int"),
    Case("float", 3.5, TypeError, "got float"),
    Case("NaN", math.nan, TypeError, "got float"),
    Case("bool", True, TypeError, "got bool"),
    Case("bytes", b"great service", TypeError, "got bytes"),
    Case("empty", "", "score+warning"),
    Case("whitespace only", " \t\n\u00a0 ", "score+warning"),
    Case("one character", "k", "score"),
    Case("1 MB of text", OVER_LIMIT, LimitError, "is 1,000,001 characters long; at most 1,000,000 are scored"),
    Case("emoji only", "😀🎉👍🔥💯", "score"),
    Case("control characters", "ok\x00\x07\x1b[31m red\x7f\u200b\ufeff", "score"),
    Case("unpaired surrogates", "bad \ud800 half \udfff pair", "score"),
    Case("right-to-left", "هذا رائع جدا، شكرا لك! שלום, תודה רבה.", "score"),
    Case("mixed scripts", "Great 很好 отлично ممتاز बहुत अच्छा!", "score"),
    Case("all punctuation", "?!.,;:...!!!???---***", "score"),
]
IDS = [c.name for c in CASES]


def _tone_scorers() -> dict[str, Callable[..., ScoreResult]]:
    out: dict[str, Callable[..., ScoreResult]] = {}
    for engine in ("vader", "afinn"):
        for splitter in ("smart", "mastra"):
            scorer = create_tone_scorer(engine=engine, splitter=splitter, scale=2)
            out[f"tone-{engine}-{splitter}"] = lambda v, s=scorer: s.run(output=v)
            ref = create_tone_scorer("Happy to help!", engine=engine, splitter=splitter)
            out[f"tone-ref-{engine}-{splitter}"] = lambda v, s=ref: s.run(output=v)
    return out


def _similarity_scorers() -> dict[str, Callable[..., ScoreResult]]:
    out: dict[str, Callable[..., ScoreResult]] = {}
    for algorithm in ALGORITHMS:
        scorer = create_content_similarity_scorer(algorithm=algorithm, scale=2)
        out[f"similarity-{algorithm}-output"] = lambda v, s=scorer: s.run(input="Thanks for the help.", output=v)
        out[f"similarity-{algorithm}-input"] = lambda v, s=scorer: s.run(input=v, output="Thanks for the help.")
    return out


def _toxicity_scorers() -> dict[str, Callable[..., ScoreResult]]:
    from scoring.toxicity.scorer import create_toxicity_scorer

    scorer = create_toxicity_scorer(scale=2)  # the offline classifier; the judge has tests/scoring/test_secrets.py
    return {
        "toxicity-classifier-output": lambda v: scorer.run(input="How was it?", output=v),
        "toxicity-classifier-input": lambda v: scorer.run(input=v, output="It was fine, thanks."),
    }


SCORERS = {**_tone_scorers(), **_similarity_scorers(), **_toxicity_scorers()}
OPTIONAL = {"toxicity-classifier-input"}  # the judge's context: None means "no question"


def _argument(scorer_name: str) -> str:
    return "input" if scorer_name.endswith("-input") else "output"


def _expected(scorer_name: str, value: object) -> float:
    """The score ``scorer_name`` must give ``value``, computed without the scorer's ``run``.

    Tone: the documented formulas (module docstring of scoring/tone/scorer.py) from the engine's polarities of
    the splitter's sentences, with the standard library's population variance. Similarity: the batch path
    (``score_many``, its own normalisation and, for dice and e5, its own vectorised code). Toxicity: none of
    these texts holds an insult or a threat, so 0 (and the batch path agrees).
    """
    text = "" if value is None else str(value)
    kind, *parts = scorer_name.split("-")
    if kind == "tone":
        engine = get_engine(parts[-2])
        if parts[0] == "ref":  # max(0, 1 - |polarity(output) - polarity(reference)|) * 1
            return max(0.0, 1.0 - abs(engine.polarity(text) - engine.polarity("Happy to help!")))
        sentences = get_sentence_texts(parts[-1])(text) or [text]
        return max(0.0, 1.0 - statistics.pvariance([engine.polarity(t) for t in sentences])) * 2.0
    if kind == "similarity":
        algorithm = "-".join(parts[:-1])
        scorer = create_content_similarity_scorer(algorithm=algorithm, scale=2)
        pair = ("Thanks for the help.", text) if parts[-1] == "output" else (text, "Thanks for the help.")
        return scorer.score_many(inputs=[pair[0]], outputs=[pair[1]])["score"][0]
    from scoring.toxicity.scorer import create_toxicity_scorer

    batch = create_toxicity_scorer(scale=2).score_many(
        outputs=["It was fine, thanks." if value is None or parts[-1] == "input" else value],
        inputs=[value if parts[-1] == "input" else "How was it?"],
    )
    assert batch["score"] == [0.0], batch
    return 0.0


def _check_valid(
    result: ScoreResult, case: Case, scale: float, *, of_output: bool = True, expected: float | None = None
) -> None:
    assert math.isfinite(result.score) and 0.0 <= result.score <= scale, result.score
    if expected is not None:
        assert result.score == pytest.approx(expected, abs=1e-12), (case.name, result.score, expected)
    json.dumps(result.to_dict())  # exportable as it is (surrogates escape as \\udXXX)
    if of_output and case.expect == "score+warning" and result.scorer_id in {"tone-scorer", "toxicity-scorer"}:
        assert result.warnings, "an empty text must say so instead of a silent score"


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("scorer_name", sorted(SCORERS))
def test_scorer_bad_input(scorer_name: str, case: Case) -> None:
    run = SCORERS[scorer_name]
    of_output = _argument(scorer_name) == "output"
    if case.value is None and scorer_name in OPTIONAL:
        _check_valid(run(case.value), case, 2.0, of_output=of_output, expected=_expected(scorer_name, case.value))
        return
    if isinstance(case.expect, type):
        with pytest.raises(case.expect) as info:
            run(case.value)
        message = str(info.value)
        assert message.startswith(_argument(scorer_name) + " "), message  # names the argument first
        assert case.match in message
        return
    scale = 2.0 if "-ref-" not in scorer_name else 1.0
    _check_valid(run(case.value), case, scale, of_output=of_output, expected=_expected(scorer_name, case.value))


@pytest.mark.parametrize("case", [c for c in CASES if c.value is not None], ids=lambda c: c.name)
def test_tone_ground_truth_bad_input(case: Case) -> None:
    scorer = create_tone_scorer()
    if isinstance(case.expect, type) and case.value:  # falsy values mean "no ground truth"
        with pytest.raises(case.expect, match=r"^ground_truth "):
            scorer.run(output="Fine.", ground_truth=case.value)
    else:
        result = scorer.run(output="Fine.", ground_truth=case.value)
        vader = get_engine("vader")  # a blank reference means stability: one sentence, 1.0 (Mastra's number)
        truth = case.value if isinstance(case.value, str) else ""
        expected = 1.0 - abs(vader.polarity("Fine.") - vader.polarity(truth)) if truth.strip() else 1.0
        assert result.score == pytest.approx(max(0.0, expected), abs=1e-12), (case.name, result.score)
        json.dumps(result.to_dict())


def test_the_text_limit_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert get_limits({}).max_text_chars == 1_000_000
    monkeypatch.setenv("TONE_EXPLORER_MAX_TEXT_CHARS", "1000001")
    # 37,037 sentences "Thanks, that helped a lot." and the cut "Th": 1 minus their population variance, exactly
    afinn = get_engine("afinn")
    values = [afinn.polarity("Thanks, that helped a lot.")] * 37_037 + [afinn.polarity("Th")]
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    score = create_tone_scorer(engine="afinn", splitter="smart").run(output=OVER_LIMIT).score
    assert score == pytest.approx(1 - variance, abs=1e-12) and score < 1
    monkeypatch.setenv("TONE_EXPLORER_MAX_TEXT_CHARS", "3")
    with pytest.raises(ValueError, match=r"^output is 4 characters long; at most 3"):
        create_content_similarity_scorer().run(input="abc", output="abcd")


def test_run_evals_reports_bad_items_and_scores_the_rest() -> None:
    data = [{"input": "Thanks", "output": c.value} for c in CASES if c.value is not None]
    scorers = [create_tone_scorer(), create_content_similarity_scorer()]
    result = run_evals(data, scorers)
    items = result["items"]
    assert len(items) == len(data)  # nothing dropped
    bad = [c for c in CASES if c.value is not None and isinstance(c.expect, type)]
    for item in items:
        case = next(c for c in CASES if c.value is not None and c.value is data[item["index"]]["output"])
        for scorer_id, scorer_result in item["scorerResults"].items():
            if case in bad:
                assert scorer_result["error"].startswith(case.expect.__name__ + ": output ")  # type: ignore[union-attr]
            else:  # exactly what the scorer itself gives that item
                own = next(x for x in scorers if x.id == scorer_id)
                assert scorer_result["score"] == own.run(input="Thanks", output=case.value).score, (
                    case.name,
                    scorer_id,
                )
    assert result["summary"]["errors"] == {"tone-scorer": len(bad), "content-similarity-scorer": len(bad)}
    assert all(0 <= v <= 1 for v in result["scores"].values())


def test_run_evals_item_without_output_is_an_error_item_not_a_crash() -> None:
    result = run_evals(
        [{"input": "a", "output": "Great, thanks!"}, {"input": "b", "output": None}, {"input": "c", "output": "Ok."}],
        [create_tone_scorer()],
    )
    assert [i["index"] for i in result["items"]] == [0, 1, 2]
    assert "error" in result["items"][1]["scorerResults"]["tone-scorer"]
    assert result["summary"]["errors"] == {"tone-scorer": 1}


def test_run_evals_records_a_failing_target_per_item_and_scores_the_rest() -> None:
    def target(question: object) -> str:
        if question == "b":
            raise ConnectionError("the agent is down")
        return f"Happy to help with {question}!"

    result = run_evals([{"input": "a"}, {"input": "b"}, {"input": "c"}], [create_tone_scorer()], target=target)
    assert [i["index"] for i in result["items"]] == [0, 1, 2]
    assert result["items"][1]["scorerResults"] == {
        "tone-scorer": {"error": "target raised ConnectionError: the agent is down"}
    }
    assert all("score" in result["items"][i]["scorerResults"]["tone-scorer"] for i in (0, 2))
    assert result["summary"]["errors"] == {"tone-scorer": 1}


def test_run_evals_records_a_failing_on_item_complete_and_goes_on() -> None:
    seen: list[int] = []

    def on_item_complete(record: dict[str, object]) -> None:
        seen.append(int(record["index"]))  # type: ignore[call-overload]
        if record["index"] == 0:
            raise KeyError("progress bar")

    data = [{"input": "a", "output": "Great, thanks!"}, {"input": "b", "output": "Ok."}]
    result = run_evals(data, [create_tone_scorer()], on_item_complete=on_item_complete)
    assert seen == [0, 1]
    assert result["items"][0]["onItemCompleteError"] == "KeyError: 'progress bar'"
    assert "onItemCompleteError" not in result["items"][1]
    assert result["summary"] == {"totalItems": 2, "onItemCompleteErrors": 1}
    assert "score" in result["items"][0]["scorerResults"]["tone-scorer"]  # the item keeps its scores


@pytest.mark.parametrize("factory", [create_tone_scorer, create_content_similarity_scorer, "toxicity"])
@pytest.mark.parametrize("scale", [1e308, 10**400, 1e13])
def test_a_huge_scale_is_a_clear_value_error(factory: object, scale: float) -> None:
    if factory == "toxicity":
        from scoring import create_toxicity_scorer

        factory = create_toxicity_scorer
    with pytest.raises(ValueError, match=r"^scale must be a positive number at most 1e\+12 \(scores are rounded"):
        factory(scale=scale)  # type: ignore[operator]


def test_the_largest_scale_scores_without_overflow() -> None:
    from scoring import create_toxicity_scorer

    text = "You are a stupid idiot and I hate you."
    assert create_toxicity_scorer(scale=1e12).run(input="q", output=text).score > 0
    assert create_tone_scorer(scale=1e12).run(output="Great, thanks!").score <= 1e12


@pytest.mark.parametrize(
    ("data", "error", "match"),
    [
        (None, TypeError, "^data must be a list of items"),
        ("text", TypeError, "^data must be a list of items"),
        ({"input": "x"}, TypeError, "^data must be a list of items"),
        (42, TypeError, "^data must be a list of items"),
    ],
)
def test_run_evals_bad_data_names_the_argument(data: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        run_evals(data, [create_tone_scorer()])  # type: ignore[arg-type]


BATCH_REASONS = {
    "None": "is empty",
    "NaN": "is empty",
    "empty": "is blank",
    "whitespace only": "is blank",
    "1 MB of text": "is too long: 1,000,001 characters, limit 1,000,000",
}


@pytest.mark.parametrize("scorer", ["tone", "similarity", "toxicity"])
def test_batch_skips_bad_rows_with_a_reason_and_scores_the_rest(scorer: str) -> None:
    """Every case as a row of one table: nothing dropped, bad rows listed with row and reason, others scored."""
    df = pd.DataFrame(
        {"input": ["Where is it?"] * len(CASES), "output": pd.Series([c.value for c in CASES], dtype=object)}
    )
    result = evaluate(df, scorers=[scorer])
    scorer_id = result.summary.index[0]
    assert len(result.table) == len(df) and result.table["output"].tolist() == df["output"].tolist()
    skipped = dict(zip(result.skipped["row"], result.skipped["reason"], strict=True))
    for row, case in enumerate(CASES, start=1):
        if case.expect in ("score", "score+warning") and case.name not in BATCH_REASONS:
            assert 0.0 <= result.table[scorer_id].iloc[row - 1] <= 1.0, case.name
        else:
            assert row in skipped, f"{case.name} should be listed as skipped"
            assert skipped[row].startswith("output column 'output'"), skipped[row]
            assert BATCH_REASONS.get(case.name, case.match) in skipped[row]
    assert result.errors.empty and not result.complete


ANY_TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=200)


@settings(max_examples=40, deadline=None)
@given(a=ANY_TEXT, b=ANY_TEXT)
def test_any_text_gets_a_score_in_range(a: str, b: str) -> None:
    """Any string at all (surrogates, controls, any script) scores within range in every scorer."""
    for run in SCORERS.values():
        assert 0.0 <= run(a).score <= 2.0
    assert 0.0 <= create_content_similarity_scorer().run(input=a, output=b).score <= 1.0


def test_run_evals_without_keeping_items_gives_the_same_means_summary_and_records() -> None:
    """``keep_items=False`` is Mastra's runEvals shape: the means and the summary; records only reach the callback."""
    data = [
        {"input": "a", "output": "Great, thanks! It works."},
        {"input": "b", "output": None},
        {"input": "c", "output": "Ok.", "groundTruth": "Thank you so much!"},
    ]
    scorers = [create_tone_scorer(), create_content_similarity_scorer()]
    kept = run_evals(data, scorers)
    streamed: list[dict[str, object]] = []
    lean = run_evals(data, scorers, on_item_complete=streamed.append, keep_items=False)
    assert set(lean) == {"scores", "summary"} and lean["summary"] == kept["summary"] == {
        "totalItems": 3,
        "errors": {"tone-scorer": 1, "content-similarity-scorer": 1},
    }
    assert lean["scores"] == kept["scores"]

    def without_run_ids(record: dict[str, object]) -> object:
        results = record["scorerResults"]
        return {**record, "scorerResults": {k: {**v, "runId": None} for k, v in results.items()}}  # type: ignore[attr-defined]

    assert [without_run_ids(r) for r in streamed] == [without_run_ids(r) for r in kept["items"]]  # type: ignore[attr-defined]
