"""Run the dashboard (``streamlit run app.py``) on a free localhost port: for the browser tests and bench.load."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Server:
    """A running dashboard: its URL and the server's process id."""

    url: str
    pid: int


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def health_latency(url: str) -> float:
    """Seconds the server takes to answer its health check (raises OSError while it is not up)."""
    start = time.perf_counter()
    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=30) as response:
        response.read()
    return time.perf_counter() - start


@contextmanager
def streamlit_server(timeout: float = 90, root: Path = ROOT, python: str = sys.executable) -> Iterator[Server]:
    """Start the dashboard in ``root`` with no OpenAI key in its environment; yield it once healthy; stop it on exit.

    ``python`` is the interpreter (and so the installed packages) that runs the server: this one unless a benchmark
    compares environments (``bench.first_paint --baseline-python``).

    Its output goes to a temporary file (never a pipe nobody reads), quoted in the error if it fails to start.
    """
    port = free_port()
    cmd = [python, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
           "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none"]  # fmt: skip
    env = {**os.environ, "OPENAI_API_KEY": "", "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(root)}
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    health_latency(url)
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        tail = log.read().decode(errors="replace")[-2000:]
                        raise RuntimeError(f"streamlit did not start (exit code {proc.poll()}):\n{tail}") from None
                    time.sleep(0.25)
            yield Server(url, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
