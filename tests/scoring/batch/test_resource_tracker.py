"""The resource tracker killed during a run (issue 28): the run finishes and prints no traceback.

Before, the relaunched tracker did not know the pool's semaphores and printed a ``KeyError`` traceback for
each one the pool released, after Python's "process died unexpectedly" warning. The script runs the pool the
CLI uses in a subprocess, kills the tracker between two jobs (waiting until it is gone), then finishes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

_SCRIPT = """
import os, signal, threading, time
from multiprocessing import resource_tracker
from scoring.batch.runner import worker_pool

threading.Thread(target=time.sleep, args=(60,), daemon=True).start()  # a threaded process, as the CLI's is:
pool = worker_pool(2)  # the fork server, whose semaphores the tracker holds
assert pool._mp_context.get_start_method() == "forkserver"
assert pool.submit(abs, -1).result() == 1
pid = resource_tracker._resource_tracker._pid
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)  # gone for sure (the tracker is this process's child)
assert [f.result() for f in [pool.submit(abs, -i) for i in range(4)]] == [0, 1, 2, 3]
pool.shutdown(wait=True)
print("finished", resource_tracker._resource_tracker._pid != pid)
"""


def test_a_killed_resource_tracker_prints_no_traceback() -> None:
    run = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["finished", "True"]  # a new tracker took over
    assert "Traceback" not in run.stderr and "KeyError" not in run.stderr and "died unexpectedly" not in run.stderr, (
        run.stderr
    )
