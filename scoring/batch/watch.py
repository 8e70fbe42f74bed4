"""Notice a pool worker killed while it sends a result, which the process pool itself would wait on forever.

A ``ProcessPoolExecutor`` notices at once when a worker dies, unless the worker dies mid-way through writing a
result to the pool's pipe (the kernel's out-of-memory killer, a ``kill -9``): the pool's reader has begun the
message and waits for the rest, the other workers wait for the pipe's lock the dead one held, and no future
ever fails. :func:`watched_submit` gives futures whose ``result`` also checks the workers: a worker dead for
:data:`STUCK_AFTER` seconds while its result has not come stops the pool (the other workers are killed and the
pipe's last writer closed, so the reader ends) and raises ``BrokenProcessPool``, as a death the pool noticed
would.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

__all__ = ["STUCK_AFTER", "watched_submit"]

#: Seconds a dead worker may go unnoticed by the pool before the run stops itself (the pool's own notice is
#: immediate; only a worker killed mid-send leaves it waiting).
STUCK_AFTER = 2.0
_POLL = 0.25  # how often a waiting result checks the workers (s)


class _Watched:
    """A pool future whose :meth:`result` raises ``BrokenProcessPool`` when the pool is stuck on a dead worker."""

    __slots__ = ("future", "pool")

    def __init__(self, future: Future[Any], pool: ProcessPoolExecutor) -> None:
        self.future = future
        self.pool = pool

    def result(self) -> Any:
        dead_since: float | None = None
        while True:
            try:
                return self.future.result(timeout=_POLL)
            except TimeoutError:
                if not _a_worker_died(self.pool):
                    dead_since = None
                    continue
                now = time.monotonic()
                dead_since = now if dead_since is None else dead_since
                if now - dead_since >= STUCK_AFTER and not self.future.done():
                    _unstick(self.pool)
                    raise BrokenProcessPool(
                        "A process in the process pool was terminated abruptly while it sent a result."
                    ) from None

    def cancel(self) -> bool:
        return self.future.cancel()


def watched_submit(pool: ProcessPoolExecutor) -> Callable[..., _Watched]:
    """``pool.submit``, returning futures that notice a worker killed mid-send (see the module's docstring)."""

    def submit(fn: Callable[..., Any], /, *args: Any) -> _Watched:
        return _Watched(pool.submit(fn, *args), pool)

    return submit


def _workers(pool: ProcessPoolExecutor) -> list[Any]:
    return list((getattr(pool, "_processes", None) or {}).values())


def _a_worker_died(pool: ProcessPoolExecutor) -> bool:
    return any(p.exitcode is not None for p in _workers(pool))


def _unstick(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's other workers and close the result pipe's last writer: its reader then ends, and the pool
    marks itself broken and can be shut down."""
    workers = _workers(pool)
    for p in workers:
        if p.exitcode is None:
            p.kill()
    for p in workers:
        p.join()
    queue = getattr(pool, "_result_queue", None)
    writer = getattr(queue, "_writer", None)
    if writer is not None:
        writer.close()
