"""Which columns of a table hold the response, the prompt and the reference: by name, else by values.

One guess serves the CLI and the Batch page. Names match loosely: case, spaces, ``_``/``-``,
punctuation and camelCase do not matter, and common names count (``Agent Answer``, ``model_output``,
``user message``, ``Expected Reply``, ``groundTruth``). A name that holds a reference word
(expected, reference, gold, ideal, target, ground truth) is a reference even when it also says
"reply"; a name that says what a column measures (id, #, length, score, time, version ...) is never a
text role. When no name says which column holds the responses, the values decide: a column of numbers
or IDs is never a response, and the one text column left is taken, with a note. A prompt or reference
column with no values at all is passed over, with a note (it would leave every row unscored). Two columns that fit a
role equally well (``Answer A``, ``Answer B``; two columns both called ``output``) are never settled by
their order: the guess says "ambiguous" and names them, and the caller asks the user.

>>> g = guess_columns(["Ticket #", "Prompt", "Agent Answer", "Expected Reply", "Agent Version"])
>>> g.mapping
ColumnMap(output='Agent Answer', input='Prompt', reference='Expected Reply')
>>> g.how, g.mapping.describe()
('name', "output='Agent Answer', input='Prompt', reference='Expected Reply'")
>>> g = guess_columns(["Prompt", "Answer A", "Answer B"])
>>> g.how, g.output.candidates, g.mapping.output
('ambiguous', ('Answer A', 'Answer B'), None)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from scoring.errors import InputError

__all__ = ["HOW", "ROLE_LABELS", "ColumnGuess", "ColumnMap", "RoleGuess", "guess_columns", "looks_like"]

Role = Literal["output", "input", "reference"]
How = Literal["given", "name", "values", "ambiguous", "none"]
#: How a role's column was decided: given by the caller, by its name, by its values; or not decided.
HOW: dict[str, str] = {
    "given": "chosen by you",
    "name": "by its name",
    "values": "by its values",
    "ambiguous": "ambiguous: choose one",
    "none": "none found",
}
#: The roles as the CLI and the page name them. The reference (expected answer) is "reference" everywhere in the
#: package; ``ground_truth`` is Mastra's keyword of ``run(...)`` and, here, an old name still read (``OLD_ROLES``).
ROLE_LABELS: dict[str, str] = {"output": "output", "input": "input", "reference": "reference"}
#: Old role names still accepted: ``ColumnMap(ground_truth=...)``, ``guess.role("ground_truth")``.
OLD_ROLES: dict[str, str] = {"ground_truth": "reference"}


@dataclass(frozen=True, slots=True, init=False)
class ColumnMap:
    """Which columns hold the response (``output``), the prompt (``input``) and the reference."""

    output: str | None
    input: str | None = None
    reference: str | None = None

    def __init__(
        self, output: str | None, input: str | None = None, reference: str | None = None, *,  # noqa: A002
        ground_truth: str | None = None,
    ) -> None:  # fmt: skip
        """``ground_truth=`` is the reference's old name, still accepted."""
        if ground_truth is not None and reference not in (None, ground_truth):
            raise InputError(f"reference {reference!r} and ground_truth {ground_truth!r} name the reference twice: "
                             "give it once, as reference=.")  # fmt: skip
        object.__setattr__(self, "output", output)
        object.__setattr__(self, "input", input)
        object.__setattr__(self, "reference", reference if reference is not None else ground_truth)

    @property
    def ground_truth(self) -> str | None:
        """The reference column by its old name (read only)."""
        return self.reference

    def describe(self) -> str:
        """Return the mapping as one line, e.g. ``output='Answer', input='Prompt', reference=None``."""
        roles = (("output", self.output), ("input", self.input), ("reference", self.reference))
        return ", ".join(f"{label}={column!r}" for label, column in roles)

    def in_words(self) -> str:
        """Return the mapping for people (the CLI keeps :meth:`describe`).

        >>> ColumnMap("Answer", "Prompt").in_words()
        "replies from 'Answer', inputs from 'Prompt', no reference column"
        """
        roles = (("replies", self.output), ("inputs", self.input), ("references", self.ground_truth))
        found = [f"{label} from {column!r}" for label, column in roles if column is not None]
        missing = [f"no {label[:-1]} column" for label, column in roles if column is None]
        return ", ".join(found + missing)


@dataclass(frozen=True, slots=True)
class RoleGuess:
    """One role's guess: the column (None when undecided), how it was decided, and the tied columns."""

    column: str | None
    how: How
    candidates: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True, slots=True)
class ColumnGuess:
    """The guess for every role; ``how`` is how the response column was decided."""

    output: RoleGuess
    input: RoleGuess
    reference: RoleGuess

    @property
    def ground_truth(self) -> RoleGuess:
        """The reference's guess by its old name (read only)."""
        return self.reference

    @property
    def mapping(self) -> ColumnMap:
        return ColumnMap(self.output.column, self.input.column, self.reference.column)

    @property
    def how(self) -> How:
        return self.output.how

    def role(self, name: str) -> RoleGuess:
        """The guess for ``name`` ("output", "input" or "reference"; "ground_truth", the old name, too)."""
        name = OLD_ROLES.get(name, name)
        if name not in ROLE_LABELS:
            raise InputError(f"role must be one of {sorted(ROLE_LABELS)}; got {name!r}.")
        guess: RoleGuess = getattr(self, name)
        return guess

    def settled(self, name: str) -> bool:
        """Whether the guess for ``name`` can be used without asking: not ambiguous, and for the output a column.

        The one answer to "is the guessed column settled?" for the CLI, the batch runner and the Batch page.

        >>> guess = guess_columns(["Answer A", "Answer B", "prompt"])
        >>> guess.settled("output"), guess.settled("input"), guess.settled("reference")
        (False, True, True)
        """
        found = self.role(name)
        return found.how != "ambiguous" and (OLD_ROLES.get(name, name) != "output" or found.column is not None)

    def notes(self) -> list[str]:
        """Plain sentences on every role that was not simply found by its name."""
        return [g.note for g in (self.output, self.input, self.reference) if g.note]


# --- names -----------------------------------------------------------------------------------------------

_OUTPUT = frozenset(
    "answer answers reply replies response responses completion completions output outputs generated generation "
    "generations prediction predictions".split()
)
_INPUT = frozenset("input inputs prompt prompts question questions query queries instruction instructions".split())
_REFERENCE = frozenset(
    "expected reference references ref gold golden ideal target targets truth groundtruth correct".split()
)
#: Words that alone only hint at a role (a column called "text" is the response if nothing says more).
_WEAK_OUTPUT = frozenset("text message content assistant bot chatbot".split())
_WEAK_INPUT = frozenset("user customer human".split())
#: Words that may stand next to a role word without making the name less clear ("Agent Answer").
_QUALIFIERS = frozenset("agent bot chatbot assistant model llm ai final the text content message ground".split())
#: Words saying the column measures or labels something: never a text role ("response_time", "Ticket #").
_METADATA = frozenset(
    "id ids uuid guid key idx index no num number nr time timestamp date datetime day created updated at length "
    "len chars characters count tokens token score scores rating grade version status type category categories "
    "lang language latency ms seconds duration cost name email url link flag label tag tags".split()
)


def _words(name: str) -> list[str]:
    """Split a column name into lower-case words: camelCase, ``_``, ``-``, spaces and punctuation apart."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name.replace("#", " number "))
    return [w for w in re.split(r"[^0-9a-z]+", spaced.lower()) if w]


def _name_role(name: str) -> tuple[Role, int] | None:
    """Return the role a name points to and how clearly (3 clear, 2 with other words, 1 a hint), or None."""
    words = _words(name)
    if not words or any(w in _METADATA for w in words):
        return None
    joined = "".join(words)
    if "groundtruth" in joined or any(w in _REFERENCE for w in words):
        role: Role = "reference"
        strong = {w for w in words if w in _REFERENCE or w in _OUTPUT}
    else:
        out, inp = [w for w in words if w in _OUTPUT], [w for w in words if w in _INPUT]
        if out and inp:  # "question_answer": a pair, not one role
            return None
        if out or inp:
            role, strong = ("output" if out else "input"), set(out or inp)
        elif any(w in _WEAK_INPUT for w in words):  # "user message": the user's side
            return "input", 1
        elif any(w in _WEAK_OUTPUT for w in words):
            return "output", 1
        else:
            return None
    rest = [w for w in words if w not in strong and w not in _QUALIFIERS and w not in _WEAK_INPUT]
    return role, 2 if rest else 3


# --- values ----------------------------------------------------------------------------------------------

_SAMPLE = 200
#: Characters of a cell the guess looks at: words and lengths are plain by then, and a 45 MB cell would cost
#: 1.4 GB of word lists. A longer cell is text, never a number or an ID.
_PREFIX = 1_000
_ID_LIKE = re.compile(r"[\w.:/#+-]*\d[\w.:/#+-]*")
_NUMBER = re.compile(r"[-+]?(\d[\d,_ ]*)?\.?\d+([eE][-+]?\d+)?%?")
Kind = Literal["empty", "number", "id", "label", "text"]


def looks_like(values: pd.Series) -> Kind:
    """Say what a column holds, from its first non-missing values: numbers, IDs, short labels or text.

    Each value is looked at through its first 1,000 characters (a longer one is text).

    A value is an ID when it is one token holding a digit (``T-1001``, ``a1b2``, a date). A column is
    text when at least half its values have two or more words, or they average 20 characters or more.

    >>> looks_like(pd.Series([1, 2, 3])), looks_like(pd.Series(["T-1", "T-2"])), looks_like(pd.Series(["Hi there"]))
    ('number', 'id', 'text')
    """
    if pd.api.types.is_bool_dtype(values) or pd.api.types.is_datetime64_any_dtype(values):
        return "id"
    if pd.api.types.is_numeric_dtype(values):
        return "number" if values.notna().any() else "empty"
    sample = [v for v in values.head(_SAMPLE * 5).tolist() if not _missing(v)][:_SAMPLE]
    if not sample:
        return "empty"
    long = sum(isinstance(v, str) and len(v) > _PREFIX for v in sample)
    texts = [v[:_PREFIX].strip() if isinstance(v, str) else v for v in sample]
    if not long and all(_is_number(v) for v in texts):
        return "number"
    strings = [v for v in texts if isinstance(v, str)]
    if len(strings) < len(texts):  # dicts, lists, mixed objects: not a column of plain texts
        return "label"
    short = [v for v in strings if len(v) < _PREFIX]
    if sum(bool(_ID_LIKE.fullmatch(v)) or _is_number(v) for v in short) >= 0.9 * len(strings):
        return "id"
    worded = sum(len(re.findall(r"[^\W\d_]{2,}", v)) >= 2 for v in strings)
    if worded >= 0.5 * len(strings) or sum(map(len, strings)) >= 20 * len(strings):
        return "text"
    return "label"


def _is_number(value: object) -> bool:
    if isinstance(value, str):
        return bool(_NUMBER.fullmatch(value))
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


# --- the guess -------------------------------------------------------------------------------------------


def _base_name(name: str, names: list[str]) -> str:
    """The header a reader renamed to keep apart (pandas reads ``a,a`` as ``a``, ``a.1``); else ``name``."""
    base, dot, number = name.rpartition(".")
    return base if dot and number.isdigit() and base in names else name


def _by_name(names: list[str]) -> dict[Role, list[tuple[int, str]]]:
    """Each role's columns by name, with how clearly; a renamed duplicate counts as its original name."""
    found: dict[Role, list[tuple[int, str]]] = {"output": [], "input": [], "reference": []}
    for name in names:
        if (hit := _name_role(_base_name(name, names))) is not None:
            found[hit[0]].append((hit[1], name))
    return found


def _not_text(names: list[str], kinds: dict[str, Kind]) -> str:
    """Why columns named for a role were passed over: numbers or IDs, or (input, reference) no values at all."""
    parts = []
    for empty in (False, True):
        group = [n for n in dict.fromkeys(names) if (kinds.get(n) == "empty") == empty]
        if group:
            shown, one = ", ".join(repr(n) for n in group), len(group) == 1
            parts.append(f"{shown} {'is' if one else 'are'} empty" if empty else
                         f"{shown} {'holds' if one else 'hold'} numbers or IDs, not text")  # fmt: skip
    return "; ".join(parts)


def _settle(role: Role, ranked: list[tuple[int, str]], kinds: dict[str, Kind]) -> tuple[RoleGuess, list[str]]:
    """Pick the clearest name for ``role``; a tie, or a name used twice, is ambiguous.

    Returns the guess and the names passed over because their values are numbers or IDs.
    """
    label = ROLE_LABELS[role]
    # a response may be missing in every row (each row then says so); a prompt or reference never read is no role
    unusable = ("number", "id") if role == "output" else ("number", "id", "empty")
    vetoed = [n for _, n in ranked if kinds.get(n) in unusable]
    usable = [(tier, n) for tier, n in ranked if n not in vetoed]
    why = f" ({_not_text(vetoed, kinds)})" if vetoed else ""
    if not usable:
        return RoleGuess(None, "none", note=f"{label}: none{why}." if vetoed else ""), vetoed
    best = max(tier for tier, _ in usable)
    tied = [n for tier, n in usable if tier == best]
    if len(tied) > 1:
        shown = " or ".join(repr(n) for n in dict.fromkeys(tied))
        same = len({_base_name(n, tied) for n in tied}) < len(tied)
        twice = " (the file names the same column more than once)" if same else ""
        return RoleGuess(None, "ambiguous", tuple(tied), f"{label}: {shown}{twice}? Choose one."), vetoed
    return RoleGuess(tied[0], "name", note=f"{label}: {tied[0]!r}{why}." if vetoed else ""), vetoed


def guess_columns(table: pd.DataFrame | Sequence[object]) -> ColumnGuess:
    """Guess the output, input and reference columns of ``table`` (a DataFrame, or just its column names).

    Each role is decided by name where a name says it; the output, when no name says it, by the values
    (given a DataFrame). No column ever gets two roles, and no role falls back to the first column.
    """
    names = [str(c) for c in (table.columns if isinstance(table, pd.DataFrame) else table)]
    kinds: dict[str, Kind] = {}
    if isinstance(table, pd.DataFrame) and len(table):  # no rows, no evidence: names only
        for position, name in enumerate(names):
            kinds.setdefault(name, looks_like(table.iloc[:, position]))
    found = _by_name(names)
    output, vetoed = _settle("output", found["output"], kinds)
    input_, _ = _settle("input", found["input"], kinds)
    reference, _ = _settle("reference", found["reference"], kinds)
    if output.how == "none":
        taken = {g.column for g in (input_, reference)} | {*input_.candidates, *reference.candidates}
        free = [n for n in names if n not in taken]
        seen = isinstance(table, pd.DataFrame) and len(table) > 0
        output = _by_values(free, kinds, _not_text(vetoed, kinds), seen=seen)
    return ColumnGuess(output, input_, reference)


def _by_values(free: list[str], kinds: dict[str, Kind], vetoed: str, *, seen: bool) -> RoleGuess:
    """The output by what the columns no other role took hold: the one text column."""
    named = f"{vetoed}; no other column" if vetoed else "no column"
    named += " is named like the responses"
    if not seen:
        return RoleGuess(None, "none", tuple(free), f"output: {named}. Choose one.")
    text = [n for n in free if kinds.get(n) == "text"]
    if len(text) == 1 and free.count(text[0]) == 1:
        return RoleGuess(text[0], "values", note=f"output: {text[0]!r}, the only column holding text ({named}).")
    if len(text) > 1:
        shown = " and ".join(repr(n) for n in dict.fromkeys(text))
        return RoleGuess(None, "ambiguous", tuple(text), f"output: {named}, and {shown} hold text. Choose one.")
    return RoleGuess(None, "none", tuple(free), f"output: {named}, and none holds text (numbers, IDs or short "
                     "labels only). Choose one.")  # fmt: skip
