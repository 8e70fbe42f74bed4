"""Process helpers for fault tests: a process's descendants and whether a process still runs (Linux /proc)."""

from __future__ import annotations

import time
from pathlib import Path


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, counts as ended)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def descendants(pid: int) -> set[int]:
    """The running processes below ``pid`` (children, their children, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) and fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


def wait_until_gone(pids: set[int], timeout: float = 60) -> set[int]:
    """Wait until none of ``pids`` runs (or ``timeout`` seconds pass); return those still running."""
    deadline = time.monotonic() + timeout
    while (left := {p for p in pids if alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
