"""AppTest of the Batch page: the bundled sample runs end to end; filters never re-score."""

from __future__ import annotations

import csv
from collections.abc import Callable
from statistics import fmean

import pytest
from streamlit.testing.v1 import AppTest

import batch_ui
from scoring import create_content_similarity_scorer, create_tone_scorer
from tests.pages.conftest import metrics

BATCH = "pages/batch.py"
Open = Callable[..., AppTest]


def _sample() -> list[dict[str, str]]:
    with batch_ui.SAMPLE_PATH.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """Count the batch runs the page starts (each records its options)."""
    calls: list[dict[str, object]] = []
    real = batch_ui.evaluate

    def counting(df: object, **kwargs: object) -> object:
        calls.append(kwargs)
        return real(df, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(batch_ui, "evaluate", counting)
    return calls


def _run_sample(open_page: Open) -> AppTest:
    at = open_page(BATCH)
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_sample_run_shows_cards_with_the_scorers_means(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    rows = [r for r in _sample() if r["output"].strip()]
    tone = fmean(create_tone_scorer(r["reference"]).run(output=r["output"]).score for r in rows)
    dice = create_content_similarity_scorer()
    similarity = fmean(dice.run(input=r["input"], output=r["output"]).score for r in rows)
    shown = metrics(at)
    assert shown["tone-scorer · mean"] == f"{tone:.3f}"
    assert shown["content-similarity-scorer · mean"] == f"{similarity:.3f}"
    assert len(runs) == 1 and runs[0]["reference_column"] == "reference"


def test_sample_run_reports_the_rows_it_could_not_score(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    missing = [str(i + 1) for i, r in enumerate(_sample()) if not r["output"].strip()]
    assert len(missing) == 2
    banner = at.warning[0].value
    assert banner.startswith("**Partial results.**") and f"row {', '.join(missing)}." in banner
    assert not at.success or "All" not in at.success[0].value
    assert "160 of 162 rows" in " ".join(c.value for c in at.caption)


def test_sample_run_shows_table_charts_and_ab_verdict(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    table = at.dataframe(key="batch.rows").value
    assert len(table) == 162
    assert table["tone-scorer"].iloc[0] == table["tone-scorer"].min()  # worst first
    assert len(at.get("plotly_chart")) >= 4  # two histograms, the scatter, the group means
    verdicts = [s.value for s in at.success]
    assert any(v.startswith("support-bot-v2 is more on-tone than support-bot-v1: +") for v in verdicts)
    assert [b.proto.label for b in at.get("download_button")] == ["CSV", "JSONL", "Parquet", "HTML report"]


def test_filters_never_rescore(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    at.text_input(key="batch.query").set_value("refund").run()
    at.selectbox(key="batch.sort").set_value("content-similarity-scorer").run()
    at.selectbox(key="batch.ab.group").set_value("category").run()
    assert not at.exception
    assert len(runs) == 1
    table = at.dataframe(key="batch.rows").value
    assert 0 < len(table) < 162 and table["output"].str.contains("refund", case=False).any()
    at.button(key="batch.run_button").click().run()  # same file, same options: from the store
    assert len(runs) == 1
    at.radio(key="batch.engine").set_value("afinn")
    at.button(key="batch.run_button").click().run()
    assert len(runs) == 2 and runs[1]["engine"] == "afinn"


def test_one_reference_text_for_all_rows(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = open_page(BATCH)
    at.radio(key="batch.ref_mode").set_value("text").run()
    at.text_area(key="batch.ref_text").set_value("We are delighted to help you!")
    at.button(key="batch.run_button").click().run()
    assert not at.exception
    assert runs[0]["reference_tone"] == "We are delighted to help you!" and runs[0]["reference_column"] is None


def test_bad_mapping_is_an_error_message_not_a_crash(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = open_page(BATCH)
    at.selectbox(key="batch.col.input").set_value(batch_ui.NONE)
    at.button(key="batch.run_button").click().run()
    assert not at.exception
    assert any("input" in e.value for e in at.error)
    assert not at.get("download_button")
