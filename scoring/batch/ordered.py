"""Run jobs on an executor with a bound on how many are in flight, yielding results in order."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

__all__ = ["in_order"]

T = TypeVar("T")


class _Future(Protocol):
    def result(self) -> Any: ...

    def cancel(self) -> Any: ...


def in_order(submit: Callable[[T], _Future], jobs: Iterable[T], in_flight: int) -> Iterator[Any]:
    """Submit ``jobs`` with at most ``in_flight`` pending (memory stays flat); yield results in job order.

    Works with ``concurrent.futures`` and Dask futures alike; what is still pending when the caller
    stops (an error, Ctrl-C, a closed generator) is cancelled.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as pool:
    ...     list(in_order(lambda n: pool.submit(pow, n, 2), range(5), in_flight=2))
    [0, 1, 4, 9, 16]
    """
    pending: deque[_Future] = deque()
    try:
        for job in jobs:
            pending.append(submit(job))
            if len(pending) >= in_flight:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
