"""Decoding text files: one uploaded response (:func:`decode_text`), and tables that are not UTF-8.

A table file that is not valid UTF-8 is scanned line by line. Its non-UTF-8 lines tell the legacy encoding
(:func:`detect_legacy`: charset-normalizer's candidates and Windows-1252, ranked as described there), so a
GB18030, EUC-KR, KOI8-R, Shift-JIS, Windows-1251 or Big5 file is read as such rather than as Windows-1252
mojibake. When most of its non-ASCII lines are UTF-8 (rows pasted together from different tools), each
line is decoded in its own encoding (UTF-8, else the legacy one, else Latin-1) and the other lines are
named in a warning; when most are not, the file is read in the legacy encoding and the warning names the
lines that looked like UTF-8. Either way the reader says which encoding it used: nothing turns into
mojibake silently.

>>> data = "input,output\\nq,café\\n".encode() + "q2,naïve\\n".encode("cp1252")
>>> scan = scan_lines(io.BytesIO(data))
>>> scan.utf8_lines, scan.legacy_lines, scan.line_by_line
([2], [3], True)
>>> LineTranscoder(io.BytesIO(data)).read().decode()
'input,output\\nq,café\\nq2,naïve\\n'
>>> detect_legacy("Привет, спасибо за помощь!".encode("koi8_r"))
'koi8_r'
"""

from __future__ import annotations

import codecs
import functools
import io
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

from scoring.errors import InputError
from scoring.limits import check_text_length

__all__ = [
    "LineScan",
    "LineTranscoder",
    "decode_line",
    "decode_text",
    "decodes",
    "detect_legacy",
    "display_name",
    "mixed_lines",
    "scan_lines",
]

_KEEP = 12  # line numbers kept for a message
_SAMPLE = 1 << 16  # bytes of non-UTF-8 lines given to the detector
_MIN_EVIDENCE = 4  # non-ASCII bytes the detector needs; with fewer, Windows-1252 (else Latin-1)
#: Legacy encodings always measured, the most common first (the order breaks ties).
_COMMON = ("cp1252", "gb18030", "cp1251", "cp932", "cp949", "big5", "cp1250", "koi8_r", "cp1254", "cp1253",
           "cp1257", "cp1255", "cp1256", "euc_jp", "koi8_u", "cp874")  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
_ASCII_PROBE = b"input,output;\t|\"'\r\n0123456789 abcXYZ"
_NAMES = {
    "cp1252": "Windows-1252", "latin_1": "Latin-1", "iso8859-1": "Latin-1", "cp1250": "Windows-1250",
    "cp1251": "Windows-1251", "cp1253": "Windows-1253", "cp1254": "Windows-1254", "cp1255": "Windows-1255",
    "cp1256": "Windows-1256", "cp1257": "Windows-1257", "koi8-r": "KOI8-R", "koi8-u": "KOI8-U",
    "gb18030": "GB18030", "gbk": "GBK", "gb2312": "GB2312", "big5": "Big5", "big5hkscs": "Big5-HKSCS",
    "cp949": "EUC-KR (CP949)", "euc_kr": "EUC-KR", "cp932": "Shift-JIS (CP932)", "shift_jis": "Shift-JIS",
    "euc_jp": "EUC-JP", "utf-16": "UTF-16", "utf-16-le": "UTF-16 LE", "utf-16-be": "UTF-16 BE",
}  # fmt: skip


def display_name(encoding: str) -> str:
    """The usual name of a Python codec ("cp949" -> "EUC-KR (CP949)").

    >>> display_name("cp1252"), display_name("koi8_r"), display_name("iso8859_5")
    ('Windows-1252', 'KOI8-R', 'ISO-8859-5')
    """
    name = codecs.lookup(encoding).name
    return _NAMES.get(name, name.upper().replace("ISO8859", "ISO-8859"))


def decode_text(data: bytes, name: str) -> str:
    """Return a text file's text (UTF-8, with or without a BOM); raise ValueError naming ``name`` when it is not.

    The text must fit the length limit of one response (files of many responses are tables).

    >>> decode_text("café".encode(), "reply.txt")
    'café'
    >>> decode_text(b"\\x00\\x01", "reply.txt")
    Traceback (most recent call last):
    ...
    scoring.errors.InputError: reply.txt looks binary (it contains NUL bytes); upload a UTF-8 .txt or .md file.
    """
    if b"\x00" in data:
        raise InputError(f"{name} looks binary (it contains NUL bytes); upload a UTF-8 .txt or .md file.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{name} is not UTF-8 text (byte {e.start}); re-save it as UTF-8 and upload again.") from e
    return check_text_length(text, name)


@dataclass
class LineScan:
    """Which lines (counted from 1) with non-ASCII bytes are valid UTF-8, and which are not (first few)."""

    utf8_lines: list[int] = field(default_factory=list)
    legacy_lines: list[int] = field(default_factory=list)
    utf8_count: int = 0
    legacy_count: int = 0
    legacy_sample: bytes = b""  # the first non-UTF-8 lines, up to 64 KB, for the detector
    legacy: str = "cp1252"  # the encoding of the non-UTF-8 lines, once detected

    @property
    def mixed(self) -> bool:
        """Whether the file has both UTF-8 lines and lines that are not UTF-8."""
        return bool(self.utf8_count and self.legacy_count)

    @property
    def line_by_line(self) -> bool:
        """Whether to decode line by line (most non-ASCII lines are UTF-8) rather than all in the legacy encoding."""
        return self.mixed and self.utf8_count >= self.legacy_count

    def warning(self, name: str) -> str:
        """The message saying what was done, naming the file, the encoding and the lines concerned."""
        legacy = display_name(self.legacy)
        if not self.mixed:
            return f"{name} is not UTF-8: it was read as {legacy} (detected from its bytes); check the text."
        if self.line_by_line:
            lines, count = self.legacy_lines, self.legacy_count
            what = f"are not UTF-8 and were read as {legacy} (the other lines are UTF-8)"
        else:
            lines, count = self.utf8_lines, self.utf8_count
            what = f"look like UTF-8 but were read as {legacy} like the rest of the file (accents may show as 'Ã©')"
        shown = ", ".join(map(str, lines)) + (f" and {count - len(lines):,} more" if count > len(lines) else "")
        return f"{name} mixes text encodings: {count:,} line(s) {what}: line {shown}. Check the accents on those lines."


def scan_lines(handle: IO[bytes]) -> LineScan:
    """Scan ``handle`` from its start (one pass, ASCII lines skipped fast); leave it at its end."""
    scan = LineScan()
    sample = bytearray()
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
            if len(sample) < _SAMPLE:
                sample += line
        else:
            scan.utf8_count += 1
            if len(scan.utf8_lines) < _KEEP:
                scan.utf8_lines.append(number)
    scan.legacy_sample = bytes(sample)
    return scan


@functools.lru_cache(maxsize=8192)
def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    if name.startswith("HALFWIDTH KATAKANA"):
        return "halfwidth kana"
    if name.startswith(("CJK", "HIRAGANA", "KATAKANA", "IDEOGRAPHIC")):  # Japanese mixes these in one word
        return "CJK"
    return name.partition(" ")[0]


def _mixed_script_share(text: str) -> float:
    """The share of non-ASCII words whose letters come from two scripts ("trè" read as Big5 gives "tr鋊").

    The first 16,000 characters are enough, and keep the check fast on a large sample.
    """
    words = [w for w in _WORD.findall(text[:16_000]) if not w.isascii()]
    if not words:
        return 0.0
    return sum(len({_script(c) for c in w}) > 1 for w in words) / len(words)


def _step(measure: float, size: float) -> int:
    """``measure`` in steps of ``size``: smaller differences are noise (English with a few accents measures
    0.009 of mess as Windows-1252 and 0 as Windows-1257)."""
    return int(measure / size + 1e-9)


def _ascii_compatible(encoding: str) -> bool:
    try:
        return _ASCII_PROBE.decode(encoding) == _ASCII_PROBE.decode("ascii")
    except (UnicodeDecodeError, LookupError):
        return False


def _candidates(sample: bytes) -> list[str]:
    """Encodings that may have written ``sample`` (not UTF-8), the most likely first.

    Under four non-ASCII bytes there is nothing to go on (a stray ``0x81`` reads as anything): none.
    """
    if sum(b >= 0x80 for b in sample[:_SAMPLE]) < _MIN_EVIDENCE:
        return []
    from charset_normalizer import from_bytes

    # The detector's own pick stops early on short samples (one KOI8-R line came out as Shift-JIS), so the
    # common legacy encodings are always measured too.
    found = {codecs.lookup(m.encoding).name: m for m in from_bytes(sample)}
    for match in from_bytes(sample, cp_isolation=list(_COMMON), threshold=1.0):
        found.setdefault(codecs.lookup(match.encoding).name, match)
    # Ranked by the share of words that mix scripts ("très" read as Big5 is "tr鋊"), the detector's measure
    # of mess, then of language coherence, in steps that ignore noise; on a tie, the more common encoding.
    # Checked on tests/scoring/bad_files.py's LEGACY_TEXTS and 20-odd samples in 15 encodings; known misses:
    # a short Turkish text reads as Windows-1252 (the two differ in 6 letters), half-width kana alone.
    preference = {codecs.lookup(e).name: i for i, e in enumerate(_COMMON)}
    ranked = sorted(
        ((name, m) for name, m in found.items() if _ascii_compatible(name) and not name.startswith("utf")),
        key=lambda item: (
            _step(_mixed_script_share(str(item[1])), 0.05),
            _step(item[1].chaos, 0.02),
            -_step(item[1].coherence, 0.03),
            preference.get(item[0], len(preference)),
        ),
    )
    return [m.encoding for _, m in ranked]


def detect_legacy(sample: bytes) -> str:
    """Return the encoding of ``sample``, the non-UTF-8 lines of a file: Windows-1252 if nothing fits better."""
    found = _candidates(sample)
    return found[0] if found else "cp1252"


def decodes(handle: IO[bytes], encoding: str) -> bool:
    """Whether all of ``handle`` decodes in ``encoding`` (read from its start in 1 MB blocks; left at its start)."""
    decoder = codecs.getincrementaldecoder(encoding)()
    handle.seek(0)
    try:
        for block in iter(lambda: handle.read(1 << 20), b""):
            decoder.decode(block)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    finally:
        handle.seek(0)
    return True


def decode_line(line: bytes, legacy: str = "cp1252") -> str:
    """Decode one line: UTF-8, else ``legacy``, else Latin-1 (which decodes any byte)."""
    for encoding in ("utf-8", legacy):
        try:
            return line.decode(encoding)
        except UnicodeDecodeError:
            pass
    return line.decode("latin-1")


class LineTranscoder(io.RawIOBase):
    """A readable stream of UTF-8: the lines of ``raw``, each decoded by :func:`decode_line`."""

    def __init__(self, raw: IO[bytes], legacy: str = "cp1252") -> None:
        super().__init__()
        self._lines: Iterator[bytes] = iter(raw)
        self._legacy = legacy
        self._buffer = bytearray()

    def readable(self) -> bool:
        return True

    def readinto(self, target: bytearray | memoryview) -> int:  # type: ignore[override]
        while len(self._buffer) < len(target):
            line = next(self._lines, None)
            if line is None:
                break
            self._buffer += line if line.isascii() else decode_line(line, self._legacy).encode("utf-8")
        size = min(len(target), len(self._buffer))
        target[:size] = self._buffer[:size]
        del self._buffer[:size]
        return size


def mixed_lines(name: str, handle: IO[bytes]) -> tuple[IO[bytes], str, list[str], str]:
    """Return (stream, encoding, warnings, legacy) to read a text file that is not UTF-8, from its start.

    The non-UTF-8 lines tell the legacy encoding; the file is then read in it (checked to decode every
    line, else the next candidate, Latin-1 last), or line by line when most non-ASCII lines are UTF-8.
    The warning names the encoding used and, in a mixed file, the lines read otherwise than the rest.
    ``encoding`` is the stream's (UTF-8 when transcoded line by line); ``legacy`` that of the other lines.
    """
    scan = scan_lines(handle)
    handle.seek(0)
    found = _candidates(scan.legacy_sample)
    if scan.line_by_line:  # each line is decoded on its own, Latin-1 as the last resort
        scan.legacy = found[0] if found else "cp1252"
        return io.BufferedReader(LineTranscoder(handle, scan.legacy)), "utf-8", [scan.warning(name)], scan.legacy
    # Latin-1 decodes the bytes Windows-1252 leaves undefined (0x81, 0x8d, ...): it follows it.
    order = [e for f in found for e in ((f, "latin-1") if codecs.lookup(f).name == "cp1252" else (f,))]
    for encoding in [*order, "cp1252", "latin-1"]:
        if decodes(handle, encoding):
            scan.legacy = encoding
            break
    return handle, scan.legacy, [scan.warning(name)], scan.legacy
