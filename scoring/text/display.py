r"""Names from files shown on one line: the CLI's messages and the dashboard's pages use the same function.

A file name (or a run's name or label) may hold a line feed or a carriage return. Printed raw, it makes a fake
row in ``runs list`` or overwrites a message's start; on a page it breaks a caption, a table cell or a choice in
two. :func:`one_line` shows them as the two characters ``\n`` and ``\r`` instead.
"""

from __future__ import annotations

__all__ = ["one_line"]


def one_line(text: object) -> str:
    r"""Return ``text`` with line feeds and carriage returns shown as ``\n`` and ``\r``: a file name or message
    holding one would otherwise print a fake line (a made-up row in ``runs list``) or overwrite the line's start
    (the ``error:`` prefix).

    >>> one_line("a.csv\rerror: fine\nok")
    'a.csv\\rerror: fine\\nok'
    """
    return str(text).replace("\r", "\\r").replace("\n", "\\n")
