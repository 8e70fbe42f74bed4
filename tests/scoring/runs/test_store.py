"""The run store on SQLite and PostgreSQL: what a run holds, finding, deleting, trends, one-transaction saves."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa

from scoring.batch import evaluate
from scoring.io.columns import ColumnMap
from scoring.runs import RunStore, UnknownRunError, default_url, file_sha256, rows_frame
from scoring.runs import db as rundb
from scoring.runs import store as runstore
from tests.scoring.runs.conftest import replies, scored

SHA = "ab" * 32


def test_save_keeps_the_whole_run(store: RunStore) -> None:
    result = scored()
    info = store.save(result, name="nightly", source_name="/home/me/data/replies.csv", source_sha256=SHA.upper())
    run = store.get(info.id)
    assert run.info == info
    assert (info.name, info.source_name, info.source_sha256) == ("nightly", "replies.csv", SHA)
    assert info.scorers == ("tone-scorer", "content-similarity-scorer")
    assert (info.row_count, info.skipped_rows, info.failed_rows, info.complete) == (12, 1, 0, False)
    assert info.created_at.tzinfo is not None and abs(datetime.now(UTC) - info.created_at) < timedelta(hours=1)
    expected = rows_frame(result)
    pd.testing.assert_frame_equal(run.rows, expected, check_dtype=False)
    assert run.rows.loc[0, "input"] == "Question 0?" and pd.isna(run.rows.loc[3, "output"])
    assert run.rows["reference"].isna().all()
    summary = result.summary
    for scorer in info.scorers:
        for column in ("mean", "median", "min", "max", "count", "skipped", "errors", "warned"):
            assert run.summary.loc[scorer, column] == pytest.approx(summary.loc[scorer, column])
        low, mean, high = run.summary.loc[scorer, ["ci_low", "mean", "ci_high"]]
        assert low <= mean <= high
    problems = run.problems.sort_values("scorer").to_dict("records")
    assert [(p["row"], p["scorer"], p["kind"], p["column"]) for p in problems] == [
        (4, "content-similarity-scorer", "skipped", "reply"),
        (4, "tone-scorer", "skipped", "reply"),
    ]
    assert info.options == {
        "output_column": "reply", "input_column": "question", "reference_tone": None, "reference_column": None,
        "engine": "vader", "splitter": "smart",
    }  # fmt: skip


def test_save_keeps_warnings_references_and_odd_text(store: RunStore) -> None:
    df = pd.DataFrame({
        "question": ["Wie geht's?", "Nul?", "Emoji?"],
        "reply": ["Mir geht es sehr gut, danke der Nachfrage, wirklich.", "a\x00b \ud800 end.", "Great 🎉!"],
        "ref": ["Sehr gut.", "Fine.", "Great!"],
    }, dtype=object)  # fmt: skip
    result = evaluate(df, scorers=["tone"], columns=ColumnMap(output="reply", input="question"), reference="ref")
    info = store.save(result, name="odd", source_name="odd.jsonl", source_sha256=SHA)
    rows = store.rows(info.id)
    assert rows["output"].tolist() == ["Mir geht es sehr gut, danke der Nachfrage, wirklich.", "a\ufffdb \ufffd end.",
                                       "Great 🎉!"]  # fmt: skip
    assert rows["reference"].tolist() == ["Sehr gut.", "Fine.", "Great!"]
    assert "German" in rows.loc[0, "tone-scorer.warnings"] and rows.loc[2, "tone-scorer.warnings"] == ""
    assert rows["tone-scorer.responseSentiment"].tolist() == pytest.approx(
        result.table["tone-scorer.responseSentiment"].tolist()
    )


def test_options_never_keep_a_key_or_url_credentials(store: RunStore) -> None:
    from scoring.batch import BatchResult, make_spec

    spec = make_spec(
        ["q", "a"],
        scorers=["toxicity"],
        column_map=ColumnMap(output="a", input="q"),
        toxicity={
            "engine": "judge",
            "model": "m",
            "api_key": "sk-secret-123",
            "base_url": "http://bob:pw@localhost:9/v1?key=k",
        },
    )
    table = pd.DataFrame({"q": ["Hi"], "a": ["Hello."], "toxicity-scorer": [0.0]})
    summary = pd.DataFrame({"mean": [0.0], "count": [1]}, index=pd.Index(["toxicity-scorer"], name="scorer"))
    empty = pd.DataFrame(columns=["row", "index", "scorer", "column", "reason"])
    result = BatchResult(table, summary, empty, pd.DataFrame(columns=["row", "index", "scorer", "error"]), spec)
    info = store.save(result, name="judge", source_name="a.csv", source_sha256=SHA)
    assert info.options["toxicity"] == {"engine": "judge", "model": "m", "base_url": "http://localhost:9/v1"}
    with store.engine.connect() as conn:
        dumped = " ".join(str(r) for t in rundb.metadata.sorted_tables for r in conn.execute(sa.select(t)))
    assert "sk-secret-123" not in dumped and "pw@" not in dumped and "key=k" not in dumped


def test_resolve_by_id_name_and_latest(store: RunStore) -> None:
    first = store.save(scored(), name="nightly", source_name="a.csv", source_sha256=SHA)
    second = store.save(scored(), name="candidate", source_name="b.csv", source_sha256=SHA)
    third = store.save(scored(), name="nightly", source_name="c.csv", source_sha256=SHA)
    assert first.id < second.id < third.id
    assert store.resolve(str(first.id)) == first and store.resolve(second.id) == second
    assert store.resolve("nightly") == third and store.resolve(" candidate ") == second
    assert store.resolve("latest") == third
    with pytest.raises(UnknownRunError, match=r"no run with id or name 'nope'.*runs list"):
        store.resolve("nope")
    with pytest.raises(UnknownRunError, match="no run with id or name '999'"):
        store.resolve("999")


def test_latest_in_an_empty_store_says_there_are_no_runs(store: RunStore) -> None:
    with pytest.raises(UnknownRunError, match="has no runs yet"):
        store.resolve("latest")


@pytest.mark.parametrize(
    ("name", "message"),
    [("", "non-empty"), ("  ", "non-empty"), ("12", "not be a number or 'latest'"), ("latest", "not be a number"),
     ("a\nb", "on one line"), ("x" * 201, "at most 200"), (None, "non-empty")],
)  # fmt: skip
def test_save_refuses_bad_names(sqlite_url: str, name: object, message: str) -> None:
    store = RunStore(sqlite_url)
    with pytest.raises(ValueError, match=message):
        store.save(scored(), name=name, source_name="a.csv", source_sha256=SHA)  # type: ignore[arg-type]
    assert store.list_runs() == []


@pytest.mark.parametrize("sha", ["abc", "g" * 64, ""])
def test_save_refuses_a_bad_sha256(sqlite_url: str, sha: str) -> None:
    with pytest.raises(ValueError, match="source_sha256 must be 64 hexadecimal digits"):
        RunStore(sqlite_url).save(scored(), name="n", source_name="a.csv", source_sha256=sha)


def test_list_filters_and_table(store: RunStore) -> None:
    store.save(scored(), name="nightly-main", source_name="replies_v1.csv", source_sha256=SHA)
    store.save(scored(), name="candidate", source_name="replies_v2.csv", source_sha256=SHA)
    store.save(scored(), name="nightly-100%_x", source_name="other.jsonl", source_sha256=SHA)
    assert [i.name for i in store.list_runs()] == ["nightly-100%_x", "candidate", "nightly-main"]
    assert [i.name for i in store.list_runs(name="NIGHTLY")] == ["nightly-100%_x", "nightly-main"]
    assert [i.name for i in store.list_runs(source="replies")] == ["candidate", "nightly-main"]
    assert [i.name for i in store.list_runs(name="100%")] == ["nightly-100%_x"]  # % is a letter, not a wildcard
    assert [i.name for i in store.list_runs(name="y-_")] == []
    table = store.table(source="v2")
    assert table["name"].tolist() == ["candidate"]
    assert {"tone-scorer mean", "content-similarity-scorer mean"} <= set(table.columns)
    assert store.names() == ["nightly-100%_x", "candidate", "nightly-main"]


def test_delete_removes_every_part_and_ids_are_never_reused(store: RunStore) -> None:
    first = store.save(scored(), name="a", source_name="a.csv", source_sha256=SHA)
    second = store.save(scored(), name="b", source_name="b.csv", source_sha256=SHA)
    assert store.delete("b") == second
    with pytest.raises(UnknownRunError):
        store.get(second.id)
    with store.engine.connect() as conn:
        for table in (rundb.run_rows, rundb.run_scorers, rundb.run_problems):
            assert conn.execute(sa.select(sa.func.count()).where(table.c.run_id == second.id)).scalar() == 0
    third = store.save(scored(), name="c", source_name="c.csv", source_sha256=SHA)
    assert third.id > second.id
    assert [i.id for i in store.list_runs()] == [third.id, first.id]


def test_trend_lists_each_scorer_mean_with_its_ci_in_order(store: RunStore) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for day, tone in enumerate(["Thanks, happy to help!", "Sorry, this is awful and broken.", "Great, glad it works!"]):
        when = start + timedelta(days=day)
        store.save(scored(replies(tone=tone)), name="nightly", source_name="r.csv", source_sha256=SHA, created_at=when)
    store.save(scored(), name="other", source_name="r.csv", source_sha256=SHA)
    trend = store.trend("nightly")
    tone = trend[trend["scorer"] == "tone-scorer"]
    assert len(trend) == 9 and len(tone) == 3  # tone, similarity and warmth (tone's average sentiment) per run
    warmth = trend[trend["scorer"] == "warmth"]
    assert warmth["mean"].iloc[1] < 0 < warmth["mean"].iloc[2] and not warmth["lower_is_better"].any()
    assert tone["created_at"].tolist() == [start, start + timedelta(days=1), start + timedelta(days=2)]
    assert (tone["ci_low"] <= tone["mean"]).all() and (tone["mean"] <= tone["ci_high"]).all()
    assert not tone["lower_is_better"].any() and (tone["count"] == 11).all()
    assert store.trend("missing").empty


def test_an_error_mid_save_leaves_no_part_of_the_run(store: RunStore, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = store.save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)
    monkeypatch.setattr(runstore, "INSERT_BATCH", 5)  # 12 rows: three INSERTs; the second one fails
    inserts = []

    def fail_second_rows_insert(conn: object, cursor: object, statement: str, *args: object) -> None:
        if statement.startswith("INSERT INTO tone_run_rows"):
            inserts.append(statement)
            if len(inserts) == 2:
                raise RuntimeError("disk full (simulated)")

    sa.event.listen(store.engine, "before_cursor_execute", fail_second_rows_insert)
    with pytest.raises(RuntimeError, match="disk full"):
        store.save(scored(), name="half", source_name="b.csv", source_sha256=SHA)
    sa.event.remove(store.engine, "before_cursor_execute", fail_second_rows_insert)
    assert len(inserts) == 2
    assert [i.name for i in store.list_runs()] == ["kept"]
    with store.engine.connect() as conn:
        for table in (rundb.run_rows, rundb.run_scorers, rundb.run_problems):
            ids = set(conn.execute(sa.select(table.c.run_id)).scalars())
            assert ids == {kept.id}, table.name


def test_a_large_run_round_trips(store: RunStore) -> None:
    df = replies(5000)
    result = scored(df, scorers=("similarity",))
    info = store.save(result, name="big", source_name="big.csv", source_sha256=SHA)
    rows = store.rows(info.id)
    assert len(rows) == 5000 and rows["row"].tolist() == list(range(1, 5001))
    got = rows["content-similarity-scorer"].to_numpy()
    want = result.table["content-similarity-scorer"].to_numpy()
    assert ((got == want) | (pd.isna(got) & pd.isna(want))).all()


def test_default_store_is_a_sqlite_file_in_the_user_data_folder(tmp_path: Path) -> None:
    url = default_url()
    assert url == f"sqlite:///{tmp_path / 'xdg-data' / 'tone-explorer' / 'runs.sqlite'}"
    store = RunStore()
    assert store.location == str(tmp_path / "xdg-data" / "tone-explorer" / "runs.sqlite")
    assert not Path(store.location).exists()  # created on first use
    store.list_runs()
    assert Path(store.location).is_file()


def test_env_names_the_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TONE_EXPLORER_DB", f"sqlite:///{tmp_path / 'team.sqlite'}")
    assert RunStore().location == str(tmp_path / "team.sqlite")


def test_a_postgres_url_gets_the_psycopg_driver_and_hides_its_password() -> None:
    store = RunStore("postgresql://me:hunter2@db.example:5432/runs")
    assert store.engine.url.drivername == "postgresql+psycopg"
    assert "hunter2" not in store.location and "hunter2" not in repr(store)


@pytest.mark.parametrize("url", ["not a url", "nosuchdb://x/y"])
def test_bad_urls_are_a_clear_error(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("TONE_EXPLORER_DB", url)
    with pytest.raises(ValueError, match=r"TONE_EXPLORER_DB must be a SQLAlchemy URL|no driver"):
        RunStore()


def test_an_unreachable_server_is_a_clear_error() -> None:
    from scoring.runs import RunStoreError

    store = RunStore("postgresql://nobody:secretpw@127.0.0.1:1/none?connect_timeout=5")
    with pytest.raises(RunStoreError, match="cannot use the run store postgresql\\+psycopg://nobody:\\*\\*\\*@") as exc:
        store.list_runs()
    assert "secretpw" not in str(exc.value)


def test_file_sha256_of_path_handle_and_bytes(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    path.write_bytes(b"a,b\n1,2\n" * 300_000)
    digest = file_sha256(path)
    with path.open("rb") as handle:
        assert file_sha256(handle) == digest == file_sha256(path.read_bytes())
    assert file_sha256(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_summary_ci_above_the_bootstrap_size_is_mean_plus_minus_two_standard_errors(sqlite_url: str) -> None:
    from scoring.runs.record import BOOTSTRAP_MAX_ROWS

    df = replies(BOOTSTRAP_MAX_ROWS + 100)
    df["reply"] = [f"{'Great!' if i % 3 else 'Awful.'} Reply {i}." for i in range(len(df))]
    result = scored(df, scorers=("tone",))
    run = RunStore(sqlite_url).get(RunStore(sqlite_url).save(result, name="n", source_name="a", source_sha256=SHA).id)
    scores = result.table["tone-scorer"].dropna()
    half = 1.96 * scores.std(ddof=1) / math.sqrt(len(scores))
    assert run.summary.loc["tone-scorer", "ci_low"] == pytest.approx(scores.mean() - half)
    assert run.summary.loc["tone-scorer", "ci_high"] == pytest.approx(scores.mean() + half)


def _with_a_reference(tone: str) -> pd.DataFrame:
    return replies(tone=tone).assign(ref="Thank you so much, we are always delighted to help you!")


def test_a_run_scored_with_a_reference_column_keeps_warmth_and_one_saved_before_still_compares(
    sqlite_url: str,
) -> None:
    from scoring.runs import compare_runs

    store = RunStore(sqlite_url)
    columns = ColumnMap(output="reply", input="question")
    runs = [
        evaluate(_with_a_reference(tone), scorers=["tone"], columns=columns, reference="ref")
        for tone in ("Thanks so much, happy to help, it ships today!", "It shipped. Stop asking, this is annoying.")
    ]
    warm = store.save(runs[0], name="agent", source_name="v1.csv", source_sha256=SHA)
    cold = store.save(runs[1], name="agent", source_name="v2.csv", source_sha256=SHA)
    trend = store.trend("agent")
    warmth = trend[trend["scorer"] == "warmth"]["mean"].tolist()  # the reply's sentiment, not the reference's
    assert len(warmth) == 2 and warmth[0] > 0.5 > 0 > warmth[1]
    with store.engine.begin() as conn:  # as a run saved before warmth read responseSentiment: no warmth summary
        conn.execute(sa.delete(rundb.run_scorers).where(rundb.run_scorers.c.scorer == "warmth"))
    assert "warmth" not in store.get(warm.id).summary.index
    comparison = compare_runs(store.rows(warm.id), store.rows(cold.id), labels=("v1", "v2"))
    assert [v.scorer for v in comparison.verdicts] == ["tone-scorer", "warmth"]
    assert "warmth" in comparison.regressions
    assert comparison.verdicts[1].comparison.verdict.startswith("v2 is colder than v1: v2 minus v1 over 11 pairs")
