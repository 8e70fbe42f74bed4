"""Stores, secrets and names at the terminal (issue 28): a database URL's every secret masked, a corrupt store
exit 2 with a clear message, a run reference that only looks like a number, line breaks in file names."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from scoring.cli.main import main
from scoring.runs import RunStore

SECRETS = ("hunter2", "sslsecret", "tok3n")
#: A valid libpq URL carrying its password in the query; port 1 refuses at once, so nothing waits.
PG_URL = "postgresql://bob@127.0.0.1:1/db?password=hunter2&sslpassword=sslsecret&api_token=tok3n&connect_timeout=2"


def _main(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main([str(a) for a in argv], out=out, err=err), out.getvalue(), err.getvalue()


def test_every_secret_a_libpq_url_carries_is_masked() -> None:
    store = RunStore(PG_URL)
    shown = store.location + repr(store)
    assert not [s for s in SECRETS if s in shown], shown
    assert "password=***" in shown and "sslmode" not in shown and "connect_timeout=2" in shown


def test_runs_list_on_a_url_with_a_query_password_never_prints_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_DB", PG_URL)
    code, out, err = _main("runs", "list")
    assert code == 2 and "cannot use the run store postgresql+psycopg://bob@127.0.0.1:1/db?" in err, err
    assert not [s for s in SECRETS if s in out + err], out + err


def _truncated(path: Path) -> None:
    store = RunStore(f"sqlite:///{path}")  # a real store (closed: its write-ahead log is folded in), cut in half
    store.list_runs()
    store.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 16)


def _text(path: Path) -> None:
    path.write_text("output\nthis is a CSV, not a database\n")


@pytest.mark.parametrize("make", [_truncated, _garbage, _text], ids=["truncated", "garbage", "text"])
def test_an_unusable_sqlite_file_exits_2_with_a_clear_message(
    make: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "runs.sqlite"
    make(path)  # type: ignore[operator]
    monkeypatch.setenv("TONE_EXPLORER_DB", f"sqlite:///{path}")
    for argv in (["runs", "list"], ["runs", "show", "latest"]):
        code, out, err = _main(*argv)
        assert code == 2 and "Traceback" not in out + err, err
        assert err.startswith(f"error: the run store {path} is not a usable database ("), err
        assert "Restore it from a copy, or point TONE_EXPLORER_DB at another store." in err


def test_a_run_reference_that_only_looks_like_a_number_is_a_clear_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TONE_EXPLORER_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")
    for ref in ("²", "٣"):
        code, _, err = _main("runs", "show", ref)
        assert code == 2 and f"has no run with id or name {ref!r}: give a run id" in err, err


def test_line_breaks_in_file_names_are_escaped_wherever_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TONE_EXPLORER_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")
    fake = "a.csv\n    9  fake  2026-01-01 00:00  evil.csv       1  yes"
    path = tmp_path / fake
    pd.DataFrame({"output": ["Thanks, that helped.", "Fine."]}).to_csv(path, index=False)
    code, out, err = _main("evaluate", path, "--scorers", "tone", "--no-progress", "--save", "--name", "bot")
    assert code == 0, err
    code, out, _ = _main("runs", "list")
    assert code == 0 and len(out.splitlines()) == 3, out  # the store, the head, one row: no fake row
    assert "a.csv\\n    9" in out
    code, out, _ = _main("runs", "show", "bot")
    assert "  source      a.csv\\n    9  fake" in out and "\n    9  fake" not in out
    bad = tmp_path / "x.csv\rerror: all fine"
    bad.write_bytes(b"")
    code, _, err = _main("evaluate", bad, "--no-progress")
    assert code == 2 and err.count("\n") == 1 and "\r" not in err and "x.csv\\rerror: all fine" in err, err


def test_save_to_an_unusable_store_stops_before_scoring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "runs.sqlite"
    _garbage(path)
    monkeypatch.setenv("TONE_EXPLORER_DB", f"sqlite:///{path}")
    replies = tmp_path / "replies.csv"
    pd.DataFrame({"output": ["Thanks, that helped.", "Fine."]}).to_csv(replies, index=False)
    code, out, err = _main("evaluate", replies, "--scorers", "tone", "--no-progress", "--save")
    assert code == 2 and "is not a usable database" in err and "tone-scorer" not in out, (out, err)
