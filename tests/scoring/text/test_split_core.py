"""The smart splitter's compiled core (scoring/text/_split_core.c) gives the Python code's spans on ASCII text."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.splitter import GOLD_PATH, HELDOUT_PATH, load_gold
from scoring import native
from scoring.text import splitters as module
from scoring.text.splitters import Span, get_sentence_texts, split_mastra, split_smart
from tests.scoring.native_cores import assert_missing_core_warns, required_core

DATA = Path(__file__).parent.parent / "data"
REAL = [i.text for i in load_gold(GOLD_PATH) + load_gold(HELDOUT_PATH)] + [
    (DATA / name).read_text(encoding="utf-8") for name in ("sentences.txt", "sentences_heldout.txt")
]


def _core() -> ModuleType:
    return required_core(module._CORE)


def _same(text: str) -> None:
    core = _core()
    python = module._split_smart_python(text)
    assert core.spans(text) == python
    assert core.texts(text) == ([s.text for s in python] or [text])


def test_the_core_is_built_and_used_for_ascii_text(monkeypatch: pytest.MonkeyPatch) -> None:
    _core()
    calls: list[str] = []

    def python(text: str) -> list[Span]:
        calls.append(text)
        return [Span(text, 0, len(text))]

    monkeypatch.setattr(module, "_split_smart_python", python)
    assert [s.text for s in split_smart("Dr. Smith paid $4.50. Great!")] == ["Dr. Smith paid $4.50.", "Great!"]
    assert get_sentence_texts("smart")("Fine. Thanks!") == ["Fine.", "Thanks!"]
    assert get_sentence_texts("smart")("  ") == ["  "]
    assert calls == []  # ASCII: the core
    split_smart("Great… thanks")
    get_sentence_texts("smart")("“Hi.” Yes")
    assert calls == ["Great… thanks", "“Hi.” Yes"]  # anything else: the Python code


def test_a_missing_core_warns_and_the_python_code_gives_the_same_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_missing_core_warns(monkeypatch, "scoring.text._split_core", module._load_core)
    texts = [*REAL[:40], "Dr. Smith paid $4.50 at 3 p.m. today. Great!\n- fast\n- cheap", "", "服务很好。谢谢！"]
    expected = [(split_smart(t), get_sentence_texts("smart")(t)) for t in texts]
    monkeypatch.setattr(module, "_CORE", None)  # the Python code alone
    assert [(split_smart(t), get_sentence_texts("smart")(t)) for t in texts] == expected


def test_pure_python_turns_the_core_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.PURE_PYTHON_ENV, "1")
    assert module._load_core() is None


def test_the_core_leaves_other_text_to_the_python_code() -> None:
    core = _core()
    for text in ("naïve. Yes", "Wait… what", "OK 👍", "Line\u2028two", "Ünd. So", "\x85", "\x7f\x80"):
        assert core.spans(text) is None and core.texts(text) is None
    assert core.spans(b"bytes.") is None and core.texts(None) is None
    with pytest.raises(TypeError):
        split_smart(b"bytes.")  # type: ignore[arg-type]  # the Python code's error, as before the core


def test_configure_rejects_a_class_without_the_span_slots() -> None:
    core = _core()
    sets = {"always_join": set(), "titles": set(), "before_number": set(), "can_end": set()}
    with pytest.raises(TypeError, match="span must be a slotted class with a text slot"):
        core.configure(dict, **sets, german_months=set(), starters=set())
    with pytest.raises(TypeError, match="word sets must hold str"):
        core.configure(Span, **sets, german_months={1}, starters=set())
    with pytest.raises(ValueError, match="words must have 1 to 31 characters"):
        core.configure(Span, **sets, german_months={"x" * 32}, starters=set())
    _same("Dr. Smith went home. No. 5 is here. Fine.")  # a failed call keeps the words configured before


@pytest.mark.parametrize("text", REAL, ids=range(len(REAL)))
def test_the_core_equals_the_python_code_on_real_texts(text: str) -> None:
    for variant in (text, text.encode("ascii", "ignore").decode(), text.replace("\n", "\r\n"), text.lower()):
        if variant.isascii():
            _same(variant)
            for line in variant.splitlines():
                _same(line)


@pytest.mark.parametrize(
    "text",
    [
        "." * 50_000 + "x",
        " " * 50_000 + "x. Y",
        "!?" * 20_000 + " ok",
        "a." * 30_000,
        '."' + ")" * 30_000 + "x. A",
        "e.g. " * 10_000,
        "```\n" * 10_000 + "a\nb",
        "~~~ py\nx = 1.\ny\n" * 3_000,
        "word " * 20_000 + ".",
        "\r\n" * 20_000 + "x\r\ny",
        "\x1c \x1d\x1e\x1f\v\f" * 5_000 + "a",
        "- item one\n- item two\nwrapped line\n1. first\nii. second\n" * 2_000,
        "Hello world. Dr. Smith paid $4.50... wow!! Then\n- item\n" * 2_000,
    ],
    ids=[
        "dots",
        "spaces",
        "terminals",
        "periods",
        "closers",
        "abbreviations",
        "fences",
        "tilde-fences",
        "words",
        "crlf",
        "separators",
        "lists",
        "mixed",
    ],
)
def test_the_core_equals_the_python_code_on_long_runs(text: str) -> None:
    _same(text)


# Every word of every set, in three cases, and the shapes the rules look at.
_SET_WORDS = sorted(
    v
    for w in module._ALWAYS_JOIN
    | module._TITLES
    | module._BEFORE_NUMBER
    | module._CAN_END
    | module._STARTERS
    | module._GERMAN_MONTHS
    for v in (w, w.capitalize(), w.upper())
    if w.isascii()
)
_PIECE = st.sampled_from(
    (
        ". |.|!|?|?!|!!|...|..|. . .| |  |\n|\n\n|\r\n|\r|\t|\v|\f|\x1c|\x1d|\x1e|\x1f|\"|'|)|]|}|*|**|_|`|```|~~~"
        "|(|[|{|- |* |+ |> |1. |12) |1234. |a) |B. |iv. |XII.|  3. |\n  a. |\t-\t|3.50|$4.50|v1.2.3|https://a.b/c?d=1.|x.y"
        "|U.S.|e.g.|J.|J. R. R.|p.m.|a.b.c|3. Juni|3. juni|am 3. Mai|No. 5|no. 5|it's|It's|I|i|We|Hello|hello|OK"
        "|:|;|,|1|12|123|a|Z|x_y|'quoted'|\"Ready?\" she|(see Fig. 2)|etc.)"
    ).split("|")
)
_ASCII = st.characters(max_codepoint=127)
_ADVERSARIAL = st.lists(st.one_of(_PIECE, st.sampled_from(_SET_WORDS), st.text(_ASCII, max_size=3)), max_size=40).map(
    "".join
)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(text=_ADVERSARIAL)
def test_the_core_equals_the_python_code_on_adversarial_ascii(text: str) -> None:
    _same(text)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(text=st.text(_ASCII, max_size=300))
def test_the_core_equals_the_python_code_on_any_ascii(text: str) -> None:
    _same(text)


def test_the_core_equals_the_python_code_on_every_short_string() -> None:
    alphabet = 'a.A1 \n\r!")`-'
    for n in range(5):
        for chars in itertools.product(alphabet, repeat=n):
            _same("".join(chars))


_MASTRA = re.compile(r"[^.!?]+[.!?]+")  # @mastra/evals' own regex, searched over the whole text


def _same_as_mastras_regex(text: str) -> None:
    expected = [Span(m.group(), m.start(), m.end()) for m in _MASTRA.finditer(text)]
    core = _core()
    assert core.mastra_spans(text) == expected
    assert core.mastra_texts(text) == [s.text for s in expected]
    assert split_mastra(text) == (expected or [Span(text, 0, len(text))])
    assert get_sentence_texts("mastra")(text) == ([s.text for s in expected] or [text])


@settings(max_examples=800, deadline=None, derandomize=True)
@given(text=st.text(st.sampled_from("ab .!?\n\t…é中😀\ud800"), max_size=40) | st.text(max_size=200))
def test_the_core_splits_as_mastras_regex_on_any_text(text: str) -> None:
    _same_as_mastras_regex(text)


@pytest.mark.parametrize("text", REAL[:60], ids=range(60))
def test_the_core_splits_real_texts_as_mastras_regex(text: str) -> None:
    _same_as_mastras_regex(text)


def test_the_mastra_split_without_the_core_is_the_regexs(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ["It was great. Thanks!", "no terminal", "", "...", "Wow!!! Really?? ok.", "服务很好。谢谢!"]
    expected = [(split_mastra(t), get_sentence_texts("mastra")(t)) for t in texts]
    with pytest.raises(TypeError, match="text must be a str; got bytes"):
        _core().mastra_spans(b"a.")  # type: ignore[arg-type]
    monkeypatch.setattr(module, "_CORE", None)
    assert [(split_mastra(t), get_sentence_texts("mastra")(t)) for t in texts] == expected
