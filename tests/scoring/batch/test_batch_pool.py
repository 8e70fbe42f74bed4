"""The worker pool of a batch run stops cleanly whenever its caller stops: done, an error, Ctrl-C, an early close."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import ClassVar

import pandas as pd
import pytest

from scoring.batch import runner as batch
from scoring.batch.runner import iter_scored, make_spec
from scoring.cli.main import _sigterm_unwinds
from scoring.io.columns import ColumnMap
from tests.scoring.processes import cmdline, descendants, wait_until_gone


class _Recorded(ProcessPoolExecutor):
    """A pool that remembers its worker processes, so a test can ask whether they are still alive."""

    made: ClassVar[list[_Recorded]] = []

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        _Recorded.made.append(self)

    def workers(self) -> list[object]:
        return list((self._processes or {}).values())  # type: ignore[attr-defined]


def _chunks(count: int, rows: int) -> list[pd.DataFrame]:
    text = "Thanks for asking! Sadly your parcel is late. We are sorry about that."
    return [pd.DataFrame({"input": ["Where is it?"] * rows, "output": [f"{text} {i}" for i in range(rows)]})] * count


def test_closing_a_pooled_run_early_ends_every_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch, "ProcessPoolExecutor", _Recorded)
    _Recorded.made.clear()
    chunks = _chunks(40, 500)
    results = iter_scored(chunks, make_spec(chunks[0].columns, scorers=["tone"], engine="afinn"), workers=2)
    first = next(results)
    assert len(first.table) == 500
    (pool,) = _Recorded.made
    workers = pool.workers()
    assert workers, "the pool started no workers"
    results.close()  # what the CLI does when Ctrl-C or an error stops it mid-run
    assert not any(w.is_alive() for w in workers)  # type: ignore[attr-defined]


def test_workers_ignore_ctrl_c_and_leave_it_to_the_parent() -> None:
    with ProcessPoolExecutor(max_workers=1, initializer=batch._worker_signals) as pool:
        pid = pool.submit(os.getpid).result()
        os.kill(pid, signal.SIGINT)
        assert pool.submit(os.getpid).result() == pid  # the same worker, alive and still working


def _report_then_wait(path: str) -> None:
    """In a worker: write this process's id to ``path``, then wait (for a signal) far longer than any test."""
    Path(path + ".tmp").write_text(str(os.getpid()))
    os.replace(path + ".tmp", path)
    time.sleep(600)


def test_a_worker_busy_with_a_chunk_dies_on_sigterm_under_the_clis_handler(tmp_path: Path) -> None:
    """The pool's terminate() of a broken pool (a worker killed by the kernel) sends SIGTERM to the others.

    The CLI turns SIGTERM into an exception and a forked worker inherits that handler: a worker busy with a
    chunk sent the exception back as the chunk's result and took the next one, then blocked writing its
    result to a queue nobody read while the pool waited for it to end (a CLI run hung in CI).
    """
    with _sigterm_unwinds():
        pool = batch.worker_pool(1)
        try:
            started = tmp_path / "pid"
            future = pool.submit(_report_then_wait, str(started))
            deadline = time.monotonic() + 120
            while not started.exists():
                assert time.monotonic() < deadline and not future.done(), "the worker never started the job"
                time.sleep(0.01)
            os.kill(int(started.read_text()), signal.SIGTERM)
            with pytest.raises(BrokenProcessPool):
                future.result(timeout=120)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


_ORPHAN = """
import sys, threading, time
import pandas as pd
from scoring.batch.runner import iter_scored, make_spec
if sys.argv[1] == "forkserver":  # a thread makes the pool start its workers from a fork server
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
chunk = pd.DataFrame({"output": [f"Thanks, that helps a lot {i}!" for i in range(200)]})
results = iter_scored([chunk] * 1000, make_spec(chunk.columns, scorers=["tone"], engine="afinn"), workers=2)
next(results)
print("scoring", flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_workers_and_the_fork_server_end_when_their_parent_is_killed(method: str) -> None:
    """SIGKILL (or the out-of-memory killer) runs no cleanup: no worker, fork server or tracker stays behind."""
    root = Path(__file__).resolve().parents[3]
    proc = subprocess.Popen([sys.executable, "-c", _ORPHAN, method], cwd=root, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(root)})  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline() == "scoring\n"
    below = descendants(proc.pid)
    assert (" -c from multiprocessing.forkserver" in " ".join(map(cmdline, below))) == (method == "forkserver")
    proc.kill()
    proc.wait(timeout=60)
    assert wait_until_gone(below) == set(), [cmdline(p)[:80] for p in below]


def test_a_worker_made_after_its_parent_died_exits_at_once() -> None:
    """The race behind a fork server left running: the parent is killed while a worker is being made.

    The worker's watch on its parent cannot open (the parent is gone); before, it then waited for work
    forever, keeping the fork server and the resource tracker alive.
    """
    root = Path(__file__).resolve().parents[3]
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    code = f"from scoring.batch import runner; runner._die_with({gone.pid}); import time; time.sleep(600)"
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 1


def test_workers_send_back_only_new_columns_and_the_table_matches_one_process() -> None:
    """Input columns stay in the parent and are put back in place, whatever they hold."""
    rows = 1200
    df = pd.DataFrame(
        {
            "input": ["Where is my order?"] * rows,
            "output": [f"It ships today. Sorry for the wait, item {i}!" for i in range(rows)],
            "notes": [None, "", "x" * 300] * (rows // 3),
        }
    )
    columns = ColumnMap(output="output", input="input")
    one = batch.evaluate(df, scorers=["tone", "similarity"], columns=columns)
    two = batch.evaluate(df, scorers=["tone", "similarity"], columns=columns, workers=2)
    pd.testing.assert_frame_equal(one.table, two.table)
    assert list(two.table.columns[:3]) == ["input", "output", "notes"]
