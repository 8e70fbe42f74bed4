"""AppTest of the Runs page (table, filters, trend, comparing two runs, drill-down) and of "Save this run" on Batch."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from scoring.batch import evaluate
from scoring.io.columns import ColumnMap
from scoring.runs import RunStore
from tests.pages.conftest import plain
from ui import batch_input as batch_ui
from ui.markdown import escape_markdown

RUNS = "pages/runs.py"
Open = Callable[..., AppTest]


def _store() -> RunStore:
    return RunStore(os.environ["TONE_EXPLORER_DB"])


@pytest.fixture
def two_bots() -> RunStore:
    """The sample's two bot versions saved as runs 1 (v1, "bot") and 2 (v2, "bot"), a day apart."""
    df = pd.read_csv(batch_ui.SAMPLE_PATH)
    store = _store()
    start = datetime(2026, 3, 1, tzinfo=UTC)
    for day, model in enumerate(["support-bot-v1", "support-bot-v2"]):
        part = df[df["model"] == model].reset_index(drop=True)
        result = evaluate(part, scorers=["tone", "similarity"], columns=ColumnMap("output", "input"),
                          reference="reference")  # fmt: skip
        store.save(result, name="bot", source_name=f"{model}.csv", source_sha256=f"{day}" * 64,
                   created_at=start + timedelta(days=day))  # fmt: skip
    return store


def test_an_empty_store_says_how_to_save_a_run(open_page: Open) -> None:
    at = open_page(RUNS)
    assert at.title[0].value == "Run history"
    assert "No saved runs match yet" in at.info[0].value
    assert escape_markdown(os.environ["TONE_EXPLORER_DB"].removeprefix("sqlite:///")) in at.caption[0].value


def test_runs_table_trend_and_comparison(open_page: Open, two_bots: RunStore) -> None:
    at = open_page(RUNS)
    table = at.dataframe[0].value
    assert table["id"].tolist() == [2, 1] and table["source"].tolist() == ["support-bot-v2.csv", "support-bot-v1.csv"]
    assert table["tone-scorer mean"].round(4).tolist() == [0.9279, 0.7030]
    chart = at.get("plotly_chart")[0]
    assert "bot: mean score per run (95% CI), 2 runs" in chart.proto.spec
    assert "Tone (higher is better)" in chart.proto.spec and "tone-scorer (higher" not in chart.proto.spec
    errors, successes = [e.value for e in at.error], [s.value for s in at.success]
    assert not errors and len(successes) == 3  # run 2 (v2) against run 1 (v1): both scorers and warmth improved
    assert successes[0].startswith("**Improved: Tone** · run 2 \\(bot\\) is more on\\-tone than run 1")
    # scored with the reference column: warmth is each reply's own sentiment (responseSentiment)
    assert plain(successes[2]).startswith("**Improved: Warmth** · run 2 (bot) is warmer than run 1 (bot): run 2 (bot) "
                                          "minus run 1 (bot) over 72 pairs = 0.277 - 0.084")  # fmt: skip
    deltas = at.dataframe[1].value
    assert len(deltas) == 68 and deltas["regression"].iloc[0] == deltas["regression"].max()  # score changed: 68
    assert "B − A" in at.selectbox(key="runs.drill.tone-scorer.True").options[0]


def test_comparing_the_other_way_shows_regressions_and_a_row_drill_down(open_page: Open, two_bots: RunStore) -> None:
    at = open_page(RUNS)
    at.selectbox(key="runs.a").set_value(2).run()
    at.selectbox(key="runs.b").set_value(1).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value.split(" · ")[0] for e in at.error] == ["**Regression: Tone**",
                                                           "**Regression: Content similarity**",
                                                           "**Regression: Warmth**"]  # fmt: skip
    # B minus A with the pairs and paired means it is made of
    assert plain(at.error[0].value).endswith(
        "over 72 pairs = 0.674 - 0.920 = -0.246 (95% CI -0.322 to -0.170), p=0.0001. "
        "14 rows whose tone was not measured were left out."
    )
    deltas = at.dataframe[1].value
    worst = deltas.iloc[0]
    assert worst["regression"] == pytest.approx(0.945, abs=1e-3) and worst["output_b"].startswith("That's your bank")
    texts = [t.value for t in at.text]
    assert worst["input"] in texts and worst["output_a"] in texts and worst["output_b"] in texts
    assert len([c for c in at.get("plotly_chart")]) == 3  # the trend, and each reply's sentences
    assert [m.label for m in at.metric] == ["Tone", "Tone"]  # each reply's score, named for people


def test_changed_only_and_filters(open_page: Open, two_bots: RunStore) -> None:
    rows = two_bots.rows(1)
    at = open_page(RUNS)
    # a row changed when its tone score did: 68 of 81 (another bot's replies, but 13 kept their score)
    assert len(at.dataframe[1].value) == 68 < len(rows)
    at.toggle(key="runs.changed_only").set_value(False).run()
    assert len(at.dataframe[1].value) == len(rows)
    at.text_input(key="runs.filter_source").set_value("v1").run()
    assert at.dataframe[0].value["id"].tolist() == [1]
    assert "Save at least two runs to compare them." in [i.value for i in at.info]
    at.text_input(key="runs.filter_source").set_value("nothing-like-this").run()
    assert "No saved runs match yet" in at.info[0].value


def test_batch_page_saves_the_run(open_page: Open) -> None:
    at = open_page("pages/batch.py")
    at.button(key="batch.run_button").click().run()
    assert at.text_input(key="batch.save_name").value == "sample_responses"
    at.text_input(key="batch.save_name").set_value("nightly").run()
    at.button(key="batch.save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (info,) = _store().list_runs()
    assert (info.name, info.source_name, info.row_count) == ("nightly", "sample_responses.csv", 162)
    assert any("Saved as **run 1 \\(nightly\\)**" in s.value for s in at.success)
    at.button(key="batch.run_button").click().run()  # the same run again: still saved once
    assert len(_store().list_runs()) == 1


def test_batch_page_refuses_a_bad_run_name(open_page: Open) -> None:
    at = open_page("pages/batch.py")
    at.button(key="batch.run_button").click().run()
    at.text_input(key="batch.save_name").set_value("123").run()
    at.button(key="batch.save").click().run()
    assert any("run name must not be a number" in e.value for e in at.error)
    assert _store().list_runs() == []


def test_the_runs_page_renames_and_deletes_a_run(open_page: Open, two_bots: RunStore) -> None:
    at = open_page(RUNS)
    table = at.dataframe[0].value
    assert "sha256" not in table and "complete" not in table  # counts instead of an unticked box; no hash
    assert table[["skipped", "failed"]].values.tolist() == [[1, 0], [1, 0]]
    at.selectbox(key="runs.manage").set_value(1).run()
    at.text_input(key="runs.new_name.1").set_value("bot-v1").run()
    at.button(key="runs.rename").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [i.name for i in two_bots.list_runs()] == ["bot", "bot-v1"]
    assert "Renamed run 1 (bot) to run 1 (bot-v1)." in plain(at.success[0].value)
    assert at.button(key="runs.delete").disabled  # not before the box is ticked
    at.checkbox(key="runs.sure.1").check().run()
    at.button(key="runs.delete").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [i.id for i in two_bots.list_runs()] == [2]
    assert "Deleted run 1 (bot-v1) (81 rows from support-bot-v1.csv)." in plain(at.success[0].value)


def test_a_corrupt_store_is_an_error_on_the_page_not_a_crash(open_page: Open) -> None:
    """Issue 28: a truncated or non-database SQLite file raised an uncaught DatabaseError."""
    path = os.environ["TONE_EXPLORER_DB"].removeprefix("sqlite:///")
    with open(path, "wb") as handle:
        handle.write(bytes(range(256)) * 16)
    at = open_page(RUNS)  # asserts that nothing raised
    assert any("is not a usable database" in e.value for e in at.error), [e.value for e in at.error]
    assert not at.info  # not "No saved runs match yet": the store could not be read


def test_a_database_url_never_shows_a_query_password(open_page: Open, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_DB", "postgresql://bob@127.0.0.1:1/db?password=hunter2&connect_timeout=2")
    at = open_page(RUNS)
    shown = " ".join(str(e.value) for kind in (at.caption, at.error, at.info, at.markdown) for e in kind)
    assert "password\\=\\*\\*\\*" in shown and "hunter2" not in shown, shown


def test_line_breaks_in_a_file_name_are_shown_escaped_on_batch_and_runs(open_page: Open) -> None:
    """A file named with a line feed and a carriage return: every place the pages show it reads ``\\n`` / ``\\r``
    (scoring.text.display.one_line, the function the CLI uses), never a raw break or a fake second line."""
    name = "replies\nrun 9 (fake)\rerror.csv"
    data = pd.DataFrame({"input": ["q"] * 3, "output": ["Thanks!", "Fine.", "Great, thank you."]})
    at = open_page("pages/batch.py", state={"batch.source": "file", "batch.scorers": ["tone"]})
    at.file_uploader(key="batch.upload").set_value((name, data.to_csv(index=False).encode(), "text/csv")).run()
    caption = next(c.value for c in at.caption if "rows · columns" in c.value)
    assert "\n" not in caption and "\r" not in caption
    assert plain(caption).startswith("**replies\\nrun 9 (fake)\\rerror.csv** · 3 rows")
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text_input(key="batch.save_name").value == "replies\\nrun_9_(fake)\\rerror"
    at.button(key="batch.save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (info,) = _store().list_runs()
    assert info.source_name == name  # stored as given; escaped where shown
    at.switch_page(RUNS).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.dataframe[0].value["source"].tolist() == ["replies\\nrun 9 (fake)\\rerror.csv"]
    shown = "run 1 (replies\\nrun_9_(fake)\\rerror)"
    for key in ("runs.manage", "runs.label_run"):
        (option,) = at.selectbox(key=key).options
        assert "\n" not in option and "\r" not in option and option.startswith(shown), option
    assert at.selectbox(key="runs.label_run").options[0] == f"{shown} · replies\\nrun 9 (fake)\\rerror.csv"
