"""Literal prefilters for regular expressions: strings every match must contain, and an index over many patterns.

Searching a few dozen complex case-insensitive patterns costs about 140 µs per sentence, yet almost no sentence
matches any of them. Every match of a pattern contains, for each of its *needs*, one of that need's literals;
a text lacking them cannot match, so :class:`LiteralIndex` names the few patterns worth searching. The needs are
read from the parsed pattern (Python's own ``re`` parser), so they follow the patterns as they are edited.

That parser is CPython's private ``re._parser``: :func:`parse_pattern` is the one place that reads it, turning its
tree into this module's own :data:`Node` tuples. Should a Python version change or drop it, ``parse_pattern``
returns None and every pattern simply stays a candidate (slower, never a missed match).

Literals are compared on :func:`fold` ed text: ``fold(t)`` contains ``fold(literal)`` wherever an IGNORECASE (or a
case-sensitive) pattern's ASCII literal matches ``t``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["LiteralIndex", "Node", "fold", "parse_pattern", "required_literals"]

#: Non-ASCII characters Python's IGNORECASE matching treats as ASCII letters: İ ı -> i, K (Kelvin) -> k, ſ -> s.
_SPECIAL = str.maketrans({"\u0130": "i", "\u0131": "i", "\u212a": "k", "\u017f": "s"})
_CAP = 64  # largest literal set kept when expanding alternatives
# Percent of sentences containing a literal, for literals frequent in English (measured on the VADER ground-truth
# sentences); others are guessed from their length. Used to pick the cheapest first test: speed only, never results.
_PERCENT = {
    word: float(share)
    for word, share in (item.split(":") for item in """the:54 ing:39 and:34 for:18 that:16 all:14 her:14 with:11
    one:11 out:11 you:10 are:10 this:10 ill:9 not:9 men:8 can:6 n't:6 have:6 our:6 end:6 here:6 has:6 some:5 like:5
    from:5 was:5 any:5 time:5 about:4 get:4 more:4 ead:4 very:4 who:4 just:4 come:4 own:4 over:4 day:4 what:4 will:4
    make:3 there:3 even:3 work:3 too:3 they:3 less:3 would:3 old:3 real:3 she:3 your:2 only:2 year:2 long:2 look:2
    them:2 every:2 take:2 die:2 call:2 self:2 read:2""".split())
}  # fmt: skip


Needs = tuple[frozenset[str], ...]
Info = tuple[frozenset[str] | None, frozenset[str], frozenset[str], Needs]
#: A parsed pattern's node: ``("char", c)``, ``("set", chars)`` (a class of literal characters), ``("empty",)``
#: (zero width: anchors, lookarounds), ``("group", nodes)``, ``("branch", [nodes, ...])``,
#: ``("repeat", low, high, nodes)``, or ``("any",)`` (anything else: ., \w, ranges, negations, references).
Node = tuple[Any, ...]


def parse_pattern(pattern: re.Pattern[str]) -> list[Node] | None:
    """Return ``pattern`` as a list of :data:`Node` tuples, or None when this Python's parser cannot be read.

    >>> parse_pattern(re.compile(r"a(b|cd)+\\b[xy]"))  # doctest: +NORMALIZE_WHITESPACE
    [('char', 'a'), ('repeat', 1, 4294967295, [('group', [('branch', [[('char', 'b')],
     [('char', 'c'), ('char', 'd')]])])]), ('empty',), ('set', ('x', 'y'))]
    """
    try:  # CPython's private regex parser (re._parser since 3.11); read nowhere else
        from re import _constants as sre  # type: ignore[attr-defined]
        from re import _parser as sre_parse  # type: ignore[attr-defined]

        return _nodes(sre_parse.parse(pattern.pattern, pattern.flags), sre)
    except (ImportError, AttributeError, TypeError, ValueError, IndexError):
        return None


def _nodes(items: Any, sre: Any) -> list[Node]:
    out: list[Node] = []
    for op, av in items:
        if op is sre.LITERAL:
            out.append(("char", chr(av)))
        elif op is sre.IN and all(o is sre.LITERAL for o, _ in av):
            out.append(("set", tuple(chr(a) for _, a in av)))
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            out.append(("empty",))
        elif op is sre.SUBPATTERN:
            out.append(("group", _nodes(av[3], sre)))
        elif op is sre.BRANCH:
            out.append(("branch", [_nodes(b, sre) for b in av[1]]))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            out.append(("repeat", int(av[0]), int(av[1]), _nodes(av[2], sre)))
        else:
            out.append(("any",))
    return out


def fold(text: str) -> str:
    """Lower-case ``text`` after mapping the non-ASCII characters that IGNORECASE matches to ASCII letters.

    >>> fold("You İDIOT")
    'you idiot'
    """
    return text.lower() if text.isascii() else text.translate(_SPECIAL).lower()


def _minimal(strings: frozenset[str]) -> frozenset[str]:
    """Drop strings that contain another one: a text holding the longer one holds the shorter one too."""
    return frozenset(s for s in strings if not any(t != s and t in s for t in strings))


def _product(left: frozenset[str], right: frozenset[str]) -> frozenset[str] | None:
    product = frozenset(a + b for a in left for b in right)
    return product if len(product) <= _CAP else None


_ANY: frozenset[str] = frozenset({""})  # prefixes/suffixes when nothing is known


def _node(node: Node) -> Info:
    """Return what one node can match: (all its strings if few and known, prefixes, suffixes, needs)."""
    kind = node[0]
    if kind == "char":
        char = node[1]
        return (frozenset({char.lower()}), _ANY, _ANY, ()) if char.isascii() else (None, _ANY, _ANY, ())
    if kind == "set" and all(c.isascii() for c in node[1]):
        return frozenset(c.lower() for c in node[1]), _ANY, _ANY, ()
    if kind == "empty":  # zero width: matches the empty string
        return _ANY, _ANY, _ANY, ()
    if kind == "group":
        return _sequence(node[1])
    if kind == "branch":
        return _branch(node[1])
    if kind == "repeat":
        _, low, high, sub = node
        exact, pre, suf, needs = _sequence(sub)
        if high == 0 or (low == 0 and high == 1 and exact is not None):
            return (_ANY if high == 0 else exact | _ANY), _ANY, _ANY, ()  # type: ignore[operator]
        if low == 0:
            return None, _ANY, _ANY, ()
        if exact is not None:  # at least one repetition: one of its strings is there
            pre, suf = exact, exact
            needs = (*needs, exact) if "" not in exact else needs
        return (exact if low == high == 1 else None), pre, suf, needs
    return None, _ANY, _ANY, ()  # any character, a category, a negated literal, a group reference: nothing known


def _union(sets: list[frozenset[str]]) -> frozenset[str]:
    union = frozenset().union(*sets)
    return union if len(union) <= _CAP else _ANY


def _branch(branches: list[list[Node]]) -> Info:
    results = [_sequence(b) for b in branches]
    exact = None
    if all(e is not None for e, _, _, _ in results):
        union = frozenset().union(*(e for e, _, _, _ in results if e is not None))
        exact = union if len(union) <= _CAP else None
    pre, suf = _union([p for _, p, _, _ in results]), _union([s for _, _, s, _ in results])
    best = [_best(r) for r in results]
    needs = (_minimal(frozenset().union(*best)),) if all(best) else ()
    return exact, pre, suf, needs


def _sequence(items: list[Node]) -> Info:
    """Join runs of known strings (and the prefixes/suffixes around them) into literals; collect needs."""
    run, pre = _ANY, None
    needs: list[frozenset[str]] = []
    for item in items:
        exact, first, last, sub_needs = _node(item)
        joined = _product(run, exact if exact is not None else first)
        if exact is not None and joined is not None:
            run = joined
            continue
        needs.extend(sub_needs)
        joined = joined or run
        needs.append(joined)
        pre = joined if pre is None else pre
        run = exact if exact is not None else last
    needs.append(run)
    useful = tuple(dict.fromkeys(_minimal(n) for n in needs if "" not in n))
    return (run, run, run, useful) if pre is None else (None, pre, run, useful)


def _cost(need: frozenset[str]) -> float:
    """About how many sentences in 100 meet a need (smaller: a better first test)."""
    return sum(_PERCENT.get(s) or (50.0 if len(s) <= 2 else 1.0 if len(s) == 3 else 0.3 if len(s) == 4 else 0.1)
               for s in need)  # fmt: skip


def _best(info: Info) -> frozenset[str]:
    exact, pre, suf, needs = info
    options = [*needs, *(_minimal(s) for s in (exact or _ANY, pre, suf) if "" not in s)]
    return min(options, key=_cost, default=frozenset())


def required_literals(pattern: re.Pattern[str]) -> Needs:
    """Return the needs of ``pattern``: every match contains (folded) one literal of each need, cheapest first.

    >>> [sorted(n) for n in required_literals(re.compile(r"\\bstop\\s+(?:whining|crying)\\b", re.IGNORECASE))]
    [['crying', 'whining'], ['stop']]
    """
    nodes = parse_pattern(pattern)
    if nodes is None:  # this Python's parser cannot be read: no need is known, so the pattern is always searched
        return ()
    _, _, _, needs = _sequence(nodes)
    return tuple(sorted(needs, key=_cost))


class LiteralIndex:
    """Which of many patterns may match a text: those whose needs all have a literal in it (no other can match).

    Only the cheapest needs of each pattern are checked (up to ``tests``; a need met by most sentences tells
    little): a weaker test, still never one that drops a pattern that matches.
    """

    def __init__(self, patterns: Sequence[re.Pattern[str]], *, tests: int = 3) -> None:
        self.needs = [_selective(required_literals(p), tests) for p in patterns]
        self._always = frozenset(i for i, needs in enumerate(self.needs) if not needs)
        self._by_key: dict[str, list[int]] = {}
        for i, needs in enumerate(self.needs):
            for literal in needs[0] if needs else ():
                self._by_key.setdefault(literal, []).append(i)
        keys = set(self._by_key)
        # the longest key starting at the first position where one starts (no key: a pattern that never matches)
        self._finder = re.compile(_trie(keys) if keys else "(?!)")
        self._prefixes = {s: [t for t in keys if s.startswith(t)] for s in keys}  # the others starting there

    def candidates(self, text: str) -> list[int]:
        """Return, in order, the indices of the patterns that may match ``text``."""
        folded = fold(text)
        found = self._finder.search(folded)
        if found is None:
            return sorted(self._always)
        hits = set(self._always)
        while found is not None:
            for key in self._prefixes[found.group()]:
                hits.update(self._by_key[key])
            found = self._finder.search(folded, found.start() + 1)
        return [i for i in sorted(hits) if all(any(s in folded for s in need) for need in self.needs[i][1:])]


def _selective(needs: Needs, tests: int) -> Needs:
    """The cheapest ``tests`` needs met by fewer than 1 sentence in 5 (or the cheapest one)."""
    return tuple(n for n in needs if _cost(n) < 20)[:tests] or needs[:1]


def _trie(literals: set[str]) -> str:
    """Return a regex source matching the longest of ``literals`` that starts at a position (a trie of them)."""
    trie: dict[str, Any] = {}
    for literal in literals:
        node = trie
        for char in literal:
            node = node.setdefault(char, {})
        node[""] = {}

    def source(node: dict[str, Any]) -> str:
        options = [re.escape(char) + source(child) for char, child in sorted(node.items()) if char]
        body = options[0] if len(options) == 1 else f"(?:{'|'.join(options)})" if options else ""
        return f"(?:{body})?" if "" in node and body else body

    return source(trie)
