"""Write a file all at once, so no reader ever sees it half-written under its final name."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from scoring.errors import InputError, InputTypeError

__all__ = ["atomic_write"]


def _new_file_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """Return the process umask without changing it (os.umask would, racing other threads)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022


def atomic_write(path: str | os.PathLike[str], data_or_writer: bytes | str | Callable[[IO[bytes]], Any]) -> Path:
    """Write ``path`` all at once: into a hidden temp file beside it, then ``os.replace``.

    ``data_or_writer`` is bytes, text (written as UTF-8) or a function given the open binary file.
    If anything fails or is interrupted (Ctrl-C included), the temp file is removed and ``path`` is
    left as it was: a reader never sees a half-written file under the final name.
    """
    target = Path(path)
    if not target.parent.is_dir():
        raise InputError(f"cannot write {str(target)!r}: folder {str(target.parent)!r} does not exist.")
    if isinstance(data_or_writer, str):
        data_or_writer = data_or_writer.encode("utf-8")
    if not isinstance(data_or_writer, (bytes, bytearray, memoryview)) and not callable(data_or_writer):
        raise InputTypeError(f"data_or_writer must be bytes, str or a function; got {type(data_or_writer).__name__}.")
    mode = _new_file_mode(target)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            if callable(data_or_writer):
                data_or_writer(handle)
            else:
                handle.write(data_or_writer)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
