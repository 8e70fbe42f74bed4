"""Keep multiprocessing's resource tracker quiet and correct when it is killed during a run.

A process pool's queues hold named semaphores, which the parent registers with the resource tracker (a
helper process) so they are removed even if the parent dies. Killed mid-run (by a user's ``kill``, an
out-of-memory killer, a cleanup script), the tracker is relaunched at the next register or unregister,
knowing none of the names: Python warns ("process died unexpectedly, relaunching. Some resources might
leak") and the new tracker prints a ``KeyError`` traceback for every semaphore the pool later releases. The
run itself finishes correctly. :func:`install` makes the relaunched tracker learn every name still in use
(so nothing leaks and nothing is unknown) and drops the warning: the run prints no traceback.
"""

from __future__ import annotations

import os
import warnings
from multiprocessing import resource_tracker
from typing import Any

__all__ = ["install"]

_RELAUNCH_WARNING = "resource_tracker: process died unexpectedly"


class _RememberingTracker(resource_tracker.ResourceTracker):
    """A resource tracker that remembers what this process registered and tells a relaunched tracker."""

    _names: set[tuple[str, str]]
    _owner: int

    def ensure_running(self) -> Any:
        before = self._pid  # type: ignore[attr-defined]
        result = super().ensure_running()
        relaunched = before is not None and self._pid != before  # type: ignore[attr-defined]
        if relaunched and os.getpid() == self._owner:  # a forked worker must not claim its parent's names
            for name, rtype in sorted(self._names):
                os.write(self._fd, f"REGISTER:{name}:{rtype}\n".encode("ascii"))  # type: ignore[attr-defined]
        return result

    def _send(self, cmd: str, name: str, rtype: str) -> None:
        if cmd == "REGISTER":
            self._names.add((name, rtype))
        super()._send(cmd, name, rtype)  # type: ignore[misc]
        if cmd == "UNREGISTER":
            self._names.discard((name, rtype))


def install() -> None:
    """Make this process's resource tracker relaunch knowing its names, without a warning (idempotent).

    Does nothing where the tracker is not the one this was written against (its private ``_send``,
    ``_fd`` and ``_pid``), so a newer Python keeps its own behaviour rather than breaking.
    """
    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if isinstance(tracker, _RememberingTracker):
        return
    if type(tracker) is not resource_tracker.ResourceTracker or not all(
        hasattr(tracker, a) for a in ("_send", "_fd", "_pid")
    ):
        return
    warnings.filterwarnings("ignore", message=_RELAUNCH_WARNING, category=UserWarning)
    tracker._names = set()  # type: ignore[attr-defined]
    tracker._owner = os.getpid()  # type: ignore[attr-defined]
    tracker.__class__ = _RememberingTracker
    # The module's functions are methods bound when it was imported (the fork server calls ensure_running()).
    for name in ("ensure_running", "register", "unregister", "getfd"):
        setattr(resource_tracker, name, getattr(tracker, name))
