"""The table of scorer facts says what the scorers do, and the batch runner needs nothing else."""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Sequence

import pandas as pd
import pytest

from scoring import registry
from scoring.batch.rows import BatchSpec
from scoring.batch.runner import evaluate
from scoring.registry import SCORER_INFO, SCORERS, TONE, TOXICITY, ScorerInfo, get_scorer, scorer_info
from scoring.result import Columns, RowsDone, ScoreResult
from scoring.text.embeddings import encoder_available
from scoring.tone.engines import ENGINES as TONE_ENGINES
from scoring.toxicity.scorer import ENGINES as TOXICITY_ENGINES
from scoring.toxicity.scorer import default_engine as toxicity_default_engine

OUTPUTS = ["Thanks, that was great. Sadly it broke.", "You idiot. Fine."]
INPUTS = ["How was it?", "Any news?"]


def test_names_and_ids_are_unique_and_every_one_builds_its_scorer() -> None:
    names = [n for info in SCORER_INFO for n in (info.short_name, info.id)]
    assert len(names) == len(set(names)) == len(SCORERS)
    for info in SCORER_INFO:
        assert scorer_info(info.short_name) is scorer_info(info.id) is info
        assert get_scorer(info.short_name).id == info.id


def test_unknown_names_are_refused_naming_the_choices() -> None:
    with pytest.raises(ValueError, match=r"scorers must be among \['courtesy', 'similarity', 'tone', 'toxicity'\]"):
        scorer_info("sentiment")
    assert registry.find_scorer("sentiment") is None and registry.find_scorer(3) is None


def test_engines_are_the_ones_each_factory_accepts_and_the_default_comes_first() -> None:
    assert list(TONE.engines) == list(TONE_ENGINES)
    assert list(TOXICITY.engines) == list(TOXICITY_ENGINES)
    for info in SCORER_INFO:
        default = inspect.signature(info.factory).parameters.get("engine")
        if info is TOXICITY:  # the machine decides: e5 (listed first) where its wheel loads, else the classifier
            assert default is not None and default.default is None and info.default_engine == "e5"
            assert toxicity_default_engine() == ("e5" if encoder_available() else "classifier")
            assert info.batch_engine == "e5" and info.slow_engines == {"e5"}  # files as single texts (issue 24)
            assert set(info.speed_notes) <= info.slow_engines
        else:
            assert info.default_engine == (default.default if default else None)
        assert info.remote_engines <= set(info.engines)


@pytest.mark.parametrize("info", SCORER_INFO, ids=lambda i: i.short_name)
def test_metrics_are_what_score_many_returns(info: ScorerInfo) -> None:
    scorer = get_scorer(info.short_name)
    columns = scorer.score_many(outputs=OUTPUTS, inputs=INPUTS, ground_truths=["Glad to help!", None])
    assert set(columns) - {"score", "warnings", "error"} == set(info.metrics)
    assert len(columns["score"]) == len(OUTPUTS)


@pytest.mark.parametrize("info", SCORER_INFO, ids=lambda i: i.short_name)
def test_every_scorer_has_the_same_keyword_only_batch_method(info: ScorerInfo) -> None:
    parameters = inspect.signature(get_scorer(info.short_name).score_many).parameters
    assert list(parameters) == ["outputs", "inputs", "ground_truths", "on_row"]
    assert {p.kind for p in parameters.values()} == {inspect.Parameter.KEYWORD_ONLY}


def test_batch_options_name_fields_of_the_batch_spec() -> None:
    fields = {f.name for f in dataclasses.fields(BatchSpec)}
    assert {name for info in SCORER_INFO for name in info.batch_options} <= fields


@pytest.mark.parametrize("info", SCORER_INFO, ids=lambda i: i.short_name)
def test_score_many_gives_each_output_what_run_gives_it(info: ScorerInfo) -> None:
    scorer = get_scorer(info.short_name)
    many = scorer.score_many(outputs=OUTPUTS, inputs=INPUTS)
    one = [scorer.run(input=i, output=o).score for i, o in zip(INPUTS, OUTPUTS, strict=True)]
    assert many["score"] == pytest.approx(one)


def test_better_end_is_read_from_the_table() -> None:
    assert [i.better for i in SCORER_INFO] == ["higher", "higher", "lower", "higher"]


@dataclasses.dataclass(frozen=True)
class _LengthScorer:
    """A scorer the package does not ship: the output's length in words, capped at 10, over 10."""

    id: str = "length-scorer"

    def run(self, *, input: object = None, output: object, ground_truth: object = None) -> ScoreResult:  # noqa: A002
        words = len(str(output).split())
        return ScoreResult(self.id, min(words, 10) / 10, analyze_step_result={"words": words})

    def score_many(
        self,
        *,
        outputs: Sequence[str],
        inputs: Sequence[str | None] | None = None,
        ground_truths: Sequence[str | None] | None = None,
        on_row: RowsDone | None = None,
    ) -> Columns:
        words = [len(o.split()) for o in outputs]
        errors = ["no reference" if r == "fail" else None for r in ground_truths or [None] * len(outputs)]
        scores = [math.nan if e else min(w, 10) / 10 for w, e in zip(words, errors, strict=True)]
        return {"score": scores, "words": words, "error": errors}


def test_the_batch_runner_scores_any_scorer_in_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scorer added to the table is run, skipped, failed and summarised with no code that names it."""
    info = ScorerInfo(
        id="length-scorer", short_name="length", label="Length", factory=_LengthScorer, lower_is_better=True,
        higher_means="longer", metrics=("words",), compares=("reference",), alone="length of the output",
    )  # fmt: skip
    monkeypatch.setitem(registry._BY_NAME, "length", info)
    monkeypatch.setitem(registry._BY_NAME, "length-scorer", info)
    df = pd.DataFrame({"output": ["one two three", "x " * 20, "four", None], "ref": ["a", "b", "fail", "c"]})
    result = evaluate(df, scorers=["length"], reference="ref")
    assert result.table["length-scorer"].tolist()[:2] == [0.3, 1.0]
    assert math.isnan(result.table["length-scorer"].iloc[2]) and result.table["length-scorer.words"].iloc[2] == 1
    assert result.errors[["row", "scorer", "error"]].values.tolist() == [[3, "length-scorer", "no reference"]]
    assert result.skipped[["row", "column"]].values.tolist() == [[4, "output"]]
    assert result.summary.loc["length-scorer", "better"] == "lower"
    assert result.summary.loc["length-scorer", "count"] == 2
