"""The literal prefilter never rules out a pattern that matches: checked against Python's re on random patterns."""

from __future__ import annotations

import re
import string
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scoring.text import literals
from scoring.text.literals import LiteralIndex, fold, parse_pattern, required_literals

_ALL_CHARS = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


def test_fold_maps_every_character_ignorecase_matches_to_an_ascii_letter_onto_that_letter() -> None:
    letters = re.compile(f"[{string.ascii_letters}]", re.IGNORECASE).findall(_ALL_CHARS)
    assert len(letters) > 52  # İ, ı, K (Kelvin), ſ match too
    for char in letters:
        matched = [x for x in string.ascii_lowercase if re.fullmatch(x, char, re.IGNORECASE)]
        assert matched == [fold(char)] == [fold(f"a{char}")[1:]], (char, matched)


def test_other_ascii_characters_match_only_themselves_ignoring_case() -> None:
    others = "".join(c for c in string.printable if c not in string.ascii_letters)
    found = re.compile(f"[{re.escape(others)}]", re.IGNORECASE).findall(_ALL_CHARS)
    assert sorted(found) == sorted(others)


@pytest.mark.parametrize(
    ("pattern", "needs"),
    [
        (r"\bstop\s+(?:whining|crying)\b", [{"crying", "whining"}, {"stop"}]),
        (r"idiots?(?!-?proof)", [{"idiot"}]),
        (r"\b(?:don't|do\s+not)\s+have", [{"have"}, {"do"}, {"n't", "not"}]),  # the parser factors "do" out
        (r"(?:dead|done\s+for)\b", [{"dead", "done"}, {"ead", "for"}, {"ead", "one"}]),  # "d" joined to both
        (r"a.b", [{"a"}, {"b"}]),
        (r"\w+|x", []),  # one alternative has no literal
        (r"(?:ab)?c", [{"c"}]),
    ],
)
def test_required_literals_of_small_patterns(pattern: str, needs: list[set[str]]) -> None:
    found = required_literals(re.compile(pattern, re.IGNORECASE))
    assert sorted(map(sorted, found)) == sorted(map(sorted, needs))


_LITERALS = ["a", "b", "c", "A", "k", "s", "i", "'", "-", " ", "ab", "abc", "ss", "ki", "bA"]
_ATOMS = st.sampled_from(_LITERALS * 3 + ["[ab]", "[a-c]", "[^a]", r"\w", r"\s", ".", r"\b", "^", "$", "[sz]"])
# Texts made of the same pieces (and the non-ASCII letters IGNORECASE matches to ASCII), so that patterns often match.
TEXTS = st.lists(
    st.sampled_from([*_LITERALS, "B", "K", "S", "I", "x", "\n", "ſ", "\u212a", "İ", "ı"]), max_size=12
).map("".join)


def _combine(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    concat = st.lists(inner, min_size=2, max_size=4).map("".join)
    branch = st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")")
    suffixes = st.sampled_from(["?", "*", "+", "{1,2}", "{2}", "??", "+?", "{0,2}?", "*+", "++"])
    repeat = st.tuples(inner, suffixes).map(lambda t: f"(?:{t[0]}){t[1]}")
    wrappers = st.sampled_from(["(?={})", "(?!{})", "(?<!a){}", "(?-i:{})", "(?i:{})", "({})", "(?>{})"])
    wrapped = st.tuples(wrappers, inner).map(lambda t: t[0].format(t[1]))
    return st.one_of(concat, concat, concat, branch, branch, repeat, wrapped)


PATTERNS = st.recursive(_ATOMS, _combine, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(pattern=PATTERNS, texts=st.lists(TEXTS, min_size=1, max_size=8), ignore_case=st.booleans())
def test_every_match_holds_a_literal_of_every_need(pattern: str, texts: list[str], ignore_case: bool) -> None:
    try:
        compiled = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error:
        assume(False)
        raise
    needs = required_literals(compiled)
    index = LiteralIndex([compiled, re.compile("zzz")])
    for text in texts:
        if compiled.search(text):
            folded = fold(text)
            assert all(any(s in folded for s in need) for need in needs), (pattern, text, needs)
            assert 0 in index.candidates(text), (pattern, text)


def test_index_lists_only_patterns_whose_words_occur() -> None:
    patterns = [re.compile(p, re.IGNORECASE) for p in (r"\bidiot\b", r"shut\s+up", r"\w+")]
    index = LiteralIndex(patterns)
    assert index.candidates("Thanks, that helped.") == [2]
    assert index.candidates("You IDİOT, thanks") == [0, 2]
    assert index.candidates("shut UP") == [1, 2]


@pytest.mark.parametrize(
    ("pattern", "nodes"),
    [
        (r"ab", [("char", "a"), ("char", "b")]),
        (r"[xy]", [("set", ("x", "y"))]),
        (r"[a-z]", [("any",)]),
        (r"[^a]", [("any",)]),
        (r".\w", [("any",), ("any",)]),
        (r"\bx(?=y)(?!z)$", [("empty",), ("char", "x"), ("empty",), ("empty",), ("empty",)]),
        (r"(x|yz)", [("group", [("branch", [[("char", "x")], [("char", "y"), ("char", "z")]])])]),
        (r"x{2,3}?", [("repeat", 2, 3, [("char", "x")])]),
        (r"x{0,5}+", [("repeat", 0, 5, [("char", "x")])]),
        (r"(?>ab)", [("any",)]),
        (r"(a)\1", [("group", [("char", "a")]), ("any",)]),
    ],
)
def test_parse_pattern_reads_each_construct_of_cpythons_parser(pattern: str, nodes: list[object]) -> None:
    """Pins how re._parser's tree (private, may change between Python versions) reads in this Python."""
    assert parse_pattern(re.compile(pattern)) == nodes


def test_without_cpythons_parser_every_pattern_stays_a_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(re, "_parser")
    monkeypatch.setitem(sys.modules, "re._parser", None)  # as on a Python without it: importing it fails
    pattern = re.compile(r"\bidiot\b", re.IGNORECASE)
    assert parse_pattern(pattern) is None
    assert required_literals(pattern) == ()
    assert LiteralIndex([pattern]).candidates("Thanks, that helped.") == [0]  # searched, so nothing is missed


def test_an_index_of_patterns_without_literals_lists_them_all() -> None:
    assert LiteralIndex([re.compile(r"\w+"), re.compile(r".")]).candidates("any text") == [0, 1]


def test_a_parse_that_fails_midway_is_treated_as_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(items: object, sre: object) -> list[literals.Node]:
        raise AttributeError("a Python whose parser has other opcodes")

    monkeypatch.setattr(literals, "_nodes", broken)
    assert parse_pattern(re.compile("abc")) is None
