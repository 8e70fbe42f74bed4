"""JavaScript string semantics that Mastra's scorers rely on, for exact parity.

Python and JavaScript disagree on three things that matter here: which characters ``\\s``
matches (and ``trim`` strips), the Unicode version behind ``toLowerCase``, and that JS strings
are sequences of UTF-16 code units (so an emoji outside the BMP is two "characters").
"""

from __future__ import annotations

import json
import re
from array import array
from functools import cache
from importlib import resources

__all__ = ["JS_WHITESPACE", "js_lower", "js_trim", "utf16_units"]

#: The characters JavaScript's ``\s`` matches (WhiteSpace + LineTerminator, ECMA-262).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_WS_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
JS_WS_RE = re.compile(_WS_CLASS)
JS_WS_RUN_RE = re.compile(_WS_CLASS + "+")
_JS_TRIM_RE = re.compile(rf"^{_WS_CLASS}+|{_WS_CLASS}+\Z")


@cache
def _lower_table() -> tuple[dict[str, str], re.Pattern[str] | None]:
    path = resources.files("scoring") / "data" / "js_lowercase.json"
    table: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))["lower"]
    pattern = re.compile("[" + "".join(map(re.escape, table)) + "]") if table else None
    return table, pattern


def js_lower(text: str) -> str:
    """Return ``text.toLowerCase()`` as Node.js computes it."""
    table, pattern = _lower_table()
    if pattern is None or pattern.search(text) is None:
        return text.lower()
    pieces = pattern.split(text)
    found = pattern.findall(text)
    out = [pieces[0].lower()]
    for char, rest in zip(found, pieces[1:], strict=True):
        out.append(table[char])
        out.append(rest.lower())
    return "".join(out)


def js_trim(text: str) -> str:
    """Return ``text.trim()`` with JavaScript's whitespace set."""
    return _JS_TRIM_RE.sub("", text)


def utf16_units(text: str) -> str:
    """Return ``text`` as one Python character per UTF-16 code unit (surrogates split)."""
    if text.isascii() or max(text) <= "\uffff":
        return text
    units = array("H", text.encode("utf-16-le", "surrogatepass"))
    return "".join(map(chr, units))
