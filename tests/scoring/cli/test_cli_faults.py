"""The CLI interrupted for real: a subprocess scoring a large file gets Ctrl-C (or is killed) mid-run.

Whatever stops it, no output file is ever presented as complete: the results appear under their final
name only by an atomic rename once every row is written, an earlier complete output stays untouched,
Ctrl-C exits non-zero (130) and leaves no temp file behind; SIGTERM exits 143 and leaves no temp file,
worker or fork server; a worker killed by the kernel ends the run with one line and exit 3.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.scoring.processes import cmdline, descendants, wait_until_gone

ROOT = Path(__file__).resolve().parents[3]
ROWS = 300_000


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CSV large enough that scoring it takes many seconds (distinct texts: no dedup shortcut).

    Every test stops the run early, so its size costs only the fixture: the run must outlast the moments between
    its first written rows and the signal on a loaded machine. With two workers, 120,000 shorter rows left about
    5 s between the two once the scorers got faster, and a loaded CI run once finished first; these leave 14 s.
    """
    path = tmp_path_factory.mktemp("big") / "replies.csv"
    lines = ["input,output"]
    lines += [
        f"Question {i}?,Thanks for asking {i}! Sadly item {i * 7} is late. We are sorry about order {i * 3}. "
        f"Your refund {i * 11} is on its way. Have a good day {i}!"
        for i in range(ROWS)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _default_ctrl_c() -> None:
    """In the child before exec: Ctrl-C as in a terminal, even when pytest was started with SIGINT ignored.

    An ignored signal stays ignored across exec (nohup, some CI runners, a shell's background job), and
    Python then installs no KeyboardInterrupt handler: the CLI would never see the Ctrl-C under test.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(big: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "scoring", "evaluate", str(big), "--scorers", "tone,similarity"]
    return subprocess.Popen(
        [*args, "--out", str(out), "--no-progress", "--chunksize", "2000", *extra],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True, preexec_fn=_default_ctrl_c,
    )  # fmt: skip


def _wait_for_partial_output(proc: subprocess.Popen[str], folder: Path, out: Path) -> Path:
    """Wait until the CLI is writing results (its temp file exists and has data); return the temp file."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        parts = [p for p in folder.glob(f".{out.name}.*.part") if p.stat().st_size > 0]
        if parts:
            return parts[0]
        assert proc.poll() is None, f"the CLI ended before it was interrupted: {proc.communicate()}"
        time.sleep(0.05)
    raise AssertionError("the CLI never started writing")


def _leftovers(folder: Path, out: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{out.name}."))


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_ctrl_c_leaves_no_output_presented_as_complete(big_csv: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"results.{fmt}"
    proc = _start(big_csv, out)
    _wait_for_partial_output(proc, tmp_path, out)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal signals the whole foreground group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-500:]
    assert "interrupted: no output file was written" in err
    assert "Traceback" not in err
    assert not out.exists()
    assert _leftovers(tmp_path, out) == []


def test_ctrl_c_with_worker_processes_keeps_the_previous_complete_output(big_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.csv"
    out.write_text("row,score\n1,0.5\n")  # a complete earlier run
    proc = _start(big_csv, out, "--workers", "2")
    _wait_for_partial_output(proc, tmp_path, out)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-500:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err  # workers leave Ctrl-C to the parent
    assert out.read_text() == "row,score\n1,0.5\n"
    assert _leftovers(tmp_path, out) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_run_never_shows_a_partial_file_under_the_final_name(
    big_csv: Path, tmp_path: Path, sig: signal.Signals
) -> None:
    """No cleanup runs on SIGKILL (nor, by default, on SIGTERM): a hidden .part file may stay, never results.csv."""
    out = tmp_path / "results.csv"
    proc = _start(big_csv, out)
    part = _wait_for_partial_output(proc, tmp_path, out)
    os.killpg(proc.pid, sig)
    proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert not out.exists()
    assert all(name.endswith(".part") for name in _leftovers(tmp_path, out)), part


def _workers(pid: int) -> set[int]:
    """The pool's worker processes below the CLI (not the fork server, not the resource tracker)."""
    helpers = ("multiprocessing.forkserver import main", "multiprocessing.resource_tracker import main")
    below = descendants(pid)
    servers = {p for p in below if helpers[0] in cmdline(p)}
    return {p for p in below if not any(h in cmdline(p) for h in helpers) or (servers and _parent(p) in servers)}


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_sigterm_stops_workers_fork_server_and_temp_file(big_csv: Path, tmp_path: Path) -> None:
    """SIGTERM to the CLI alone (as `kill PID`, systemd or a CI runner send it): exit 143, nothing left behind."""
    out = tmp_path / "results.csv"
    proc = _start(big_csv, out, "--workers", "2", "--force-workers")
    _wait_for_partial_output(proc, tmp_path, out)
    below = descendants(proc.pid)
    assert _workers(proc.pid), [cmdline(p)[:80] for p in below]
    proc.send_signal(signal.SIGTERM)  # the CLI only, not its process group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err[-1000:]
    assert "terminated: no output file was written." in err and "Traceback" not in err
    assert not out.exists() and _leftovers(tmp_path, out) == []
    assert wait_until_gone(below) == set(), [cmdline(p)[:80] for p in below]


def test_a_worker_killed_by_the_kernel_exits_3_with_one_line(big_csv: Path, tmp_path: Path) -> None:
    """The out-of-memory killer sends SIGKILL to a worker: one line naming what happened, exit 3, no traceback."""
    out = tmp_path / "results.csv"
    proc = _start(big_csv, out, "--workers", "2", "--force-workers")
    _wait_for_partial_output(proc, tmp_path, out)
    below = descendants(proc.pid)
    victim = min(_workers(proc.pid))
    os.kill(victim, signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err[-1000:]
    last = err.splitlines()[-1]  # after the notes saying which columns are used
    assert last.startswith("error: a worker process died (killed by the system, perhaps for lack of memory)"), err
    assert err.count("error:") == 1 and "Traceback" not in err and "BrokenProcessPool" not in err
    assert not out.exists() and _leftovers(tmp_path, out) == []
    assert wait_until_gone(below) == set(), [cmdline(p)[:80] for p in below]
