"""Text bound for a terminal: characters from files and run names never reach it raw.

A column name, group name, file name or cell quoted in a message may hold an escape sequence (``ESC [``
rewrites the screen, sets the window title or hides what follows) or a bidirectional override that
shows text in another order than it is stored. The CLI writes stdout and stderr through
:class:`TerminalSafe`, which shows each such character as a visible ``\\uXXXX`` escape (in JSON strings
that escape is the same character). Line feed, carriage return (the progress bar) and tab stay as they
are (:func:`scoring.text.display.one_line` escapes line feeds and carriage returns in the names a message quotes).
"""

from __future__ import annotations

import re
from typing import TextIO

__all__ = ["TerminalSafe", "for_terminal"]

# C0 controls but tab, line feed and carriage return; DEL and C1 controls; bidi marks, embeddings,
# overrides and isolates; the line and paragraph separators.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def for_terminal(text: str) -> str:
    r"""Return ``text`` with every control or bidi character shown as a ``\uXXXX`` escape.

    >>> for_terminal("ok\x1b]0;pwned\x07 a\tb\n")
    'ok\\u001b]0;pwned\\u0007 a\tb\n'
    >>> for_terminal("name\u202egnp.exe")
    'name\\u202egnp.exe'
    """
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class TerminalSafe:
    """A text stream that writes through :func:`for_terminal` to the stream it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` with its unsafe characters escaped; return the characters given."""
        self.stream.write(for_terminal(text))
        return len(text)

    def flush(self) -> None:
        """Flush the wrapped stream."""
        self.stream.flush()

    def isatty(self) -> bool:
        """Whether the wrapped stream is a terminal (the progress bar asks)."""
        return bool(getattr(self.stream, "isatty", lambda: False)())

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)
