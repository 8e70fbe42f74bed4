"""Labels in the run store: read loosely, kept per row, measure and rater, replaced, deleted with the run, exported;
a version-1 store gains the tables on first use (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa

from scoring.errors import InputError
from scoring.runs import RunStore
from scoring.runs import db as rundb
from scoring.runs.labels import (
    add_labels,
    delete_labels,
    label_kind,
    labelled_rows,
    labels_frame,
    labels_from_file,
    parse_label,
    read_labels,
)
from scoring.runs.review import with_run_labels
from tests.scoring.runs.conftest import scored

SHA = "0" * 64


@pytest.mark.parametrize(
    ("cell", "measure", "expected"),
    [
        ("yes", "tone-scorer", 1.0), ("Y", "tone-scorer", 1.0), (" No ", "tone-scorer", 0.0), ("TRUE", "tone", 1.0),
        ("false", "tone-scorer", 0.0), (1, "tone-scorer", 1.0), (0.0, "tone-scorer", 0.0), (True, "tone", 1.0),
        ("good", "tone-scorer", 1.0), ("bad", "tone-scorer", 0.0),
        ("good", "toxicity-scorer", 0.0), ("bad", "toxicity-scorer", 1.0),  # good = not toxic; yes = toxic
        ("yes", "toxicity-scorer", 1.0), ("4", "tone-scorer", 4.0), (3.5, "tone-scorer", 3.5),
        ("", "tone-scorer", None), ("  ", "tone-scorer", None), (None, "tone-scorer", None),
        (float("nan"), "tone-scorer", None),
    ],
)  # fmt: skip
def test_label_cells_are_read_loosely(cell: object, measure: str, expected: float | None) -> None:
    assert parse_label(cell, measure=measure) == expected


@pytest.mark.parametrize("cell", ["maybe", "5 stars", float("inf"), "0_5", "nan"])
def test_unreadable_cells_say_what_is_accepted(cell: object) -> None:
    with pytest.raises(ValueError, match="is not a label: give yes/no, 1/0, good/bad, true/false or a number"):
        parse_label(cell, measure="tone-scorer")


def test_a_column_reports_its_bad_cells_by_position() -> None:
    found, bad = read_labels(["yes", "", "meh", 0, "5"], measure="tone-scorer")
    assert found == {0: 1.0, 3: 0.0, 4: 5.0}
    assert list(bad) == [2] and "'meh'" in bad[2]
    assert label_kind(list(found.values())) == "rating" and label_kind([1.0, 0.0]) == "yes/no"


def test_labels_are_kept_replaced_and_deleted_per_rater(store: RunStore) -> None:
    info = store.save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)
    saved = add_labels(store, "kept", "tone", {1: 1.0, 2: 0.0, 3: 1.0}, rater="ana")
    assert (saved.added, saved.replaced, saved.measure) == (3, 0, "tone-scorer")
    add_labels(store, info.id, "tone-scorer", {1: 0.0}, rater="bo")
    again = add_labels(store, "kept", "tone", {2: 1.0, 4: 0.0, 3: None}, rater="ana")  # 3: cleared
    assert (again.added, again.replaced) == (1, 1)
    frame = labels_frame(store, "kept")
    got = {(r.rater, r.row): r.value for r in frame.itertuples()}
    assert got == {("ana", 1): 1.0, ("ana", 2): 1.0, ("ana", 4): 0.0, ("bo", 1): 0.0}
    assert set(frame["source"]) == {"labels file"} and set(frame["measure"]) == {"tone-scorer"}
    assert delete_labels(store, "kept", rater="bo") == 1
    assert len(labels_frame(store, "kept")) == 3
    store.delete("kept")
    with store.transaction(write=False) as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(rundb.labels)).scalar_one() == 0


def test_labels_outside_the_run_or_its_measures_are_refused(store: RunStore) -> None:
    store.save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)
    with pytest.raises(ValueError, match=r"rows \[13\] are not rows of run 1 \(kept\) \(rows 1 to 12\)"):
        add_labels(store, "kept", "tone", {13: 1.0})
    with pytest.raises(ValueError, match="a label's measure must be a scorer among"):
        add_labels(store, "kept", "politeness", {1: 1.0})
    with pytest.raises(ValueError, match="rater must be a name"):
        add_labels(store, "kept", "tone", {1: 1.0}, rater="a\nb")
    assert labels_frame(store, "kept").empty


def test_a_labels_file_is_read_by_row_with_raters_and_bad_cells(store: RunStore, tmp_path: Path) -> None:
    info = store.save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)
    path = tmp_path / "labels.csv"
    pd.DataFrame({"row": [1, 2, 3, 99, 5, 1], "label": ["yes", "no", "huh", "yes", "good", "no"],
                  "rater": ["ana", "ana", "ana", "ana", "", "bo"]}).to_csv(path, index=False)  # fmt: skip
    measure, plain, by_rater, problems = labels_from_file(path, info, rater=None)
    assert measure == "tone-scorer" and plain == {5: 1.0} and by_rater == {"ana": {1: 1.0, 2: 0.0}, "bo": {1: 0.0}}
    assert problems[0].startswith("row 3 (line 4): 'huh' is not a label")
    assert problems[1] == "line 5: row 99 is not a row of run 1 (kept) (1 to 12)"
    with pytest.raises(ValueError, match="no 'grade' column with the labels"):
        labels_from_file(path, info, column="grade")


def test_an_export_has_a_label_column_per_measure_and_rater(store: RunStore) -> None:
    store.save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)
    add_labels(store, "kept", "tone", {1: 1.0, 2: 0.0})
    add_labels(store, "kept", "similarity", {2: 4.0}, rater="bo")
    out = labelled_rows(store.rows("kept"), labels_frame(store, "kept"))
    assert out["label.tone-scorer"].iloc[:2].tolist() == [1.0, 0.0] and out["label.tone-scorer"].isna().sum() == 10
    assert out["label.content-similarity-scorer@bo"].tolist()[1] == 4.0
    assert len(out) == 12


def test_a_scored_table_gains_its_saved_runs_label_columns(store: RunStore) -> None:
    result = scored()
    store.save(result, name="kept", source_name="a.csv", source_sha256=SHA)
    assert with_run_labels(store, "kept", result.table) is result.table  # no labels yet: the table as it is
    add_labels(store, "kept", "tone", {1: 1.0, 3: 0.0}, rater="ana")
    out = with_run_labels(store, "kept", result.table)
    assert list(out.columns) == [*result.table.columns, "label.tone-scorer@ana"]
    assert out.index.equals(result.table.index) and out["label.tone-scorer@ana"].iloc[:3].tolist()[::2] == [1.0, 0.0]
    with pytest.raises(InputError, match="table: 11 rows, but run 1 \\(kept\\) has 12"):
        with_run_labels(store, "kept", result.table.iloc[1:])


def test_a_version_1_store_gains_the_label_tables(store_url: str) -> None:
    engine = sa.create_engine(store_url)
    old = [t for t in rundb.metadata.sorted_tables if t.name not in ("tone_labels", "tone_taught")]
    with engine.begin() as conn:
        rundb.metadata.create_all(conn, tables=old)
        conn.execute(rundb.tone_meta.insert(), [{"key": "schema_version", "value": "1"}])
    store = RunStore(store_url)
    store.save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)
    add_labels(store, "kept", "tone", {1: 1.0})
    assert len(labels_frame(store, "kept")) == 1
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT value FROM tone_meta WHERE key = 'schema_version'")).scalar() == "2"
        assert {"tone_labels", "tone_taught"} <= set(sa.inspect(conn).get_table_names())
    store.close()
    engine.dispose()
