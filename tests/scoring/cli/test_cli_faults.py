"""The CLI interrupted for real: a subprocess scoring a large file gets Ctrl-C (or is killed) mid-run.

Whatever stops it, no output file is ever presented as complete: the results appear under their final
name only by an atomic rename once every row is written, an earlier complete output stays untouched,
Ctrl-C exits non-zero (130) and leaves no temp file behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ROWS = 120_000


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CSV large enough that scoring it takes many seconds (distinct texts: no dedup shortcut)."""
    path = tmp_path_factory.mktemp("big") / "replies.csv"
    lines = ["input,output"]
    lines += [f"Question {i}?,Thanks for asking {i}! Sadly item {i * 7} is late. We are sorry." for i in range(ROWS)]
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
