"""The pages' score caches, bounded by bytes rather than by entries.

``st.cache_data(max_entries=2_000)`` bounds how many results are kept, not how large they are: each
distinct 1,000,000-character text a visitor scored stayed in the caches (about 18 MB, result, frame,
highlight and chart together), so 38 texts took a server from 385 MB to 1,077 MB, never given back while
idle. :func:`byte_cache` keeps results in one least-recently-used store of at most
``TONE_EXPLORER_PAGE_CACHE_MB`` (default 256) for every page and visitor: a plain-data result is kept
pickled, as ``st.cache_data`` keeps it (its size is its pickle's length, and each hit is a fresh copy a
page may change); an object kept as it is (a chart) is weighed by ``weight``. A result larger than a
quarter of the limit is returned and not kept.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from scoring.limits import get_limits

__all__ = ["byte_cache", "cached_bytes", "clear"]

P = ParamSpec("P")
R = TypeVar("R")


class _Store:
    """Entries (key -> (value, pickled?, bytes)), least recently used first, and their total bytes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: OrderedDict[bytes, tuple[Any, bool, int]] = OrderedDict()
        self.total = 0

    def get(self, key: bytes) -> tuple[bool, Any]:
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return False, None
            self.entries.move_to_end(key)
        value, pickled, _ = entry
        return True, pickle.loads(value) if pickled else value

    def put(self, key: bytes, value: Any, pickled: bool, size: int) -> None:
        limit = get_limits().page_cache_bytes
        if size > limit // 4:
            return
        with self.lock:
            if (old := self.entries.pop(key, None)) is not None:
                self.total -= old[2]
            self.entries[key] = (value, pickled, size)
            self.total += size
            while self.total > limit and self.entries:
                _, (_, _, dropped) = self.entries.popitem(last=False)
                self.total -= dropped

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.total = 0


_STORE = _Store()


def byte_cache(weight: Callable[..., int] | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Cache a function of plain arguments in the shared byte-bounded store.

    Without ``weight`` the result is kept pickled (a copy on every hit); with it, the result is kept as it
    is and ``weight(*args, **kwargs)`` says how many bytes it holds.
    """

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def cached(*args: P.args, **kwargs: P.kwargs) -> R:
            raw = pickle.dumps((fn.__module__, fn.__qualname__, args, sorted(kwargs.items())), protocol=5)
            key = hashlib.sha256(raw).digest()
            hit, value = _STORE.get(key)
            if hit:
                return value  # type: ignore[no-any-return]
            result = fn(*args, **kwargs)
            if weight is None:
                data = pickle.dumps(result, protocol=5)
                _STORE.put(key, data, True, len(data))
            else:
                _STORE.put(key, result, False, weight(*args, **kwargs))
            return result

        return cached

    return wrap


def cached_bytes() -> int:
    """How many bytes the store holds now (for tests and the operator's checks)."""
    return _STORE.total


def clear() -> None:
    """Forget every cached result (tests do, between pages)."""
    _STORE.clear()
