"""Sentence splitters: Mastra's regex, and a smart splitter for real agent replies.

Each returns ``Span``s with offsets into the original text, so charts and highlights can point
at the exact characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SPLITTERS", "Span", "get_splitter", "split_mastra", "split_smart"]


@dataclass(frozen=True, slots=True)
class Span:
    """One sentence: its text and ``text == source[start:end]``."""

    text: str
    start: int
    end: int


_MASTRA_RE = re.compile(r"[^.!?]+[.!?]+")


def split_mastra(text: str) -> list[Span]:
    """Split as ``@mastra/evals`` does: ``/[^.!?]+[.!?]+/g``, or the whole text if nothing matches."""
    spans = [Span(m.group(), m.start(), m.end()) for m in _MASTRA_RE.finditer(text)]
    return spans or [Span(text, 0, len(text))]


_ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt vs etc e.g i.e cf al approx dept est fig figs no nos vol vols
    inc ltd co corp llc jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
    u.s u.k u.n e.u a.m p.m ph.d m.d b.a m.a ave blvd rd gen col lt sgt capt gov sen rep rev hon
    min max misc ref refs eq eqs sec ch pp p ca viz ibid op cit ed eds""".split()
)
_CLOSERS = "\"'”’)]}»"
# A sentence ends at a run of terminal punctuation (plus closing quotes/brackets) followed by
# whitespace or the end; CJK full stops end a sentence with no space after them.
_BOUNDARY_RE = re.compile(rf"([.!?…]+[{re.escape(_CLOSERS)}]*)(?=\s|$)|([。！？]+[{re.escape(_CLOSERS)}」』]*)")
_LINE_RE = re.compile(r"[^\n]+")
_BULLET_RE = re.compile(r"^\s*(?:[-*•‣◦▪–]|\d{1,3}[.)])\s+")
_WORD_BEFORE_RE = re.compile(r"(\S+)$")


def _is_abbreviation(before: str, after: str) -> bool:
    """Whether a single '.' ending ``before`` belongs to an abbreviation or initial, not a sentence end."""
    m = _WORD_BEFORE_RE.search(before)
    if not m:
        return False
    word = m.group(1).lstrip("(\"'“‘[").lower()
    next_word = after.lstrip()
    starts_lower = bool(next_word) and (next_word[0].islower() or next_word[0].isdigit())
    if word in _ABBREVIATIONS:
        # "etc." and "U.S." often end sentences: only keep joining when the next word is lower case.
        return starts_lower or word not in {"etc", "u.s", "u.k", "a.m", "p.m", "al"}
    if len(word) == 1 and word.isalpha():  # initials: "J. Smith"
        return True
    if "." in word and all(len(p) <= 2 for p in word.split(".")):  # "e.g", "U.S.A"
        return True
    return starts_lower


def _split_line(text: str, offset: int, out: list[Span]) -> None:
    start = 0
    for m in _BOUNDARY_RE.finditer(text):
        end = m.end()
        punct = m.group(1)
        if punct is not None and punct.rstrip(_CLOSERS) in {".", "…", "..."}:
            if punct.rstrip(_CLOSERS) == "." and _is_abbreviation(text[start : m.start()], text[end:]):
                continue
            nxt = text[end:].lstrip()
            if punct.rstrip(_CLOSERS) != "." and nxt and nxt[0].islower():  # "wait... what"
                continue
        _emit(text, start, end, offset, out)
        start = end
    _emit(text, start, len(text), offset, out)


def _emit(text: str, start: int, end: int, offset: int, out: list[Span]) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped or (not any(c.isalnum() for c in stripped) and out and not _has_emoji(stripped)):
        if stripped and out:  # stray punctuation joins the previous sentence
            last = out[-1]
            new_end = offset + start + len(chunk.rstrip())
            out[-1] = Span(last.text + text[last.end - offset : start] + chunk.rstrip(), last.start, new_end)
        return
    lead = len(chunk) - len(chunk.lstrip())
    out.append(Span(stripped, offset + start + lead, offset + start + lead + len(stripped)))


def _has_emoji(text: str) -> bool:
    return any(ord(c) >= 0x2190 and not c.isalnum() for c in text)


def split_smart(text: str) -> list[Span]:
    """Split into sentences, keeping a trailing fragment and treating each line or bullet apart.

    Handles abbreviations (Dr., e.g., U.S.), initials, decimals and prices, ellipses, ``。！？``,
    line breaks and bullet lists. Returns no spans for empty or whitespace-only text.

    >>> [s.text for s in split_smart("Dr. Smith paid $4.50 at 3 p.m. today. Great!\\n- fast\\n- cheap")]
    ['Dr. Smith paid $4.50 at 3 p.m. today.', 'Great!', '- fast', '- cheap']
    """
    out: list[Span] = []
    for line in _LINE_RE.finditer(text):
        _split_line(line.group(), line.start(), out)
    return out


SPLITTERS: dict[str, Callable[[str], list[Span]]] = {"smart": split_smart, "mastra": split_mastra}


def get_splitter(name: str) -> Callable[[str], list[Span]]:
    """Return the splitter called ``name`` ("smart" or "mastra")."""
    if not isinstance(name, str) or name not in SPLITTERS:
        raise ValueError(f"splitter must be one of {sorted(SPLITTERS)}; got {name!r}.")
    return SPLITTERS[name]
