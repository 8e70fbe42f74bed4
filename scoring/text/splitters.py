"""Sentence splitters: Mastra's regex, and a smart splitter for real agent replies.

Each returns ``Span``s with offsets into the original text (``text == source[start:end]``), so
charts and highlights can point at the exact characters.

The smart splitter has a compiled twin for ASCII text (``_split_core.c``, built by ``setup.py``), which gives
the same spans; other text, or a process where the core was not built, runs the Python code below.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType

from scoring import native
from scoring.errors import InputError

__all__ = [
    "DEFAULT_SPLITTER",
    "SPLITTERS",
    "SPLITTER_LABELS",
    "Span",
    "get_sentence_texts",
    "get_splitter",
    "has_words",
    "split_mastra",
    "split_smart",
]


@dataclass(frozen=True, slots=True)
class Span:
    """One sentence: its text and ``text == source[start:end]``."""

    text: str
    start: int
    end: int


_MASTRA_RE = re.compile(r"[^.!?]+[.!?]+")


def split_mastra(text: str) -> list[Span]:
    """Split as ``@mastra/evals`` does: ``/[^.!?]+[.!?]+/g``, or the whole text if nothing matches.

    No match can start after the last terminal, so the search stops there: the same matches in
    linear time (the bare regex rescans an unpunctuated tail from every position: quadratic).
    """
    if _CORE is not None:  # the same matches, found by one scan in C (any text)
        spans: list[Span] = _CORE.mastra_spans(text)
    else:
        spans = [Span(m.group(), m.start(), m.end()) for m in _MASTRA_RE.finditer(text, 0, _after_last_terminal(text))]
    return spans or [Span(text, 0, len(text))]


def _mastra_texts(text: str) -> list[str]:
    if _CORE is not None:
        texts: list[str] = _CORE.mastra_texts(text)
        return texts or [text]
    return _MASTRA_RE.findall(text, 0, _after_last_terminal(text)) or [text]


def _after_last_terminal(text: str) -> int:
    return max(text.rfind("."), text.rfind("!"), text.rfind("?")) + 1


def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


# Abbreviations, by what may follow them (lower case, without the final period).
_ALWAYS_JOIN = _words("e.g i.e cf vs viz incl esp resp w.r.t approx ca")
_TITLES = _words("mr mrs ms mx dr prof st mt gen col lt sgt capt cmdr gov sen rep rev hon messrs fr mme mlle")
_BEFORE_NUMBER = _words(
    """no nos vol vols fig figs p pp ch chap sec sect eq eqs ref refs art par para pg tel ext est op
    jan feb mar apr jun jul aug sep sept oct nov dec mo di mi"""
)
# German dates put a period after the day: "am 3. Juni" (months as written capitalised; "Mo." etc. join above).
_GERMAN_MONTHS = _words("januar jänner februar märz april mai juni juli august september oktober november dezember")
_CAN_END = _words("etc inc ltd co corp llc plc al jr sr bros dept a.m p.m min max hr hrs sec secs approx")
_STARTERS = _words(
    """the a an this that these those it its it's i i'm i've i'll we we're we've we'll you you're you'll
    he she they there here our my your their his her if when while as after before since because but
    and so or then also however please thanks thank let just now what why how where who which yes no
    in on at for to from with by all some most many each every one another both see note is are was
    were do does did can could will would should may might must have has had"""
)
_ACRONYM_RE = re.compile(r"(?:[a-z]{1,2}\.)+[a-z]{1,2}")
_EMOJI = "[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff\ufe0f\u200d\u20e3]"
_CLOSERS = "\"'”’)\\]}»*_`"
_TERMINALS, _CJK, _BREAKS = ".!?…‽", "。！？．｡", "\n\v\f\x1c-\x1e\x85\u2028\u2029"
# Chinese, Japanese and Korean letters: a Latin terminal right before one ends a sentence without a space
# ("재밌음.감동까지", "OK!谢谢"), as CJK writers often leave none.
_CJK_LETTER = "\u3041-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff\u3131-\u318e"
# Candidates: Latin terminal punctuation (+ closers, + emoji) before whitespace, a CJK letter or the end;
# CJK terminals, full-width ones included (no space needed); a line break with the whitespace around
# it; an emoji before a capitalised word.
# The look-behinds right after each alternative's first character, and the possessive quantifiers,
# keep long runs (1 MB of dots, spaces or emoji) linear.
_CANDIDATE_RE = re.compile(
    rf"(?P<p>[{_TERMINALS}](?<![{_TERMINALS}][{_TERMINALS}])[{_TERMINALS}]*+)(?P<c>[{_CLOSERS}]*+)"
    rf"(?:[ \t]*+{_EMOJI}++)*+(?=\s|$|[{_CJK_LETTER}])"
    rf"|(?P<cjk>[{_CJK}](?<![{_CJK}][{_CJK}])[{_CJK}]*+[{_CLOSERS}」』）】》〕〉＂＇]*+)(?:[ \t]*+{_EMOJI}++)*+"
    rf"|(?P<nl>(?:\r\n?|[{_BREAKS}])\s*+)"
    rf"|(?P<emo>{_EMOJI}(?<!{_EMOJI}{_EMOJI}){_EMOJI}*+)(?=[ \t]+[^\W\d_a-z])"
)
# Every candidate starts with one of these characters. The regex engine skips to them with a fast
# character-set scan, which it does not do for an alternation of groups (~4x less time on replies).
_FIRST_RE = re.compile(rf"[{_TERMINALS}{_CJK}\r{_BREAKS}{_EMOJI[1:-1]}]")
_NEXT_RE = re.compile(r"\s*[\"'“‘(\[*_`¿¡]*([\w'’]*)")
_OPENERS = "(\"'“‘[{*_`"
_WORDISH_RE = re.compile(rf"[^\W_]|{_EMOJI}")
_MARKER_RE = re.compile(r"[ \t]*(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,4})")
_BULLET_RE = re.compile(r"[ \t]*(?:[-*+•‣◦▪–—>]|\d{1,3}[.)]|[A-Za-z][.)])[ \t]")
_FENCE_RE = re.compile(r"^[ \t]*(?:```|~~~).*$", re.MULTILINE)


def has_words(text: str) -> bool:
    """Whether ``text`` has a letter, a digit or an emoji (anything a sentiment lexicon could score).

    >>> has_words("Fine."), has_words("?!… --"), has_words("👍")
    (True, False, True)
    """
    return _WORDISH_RE.search(text) is not None


def _word_before(text: str, i: int) -> tuple[str, int]:
    """The token ending at ``i`` (bounded look-back) and where it starts."""
    lo = max(0, i - 64)
    start = max(text.rfind(" ", lo, i), text.rfind("\n", lo, i), text.rfind("\t", lo, i), lo - 1) + 1
    return text[start:i], start


def _period_ends(text: str, i: int, nxt: str, caseless: bool) -> bool:
    """Whether a single '.' at ``i`` ends a sentence; ``nxt`` is the next word (openers skipped)."""
    raw, word_start = _word_before(text, i)
    word = raw.lstrip(_OPENERS).lower()
    lo = max(0, word_start - 16)  # bounded: list markers are indented by a few spaces at most
    line_start = text.rfind("\n", lo, word_start) + 1 or (0 if lo == 0 else -1)
    if line_start >= 0 and _MARKER_RE.fullmatch(text, line_start, i):  # "1." opening a line
        return False
    lower = nxt[:1].islower()
    if word in _ALWAYS_JOIN or word in _TITLES:
        return False
    if word in _BEFORE_NUMBER and (nxt[:1].isdigit() or lower):
        return False
    if word in _CAN_END:
        return not lower
    if word.isdigit() and len(word) <= 2 and nxt.lower().rstrip(".,") in _GERMAN_MONTHS:  # "3. Juni"
        return False
    if (len(word) == 1 and word.isalpha()) or _ACRONYM_RE.fullmatch(word):  # initials, U.S.
        return not lower and nxt.lower() in _STARTERS
    return caseless or not lower


def _ends(text: str, m: re.Match[str], caseless: bool, kind: str | None) -> bool:
    """Whether the punctuation candidate ``m`` (``kind``: its last group) ends a sentence."""
    if kind == "cjk":
        return not (m.group("cjk")[-1] in "」』" and text.startswith("と", m.end()))
    punct, closers = m.group("p", "c")
    nxt = _NEXT_RE.match(text, m.end()).group(1)  # type: ignore[union-attr]  # every part optional: always matches
    lower = nxt[:1].islower()
    if punct == ".":
        if closers:
            return caseless or not lower
        return _period_ends(text, m.start(), nxt, caseless)
    if punct.strip(".") == "" or punct.strip("…") == "":  # ellipsis
        return not lower
    return not (lower and closers) or caseless  # "Ready?" she asked.


def _code_fences(text: str) -> list[int]:
    """Start offsets of fence lines: blocks run from an even-numbered one to the next (or the end)."""
    if "```" not in text and "~~~" not in text:
        return []
    return [m.start() for m in _FENCE_RE.finditer(text)]


def _in_code(text: str, fences: list[int], i: int) -> bool:
    """Whether offset ``i`` is inside a fenced code block or on one of its fence lines."""
    k = bisect_right(fences, i)
    return k % 2 == 1 or (k > 0 and text.find("\n", fences[k - 1], i) < 0)


def _line_break_ends(text: str, start: int, m: re.Match[str], fences: list[int]) -> bool:
    """Whether a line break ends the sentence (a hard wrap in lower case continues it)."""
    nl = m.group("nl")
    if nl.count("\n") + nl.count("\r") - nl.count("\r\n") > 1 or m.end() >= len(text):
        return True
    if fences and _in_code(text, fences, m.start()):  # every code line stands alone
        return True
    before = text[max(start, m.start() - 64) : m.start()].rstrip()[-1:]  # bounded: stays linear
    return before in ".!?…:;" or not text[m.end()].islower() or bool(_BULLET_RE.match(text, m.end()))


def _candidates(text: str) -> Iterator[re.Match[str]]:
    """Yield what ``_CANDIDATE_RE.finditer(text)`` yields: the leftmost match from each position on."""
    search, match = _FIRST_RE.search, _CANDIDATE_RE.match
    found = search(text)
    while found is not None:
        m = match(text, found.start())
        if m is None:
            found = search(text, found.start() + 1)
        else:
            yield m
            found = search(text, m.end())


def split_smart(text: str) -> list[Span]:
    """Split into sentences; a trailing fragment is kept, list items and lines stand apart.

    Handles abbreviations (Dr., e.g., U.S.), initials, decimals, prices, versions and URLs,
    ellipses, ``。！？．｡`` (and Latin ``.!?`` right before a Chinese, Japanese or Korean letter),
    quotes, emoji, line breaks, hard-wrapped lines and bullet/numbered lists.
    Returns no spans for empty or whitespace-only text.

    >>> [s.text for s in split_smart("Dr. Smith paid $4.50 at 3 p.m. today. Great!\\n- fast\\n- cheap")]
    ['Dr. Smith paid $4.50 at 3 p.m. today.', 'Great!', '- fast', '- cheap']
    """
    spans: list[Span] | None = None if _CORE is None else _CORE.spans(text)  # None: not ASCII
    return _split_smart_python(text) if spans is None else spans


def _split_smart_python(text: str) -> list[Span]:
    """``split_smart`` in Python: for any text (the compiled core stands for it on ASCII text)."""
    out: list[Span] = []
    caseless = text.lower() == text
    fences = _code_fences(text)
    start = 0
    for m in _candidates(text):
        kind = m.lastgroup  # "c" (Latin terminals, then closers), "cjk", "nl" or "emo"
        if kind == "nl":
            if m.start() > start and _line_break_ends(text, start, m, fences):
                _emit(text, start, m.start(), out)
                start = m.end()
            continue
        if kind == "emo":
            if not _WORDISH_RE.search(text, start, m.start()):
                continue
        elif not _ends(text, m, caseless, kind):
            continue
        _emit(text, start, m.end(), out)
        start = m.end()
    _emit(text, start, len(text), out)
    return out


def _emit(text: str, start: int, end: int, out: list[Span]) -> None:
    """Append the stripped ``text[start:end]``; stray punctuation joins the sentence before it."""
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped:
        return
    a = start + len(chunk) - len(chunk.lstrip())
    b = a + len(stripped)
    if out and not _WORDISH_RE.search(stripped) and "\n" not in text[out[-1].end : a]:
        prev = out[-1]
        out[-1] = Span(text[prev.start : b], prev.start, b)
        return
    out.append(Span(stripped, a, b))


SPLITTERS: dict[str, Callable[[str], list[Span]]] = {"smart": split_smart, "mastra": split_mastra}
SPLITTER_LABELS: dict[str, str] = {"smart": "Smart", "mastra": "Mastra's regex"}  #: how pages name them
DEFAULT_SPLITTER = next(iter(SPLITTERS))  #: the splitter used when none is named: "smart"


def get_splitter(name: str) -> Callable[[str], list[Span]]:
    """Return the splitter called ``name`` ("smart" or "mastra")."""
    if not isinstance(name, str) or name not in SPLITTERS:
        raise InputError(f"splitter must be one of {sorted(SPLITTERS)}; got {name!r}.")
    return SPLITTERS[name]


def get_sentence_texts(name: str) -> Callable[[str], list[str]]:
    """The splitter ``name`` as a function returning just the sentences' texts (never empty): the batch path.

    >>> get_sentence_texts("mastra")("Great. Thanks!")
    ['Great.', ' Thanks!']
    """
    split = get_splitter(name)
    if split is split_mastra:
        return _mastra_texts  # the same matches, without building spans
    return _smart_texts


def _smart_texts(text: str) -> list[str]:
    texts: list[str] | None = None if _CORE is None else _CORE.texts(text)  # the sentences, without spans
    if texts is None:
        return [span.text for span in _split_smart_python(text)] or [text]
    return texts


def _load_core() -> ModuleType | None:
    """The compiled core, given this module's word sets, or None (with a warning) where it was not built."""
    core = native.load("scoring.text._split_core")
    if core is not None:
        core.configure(
            Span,
            always_join=_ALWAYS_JOIN,
            titles=_TITLES,
            before_number=_BEFORE_NUMBER,
            can_end=_CAN_END,
            german_months=_GERMAN_MONTHS,
            starters=_STARTERS,
        )
    return core


_CORE = _load_core()
