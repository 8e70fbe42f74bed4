"""A pool worker killed while it sends its result stops the run with BrokenProcessPool instead of hanging it."""

from __future__ import annotations

import os
import signal
from concurrent.futures.process import BrokenProcessPool

import pytest

from scoring.batch.runner import worker_pool
from scoring.batch.watch import watched_submit


def _die_halfway_through_sending(size: int) -> bytes:
    """In the worker: return ``size`` bytes, but die (SIGKILL) after writing half of the result to the pipe."""
    import multiprocessing.connection as connection

    send = connection.Connection._send  # type: ignore[attr-defined]

    def half(self: connection.Connection, buf: bytes, write: object = os.write) -> None:
        send(self, buf[: len(buf) // 2])
        os.kill(os.getpid(), signal.SIGKILL)

    connection.Connection._send = half  # type: ignore[attr-defined]
    return b"x" * size


def _square(n: int) -> int:
    return n * n


def test_a_worker_killed_mid_send_raises_broken_pool_and_the_pool_shuts_down() -> None:
    pool = worker_pool(2)
    try:
        future = watched_submit(pool)(_die_halfway_through_sending, 1_000_000)
        with pytest.raises(BrokenProcessPool, match="while it sent a result"):
            future.result()
        assert all(p.exitcode is not None for p in pool._processes.values())  # type: ignore[attr-defined]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # returns: the pool's reader is no longer stuck


def test_watched_futures_give_results_as_the_pool_does() -> None:
    pool = worker_pool(2)
    try:
        submit = watched_submit(pool)
        assert [submit(_square, n).result() for n in range(5)] == [0, 1, 4, 9, 16]
    finally:
        pool.shutdown(wait=True)
