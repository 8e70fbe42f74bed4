"""Streamlit markdown from user text: every string from a user or a file is escaped before it is shown.

Text is escaped by backslash-escaping every ASCII punctuation character, so it never becomes markup, and
by breaking what GitHub-flavoured markdown turns into links on its own (``https://``, ``www.``, e-mail
addresses) with an invisible WORD JOINER (U+2060): Streamlit's renderer links those after the escapes
are read (``www\\.example\\.com`` is still linked), so escaping alone does not stop it (checked in
Chromium: ``tests/browser/test_markdown_browser.py``).
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

import pandas as pd

__all__ = [
    "DISAGREE_MARK",
    "HIGHLIGHT_LEGEND",
    "SHIFT_MARK",
    "WORD_JOINER",
    "diff_markdown",
    "escape_markdown",
    "highlight_markdown",
]

WORD_JOINER = "\u2060"  # zero width, no break: invisible, and not a character a URL or address may hold
_MD_SPECIAL = re.compile("([" + re.escape(string.punctuation) + "])")
_SPACE_RUN = re.compile(r"\s+")
# where GFM's autolink literals start: "www" before ".", "://" after a scheme, "@" in an address
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?<=@)")


def escape_markdown(text: str) -> str:
    """Return ``text`` as markdown that shows it literally: no markup, no link, no image.

    Backslash-escapes every ASCII punctuation character and puts a :data:`WORD_JOINER` inside each
    ``www.``, ``://`` and ``@`` so no URL or address is linked.

    >>> escape_markdown("<b>$5</b> *x* [y](z)")
    '\\\\<b\\\\>\\\\$5\\\\<\\\\/b\\\\> \\\\*x\\\\* \\\\[y\\\\]\\\\(z\\\\)'
    >>> escape_markdown("www.a.io me@a.io http://a.io").replace(WORD_JOINER, "|")
    'www|\\\\.a\\\\.io me\\\\@|a\\\\.io http\\\\:|\\\\/\\\\/a\\\\.io'
    """
    return _MD_SPECIAL.sub(r"\\\1", _AUTOLINK.sub(WORD_JOINER, text))


def _flat(text: str) -> str:
    """Escape text and fold each whitespace run (line breaks included) into one space."""
    return escape_markdown(_SPACE_RUN.sub(" ", text))


def _gap(text: str) -> str:
    """Render text between sentences: line breaks kept as markdown breaks, other text escaped."""
    if "\n" not in text:
        return _flat(text)
    pieces = text.split("\n")
    last = len(pieces) - 1
    parts = [
        _flat(p).rstrip() if i == 0 else _flat(p).lstrip() if i == last else _flat(p).strip()
        for i, p in enumerate(pieces)
    ]
    return ("\n\n" if text.count("\n") > 1 else "  \n").join(parts)


_COLORS = {"positive": "green", "negative": "red", "neutral": "gray"}
SHIFT_MARK = "⚡"
DISAGREE_MARK = "≠"


HIGHLIGHT_LEGEND = (
    ":green-background[:green[positive]] :gray-background[:gray[neutral]] :red-background[:red[negative]] · "
    f"{SHIFT_MARK} the tone turns here · {DISAGREE_MARK} VADER and AFINN read the sentence with opposite signs "
    "(low confidence)"
)


def _sentence(body: str, label: str, shift: bool, disagree: bool) -> str:
    """One sentence: coloured text on a background of its label; its marks inside, before it."""
    marks = (f"{SHIFT_MARK} " if shift else "") + (f"{DISAGREE_MARK} " if disagree else "")
    color = _COLORS[label]
    return f":{color}-background[{marks}:{color}[{body}]]"


def highlight_markdown(text: str, frame: pd.DataFrame) -> str:
    """Return ``text`` as Streamlit markdown, each sentence in the colour of its label on a matching background.

    A tone shift starts with ⚡ and a sentence the engines disagree on with ≠, inside the sentence's
    highlight (so a mark never reads as belonging to the next sentence). ``frame`` is :func:`sentence_frame`'s
    output for ``text``.

    >>> from scoring.tone.explain import sentence_frame
    >>> f = sentence_frame([{"text": "Great!", "start": 0, "end": 6, "sentiment": 0.6}])
    >>> highlight_markdown("Great! [x]", f)
    ':green-background[:green[Great\\\\!]] \\\\[x\\\\]'
    """
    out: list[str] = []
    pos = 0
    for row in frame.sort_values("start").itertuples():
        start, end = int(row.start), int(row.end)
        if start < pos:  # overlapping spans: never show text twice
            start = pos
        out.append(_gap(text[pos:start]))
        body = _flat(text[start:end]).strip()
        if body:
            dispute = bool(getattr(row, "engines_disagree", False))
            out.append(_sentence(body, str(row.label), bool(row.tone_shift), dispute))
        pos = max(pos, end)
    out.append(_gap(text[pos:]))
    return "".join(out).strip()


def diff_markdown(diff: Sequence[tuple[str, str]]) -> str:
    """Render :func:`word_diff` as escaped markdown: deletions red and struck through, insertions green.

    >>> diff_markdown([("equal", "a"), ("delete", "b"), ("insert", "c*")])
    'a :red-background[~~b~~] :green-background[c\\\\*]'
    """
    style = {"equal": "{}", "delete": ":red-background[~~{}~~]", "insert": ":green-background[{}]"}
    return " ".join(style[op].format(escape_markdown(words)) for op, words in diff if words)
