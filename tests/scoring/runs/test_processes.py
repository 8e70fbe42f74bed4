"""Real processes against one store: saves at the same time never mix or lose runs; a killed save leaves nothing."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from scoring.runs import RunStore
from scoring.runs import db as rundb
from tests.scoring.runs.conftest import scored

SAVER = str(Path(__file__).with_name("saver.py"))
ROOT = Path(__file__).resolve().parents[3]


@contextmanager
def saver(url: str, name: str, count: int, rows: int, *, pause: bool = False) -> Iterator[subprocess.Popen[str]]:
    """Start a saver process and wait until it is ready to save."""
    args = [sys.executable, SAVER, url, name, str(count), str(rows), *(["pause"] if pause else [])]
    proc = subprocess.Popen(args, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        assert _line(proc) == "ready"
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            assert stream is not None
            stream.close()


def _line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line:
        assert proc.stderr is not None
        raise AssertionError(f"saver exited ({proc.wait(timeout=60)}): {proc.stderr.read()[-3000:]}")
    return line


def _send(proc: subprocess.Popen[str], text: str = "go") -> None:
    assert proc.stdin is not None
    proc.stdin.write(text + "\n")
    proc.stdin.flush()


def _finish(proc: subprocess.Popen[str], count: int) -> list[int]:
    ids = [int(_line(proc).removeprefix("saved ")) for _ in range(count)]
    assert proc.wait(timeout=300) == 0
    return ids


def _check_run(store: RunStore, run_id: int, name: str, rows: int) -> None:
    run = store.get(run_id)
    assert (run.info.name, run.info.row_count, len(run.rows)) == (name, rows, rows)
    assert run.rows["row"].tolist() == list(range(1, rows + 1))
    assert run.rows["output"].dropna().str.startswith(f"{name} says thanks!").all()
    assert list(run.summary.index) == ["tone-scorer", "warmth"]  # warmth: tone avgSentiment
    assert run.summary.loc["tone-scorer", "count"] == run.summary.loc["warmth", "count"] == rows - 1
    assert run.problems["row"].tolist() == [4]


def test_two_processes_saving_at_once_keep_every_run_whole(store_url: str) -> None:
    with saver(store_url, "alpha", 3, 400) as a, saver(store_url, "beta", 3, 400) as b:
        _send(a)
        _send(b)
        ids = {"alpha": _finish(a, 3), "beta": _finish(b, 3)}
    store = RunStore(store_url)
    assert sorted(i.id for i in store.list_runs()) == sorted(ids["alpha"] + ids["beta"])
    for name, run_ids in ids.items():
        for run_id in run_ids:
            _check_run(store, run_id, name, 400)


def test_a_save_inside_another_open_save_waits_or_runs_beside_it(store_url: str) -> None:
    """Process A stops inside its save's transaction; B saves meanwhile (PostgreSQL) or waits for A (SQLite)."""
    with saver(store_url, "held", 1, 300, pause=True) as a, saver(store_url, "beside", 2, 300) as b:
        _send(a)
        assert _line(a) == "paused"  # A's transaction is open, its run row inserted
        _send(b)
        if store_url.startswith("postgresql"):
            beside = _finish(b, 2)  # B commits while A's transaction is still open
            _send(a)
        else:
            _send(a)  # SQLite: B waits for A's write lock; let A finish
            beside = _finish(b, 2)
        held = _finish(a, 1)
    store = RunStore(store_url)
    assert sorted(i.id for i in store.list_runs()) == sorted(held + beside)
    _check_run(store, held[0], "held", 300)
    for run_id in beside:
        _check_run(store, run_id, "beside", 300)


def test_a_process_killed_mid_save_leaves_no_half_run(store_url: str) -> None:
    store = RunStore(store_url)
    kept = store.save(scored(), name="kept", source_name="a.csv", source_sha256="0" * 64)
    with saver(store_url, "killed", 1, 3000, pause=True) as proc:
        _send(proc)
        assert _line(proc) == "paused"  # inside the transaction, rows about to be written
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    assert [i.name for i in store.list_runs()] == ["kept"]
    with store.engine.connect() as conn:
        for table in (rundb.run_rows, rundb.run_scorers, rundb.run_problems):
            assert set(conn.execute(sa.select(table.c.run_id)).scalars()) == {kept.id}, table.name
    after = store.save(scored(), name="after", source_name="b.csv", source_sha256="0" * 64)
    assert [i.name for i in store.list_runs()] == ["after", "kept"] and after.id > kept.id
