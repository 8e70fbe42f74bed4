"""Decoding text files: one uploaded response (:func:`decode_text`), and tables that mix UTF-8 and Windows-1252.

A table file that is not valid UTF-8 is scanned line by line. When most of its non-ASCII lines are UTF-8,
each line is decoded in its own encoding (UTF-8, else Windows-1252, else Latin-1) and the lines that
were not UTF-8 are named in a warning; when most are not, the file is read as Windows-1252 and the
warning names the lines that looked like UTF-8 (their accents may show as ``Ã©``). Either way the
reader says what it did: no line turns into mojibake silently.

>>> data = "input,output\\nq,café\\n".encode() + "q2,naïve\\n".encode("cp1252")
>>> scan = scan_lines(io.BytesIO(data))
>>> scan.utf8_lines, scan.legacy_lines, scan.line_by_line
([2], [3], True)
>>> LineTranscoder(io.BytesIO(data)).read().decode()
'input,output\\nq,café\\nq2,naïve\\n'
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

from scoring.limits import check_text_length

__all__ = ["LineScan", "LineTranscoder", "decode_line", "decode_text", "mixed_lines", "scan_lines"]

_KEEP = 12  # line numbers kept for a message


def decode_text(data: bytes, name: str) -> str:
    """Return a text file's text (UTF-8, with or without a BOM); raise ValueError naming ``name`` when it is not.

    The text must fit the length limit of one response (files of many responses are tables).

    >>> decode_text("café".encode(), "reply.txt")
    'café'
    >>> decode_text(b"\\x00\\x01", "reply.txt")
    Traceback (most recent call last):
    ...
    ValueError: reply.txt looks binary (it contains NUL bytes); upload a UTF-8 .txt or .md file.
    """
    if b"\x00" in data:
        raise ValueError(f"{name} looks binary (it contains NUL bytes); upload a UTF-8 .txt or .md file.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"{name} is not UTF-8 text (byte {e.start}); re-save it as UTF-8 and upload again.") from e
    return check_text_length(text, name)


@dataclass
class LineScan:
    """Which lines (counted from 1) with non-ASCII bytes are valid UTF-8, and which are not (first few)."""

    utf8_lines: list[int] = field(default_factory=list)
    legacy_lines: list[int] = field(default_factory=list)
    utf8_count: int = 0
    legacy_count: int = 0

    @property
    def mixed(self) -> bool:
        """Whether the file has both UTF-8 lines and lines that are not UTF-8."""
        return bool(self.utf8_count and self.legacy_count)

    @property
    def line_by_line(self) -> bool:
        """Whether to decode line by line (most non-ASCII lines are UTF-8) rather than all as Windows-1252."""
        return self.mixed and self.utf8_count >= self.legacy_count

    def warning(self, name: str) -> str:
        """The message saying what was done, naming the file and the lines concerned."""
        if self.line_by_line:
            lines, count = self.legacy_lines, self.legacy_count
            what = "are not UTF-8 and were read as Windows-1252 (the other lines are UTF-8)"
        else:
            lines, count = self.utf8_lines, self.utf8_count
            what = "look like UTF-8 but were read as Windows-1252 like the rest of the file (accents may show as 'Ã©')"
        shown = ", ".join(map(str, lines)) + (f" and {count - len(lines):,} more" if count > len(lines) else "")
        return f"{name} mixes text encodings: {count:,} line(s) {what}: line {shown}. Check the accents on those lines."


def scan_lines(handle: IO[bytes]) -> LineScan:
    """Scan ``handle`` from its start (one pass, ASCII lines skipped fast); leave it at its end."""
    scan = LineScan()
    handle.seek(0)
    for number, line in enumerate(handle, start=1):
        if line.isascii():
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            scan.legacy_count += 1
            if len(scan.legacy_lines) < _KEEP:
                scan.legacy_lines.append(number)
        else:
            scan.utf8_count += 1
            if len(scan.utf8_lines) < _KEEP:
                scan.utf8_lines.append(number)
    return scan


def decode_line(line: bytes) -> str:
    """Decode one line: UTF-8, else Windows-1252, else Latin-1 (which decodes any byte)."""
    for encoding in ("utf-8", "cp1252"):
        try:
            return line.decode(encoding)
        except UnicodeDecodeError:
            pass
    return line.decode("latin-1")


class LineTranscoder(io.RawIOBase):
    """A readable stream of UTF-8: the lines of ``raw``, each decoded by :func:`decode_line`."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__()
        self._lines: Iterator[bytes] = iter(raw)
        self._buffer = bytearray()

    def readable(self) -> bool:
        return True

    def readinto(self, target: bytearray | memoryview) -> int:  # type: ignore[override]
        while len(self._buffer) < len(target):
            line = next(self._lines, None)
            if line is None:
                break
            self._buffer += line if line.isascii() else decode_line(line).encode("utf-8")
        size = min(len(target), len(self._buffer))
        target[:size] = self._buffer[:size]
        del self._buffer[:size]
        return size


def mixed_lines(name: str, handle: IO[bytes], encoding: str) -> tuple[IO[bytes], str, list[str]]:
    """Return (stream, encoding, warnings) to read a text file detected as ``encoding`` from its start.

    Only a file detected as Windows-1252 or Latin-1 (not valid UTF-8) is scanned; when it mixes in UTF-8
    lines, the stream decodes line by line (most non-ASCII lines UTF-8) or stays Windows-1252, with a warning.
    """
    if encoding not in {"cp1252", "latin-1"}:
        return handle, encoding, []
    scan = scan_lines(handle)
    handle.seek(0)
    if not scan.mixed:
        return handle, encoding, []
    if scan.line_by_line:
        return io.BufferedReader(LineTranscoder(handle)), "utf-8", [scan.warning(name)]
    return handle, encoding, [scan.warning(name)]
