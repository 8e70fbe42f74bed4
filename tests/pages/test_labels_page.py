"""AppTest of labels on the pages: the Runs page's agreement (the library's numbers, the chart, the raters' kappa),
teaching refused with too few labels, and taught scorers offered on the Batch page."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pandas as pd
from streamlit.elements.widgets.button import ButtonMixin
from streamlit.testing.v1 import AppTest

from scoring.batch import evaluate
from scoring.io.columns import ColumnMap
from scoring.runs import RunStore
from scoring.runs.db import taught
from scoring.runs.labels import add_labels
from scoring.runs.review import export_frame, run_agreement
from scoring.text.embeddings import EMBEDDING_DIM
from ui.markdown import escape_markdown

RUNS, BATCH = "pages/runs.py", "pages/batch.py"
Open = Callable[..., AppTest]
REPLIES = ["Thanks so much, happy to help!", "Read the manual. It is all there.", "Glad it works, have a great day!",
           "Not my problem. Ask someone else.", "You're welcome, anytime!", "Go away. Stop writing."]  # fmt: skip


def _labelled() -> tuple[RunStore, int]:
    store = RunStore(os.environ["TONE_EXPLORER_DB"])
    result = evaluate(pd.DataFrame({"reply": REPLIES}), scorers=["tone"], columns=ColumnMap(output="reply"))
    info = store.save(result, name="labelled", source_name="replies.csv", source_sha256="1" * 64)
    add_labels(store, info.id, "tone", {1: 1, 2: 0, 3: 1, 4: 0, 5: 1, 6: 0}, rater="ana")
    add_labels(store, info.id, "tone", {1: 1, 2: 0, 3: 0, 4: 0, 5: 1, 6: 1}, rater="bo")
    return store, info.id


def test_the_runs_page_shows_the_agreement_of_the_labelled_run(open_page: Open) -> None:
    store, run_id = _labelled()
    at = open_page(RUNS)
    _, found = run_agreement(store, run_id)
    scorer = found[0].scorers[0]
    metric = next(m for m in at.metric if m.label == "tone-scorer: ROC AUC")
    assert metric.value == f"{scorer.value:.3f}"
    text = "\n".join(c.value for c in at.code)
    assert "people with each other: Cohen's kappa 0.333" in text and "tone-scorer with bo" in text
    charts = [c.proto.spec for c in at.get("plotly_chart")]
    assert any(
        "chance" in spec and "false-positive rate" in spec for spec in charts
    )  # the ROC chart, with its chance line
    assert any(f"of 6 rows labelled for {escape_markdown('tone-scorer')}" in c.value for c in at.caption)


def test_teaching_with_too_few_labels_says_how_many_are_needed(open_page: Open) -> None:
    _labelled()
    at = open_page(RUNS)
    at.text_input(key="labels.teach_name").set_value("polite").run()
    at.button(key="labels.teach").click().run()
    assert not at.exception
    wanted = escape_markdown("too few tone-scorer labels to teach: 4 usable (2 yes, 2 no); at least 30 are needed")
    assert any(wanted in e.value for e in at.error), [e.value for e in at.error]


def test_a_taught_scorer_is_a_batch_choice(open_page: Open) -> None:
    store = RunStore(os.environ["TONE_EXPLORER_DB"])
    dims = EMBEDDING_DIM + 1
    with store.transaction(write=True) as conn:  # a head that only reads the base score (the last feature)
        conn.execute(taught.insert().values(
            name="only-base", version=1, measure="tone-scorer", kind="yes/no", created_at=datetime.now(UTC),
            run_id=None, run_label="run 0 (test)", training_sha256="2" * 64, rows=30,
            model={"role": "", "baseOptions": {"engine": "vader", "splitter": "smart", "reference_tone": None},
                   "coef": [0.0] * EMBEDDING_DIM + [4.0], "intercept": 0.0, "center": [0.0] * EMBEDDING_DIM + [0.5],
                   "scale": [1.0] * dims, "setting": 1.0, "low": 0.0, "high": 1.0, "prefix": "passage"},
            report={"statistic": "ROC AUC", "taught": {"value": 0.8}, "base": {"value": 0.7}}, text_hashes=[],
        ))  # fmt: skip
    at = open_page(BATCH, state={"batch.source": "sample"})
    pills = at.pills(key="batch.scorers")
    assert "Taught: only-base (v1, on tone)" in pills.options  # offered under its label
    assert "taught:only-base" not in pills.value  # not chosen unasked (it embeds every reply)


def test_the_batch_page_offers_labelling_once_the_run_is_saved(open_page: Open) -> None:
    at = open_page(BATCH)
    at.button(key="batch.run_button").click().run()
    assert not any("Label the rows" in m.value for m in at.markdown)  # nothing to keep labels beside yet
    at.button(key="batch.save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Label the rows" in m.value for m in at.markdown)
    assert any(f"0** of 162 rows labelled for {escape_markdown('tone-scorer')}" in c.value for c in at.caption)


def test_the_labelled_run_downloads_with_its_labels(open_page: Open) -> None:
    _labelled()
    at = open_page(RUNS)
    at.toggle(key="labels.downloads.1").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [b.label for b in at.get("download_button")]
    assert labels[-3:] == ["CSV", "Excel", "HTML report"]


def test_the_batch_page_downloads_carry_the_saved_runs_labels(open_page: Open, monkeypatch: Any) -> None:
    """After "Save this run" and labelling, the Batch page's CSV/JSONL/Parquet/Excel and HTML report hold the
    run's ``label.<measure>@<rater>`` columns: the same values as the Runs page's export (export_frame)."""
    offered: dict[str, Any] = {}
    original = ButtonMixin.download_button

    def recording(self: Any, label: str, data: Any, *args: Any, **kwargs: Any) -> bool:
        offered[label] = data
        return original(self, label, data, *args, **kwargs)

    monkeypatch.setattr(ButtonMixin, "download_button", recording)
    data = pd.DataFrame({"input": ["q"] * len(REPLIES), "output": REPLIES}).to_csv(index=False).encode()
    at = open_page(BATCH, state={"batch.source": "file", "batch.scorers": ["tone"]})
    at.file_uploader(key="batch.upload").set_value(("replies.csv", data, "text/csv")).run()
    at.button(key="batch.run_button").click().run()
    offered.clear()
    at.run()
    assert not any(str(c).startswith("label.") for c in pd.read_csv(io.BytesIO(offered["CSV"]())).columns)
    at.button(key="batch.save").click().run()
    store = RunStore(os.environ["TONE_EXPLORER_DB"])
    (info,) = store.list_runs()
    add_labels(store, info.id, "tone", {1: 1, 2: 0, 4: 0}, rater="ana")  # as the page's editor saves them
    add_labels(store, info.id, "tone", {1: 1, 2: 1}, rater=None)
    offered.clear()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    expected = export_frame(store, info.id)
    columns = [c for c in expected.columns if str(c).startswith("label.")]
    assert columns == ["label.tone-scorer", "label.tone-scorer@ana"]
    frames = {
        "CSV": pd.read_csv(io.BytesIO(offered["CSV"]())),
        "JSONL": pd.read_json(io.BytesIO(offered["JSONL"]()), lines=True),
        "Parquet": pd.read_parquet(io.BytesIO(offered["Parquet"]())),
        "Excel": pd.read_excel(io.BytesIO(offered["Excel"]())),
    }
    for kind, frame in frames.items():
        assert frame[columns].equals(expected[columns].astype(float)), kind
    report = offered["HTML report"]()
    assert "label.tone-scorer@ana" in report and "label.tone-scorer" in report
