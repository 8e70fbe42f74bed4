"""The store's schema version: written on creation, upgraded when older, refused when newer or unknown."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from scoring.runs import SCHEMA_VERSION, RunStore, RunStoreError
from scoring.runs import db as rundb
from tests.scoring.runs.conftest import scored

SHA = "0" * 64


def _version(url: str) -> str | None:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        value = conn.execute(sa.text("SELECT value FROM tone_meta WHERE key = 'schema_version'")).scalar()
    engine.dispose()
    return value


def _set_version(url: str, version: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE tone_meta SET value = :v WHERE key = 'schema_version'"), {"v": version})
    engine.dispose()


def test_a_new_store_records_the_schema_version(store_url: str) -> None:
    RunStore(store_url).list_runs()
    assert _version(store_url) == str(SCHEMA_VERSION)
    engine = sa.create_engine(store_url)
    tables = set(sa.inspect(engine).get_table_names())
    engine.dispose()
    assert {t.name for t in rundb.metadata.sorted_tables} <= tables


def test_a_newer_store_is_refused_with_what_to_do(store_url: str) -> None:
    RunStore(store_url).save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)
    _set_version(store_url, str(SCHEMA_VERSION + 1))
    with pytest.raises(RunStoreError, match=f"schema version {SCHEMA_VERSION + 1}, written by a newer tone explorer.*"
                       f"reads version {SCHEMA_VERSION}. Upgrade tone explorer"):  # fmt: skip
        RunStore(store_url).list_runs()
    assert _version(store_url) == str(SCHEMA_VERSION + 1)  # left as it was


def test_an_older_store_without_an_upgrade_is_refused(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    RunStore(store_url).list_runs()
    monkeypatch.setattr(rundb, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(RunStoreError, match=f"cannot upgrade to {SCHEMA_VERSION + 1} \\(no upgrade from version "
                       f"{SCHEMA_VERSION}\\)"):  # fmt: skip
        RunStore(store_url).list_runs()
    assert _version(store_url) == str(SCHEMA_VERSION)


def test_an_older_store_is_upgraded_in_place_keeping_its_runs(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    old = RunStore(store_url)
    info = old.save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)
    old.close()
    steps: list[int] = []

    def add_a_note_column(conn: Connection) -> None:
        steps.append(SCHEMA_VERSION)
        conn.execute(sa.text("ALTER TABLE tone_runs ADD COLUMN note TEXT"))
        conn.execute(sa.text("UPDATE tone_runs SET note = 'upgraded'"))

    monkeypatch.setattr(rundb, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(rundb.MIGRATIONS, SCHEMA_VERSION, add_a_note_column)
    new = RunStore(store_url)
    assert new.resolve(info.id) == info
    assert _version(store_url) == str(SCHEMA_VERSION + 1)
    RunStore(store_url).list_runs()
    assert steps == [SCHEMA_VERSION]  # upgraded once
    with new.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT note FROM tone_runs")).scalar() == "upgraded"


def test_a_failing_upgrade_changes_nothing(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    RunStore(store_url).save(scored(), name="kept", source_name="a.csv", source_sha256=SHA)

    def half_then_fail(conn: Connection) -> None:
        conn.execute(sa.text("DELETE FROM tone_run_rows"))
        raise RuntimeError("upgrade step failed")

    monkeypatch.setattr(rundb, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(rundb.MIGRATIONS, SCHEMA_VERSION, half_then_fail)
    with pytest.raises(RuntimeError, match="upgrade step failed"):
        RunStore(store_url).list_runs()
    monkeypatch.setattr(rundb, "SCHEMA_VERSION", SCHEMA_VERSION)
    assert _version(store_url) == str(SCHEMA_VERSION)
    assert len(RunStore(store_url).rows("kept")) == 12


def test_tables_of_ours_without_a_version_are_refused(store_url: str) -> None:
    engine = sa.create_engine(store_url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE tone_runs (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    with pytest.raises(RunStoreError, match="has run-store tables \\['tone_runs'\\] but no schema version"):
        RunStore(store_url).list_runs()


def test_other_tables_in_a_shared_database_are_left_alone(store_url: str) -> None:
    engine = sa.create_engine(store_url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE runs (id INTEGER PRIMARY KEY, what TEXT)"))
        conn.execute(sa.text("INSERT INTO runs VALUES (1, 'theirs')"))
    RunStore(store_url).save(scored(), name="ours", source_name="a.csv", source_sha256=SHA)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT what FROM runs")).scalars().all() == ["theirs"]
    engine.dispose()
