"""The language check's compiled core (scoring/text/_language_core.c) decides as the Python code on ASCII text.

The core answers no letters / English by the fast path / the model. That answer is coarse, so each text is also
checked under probe settings and word sets that make it turn on single words: a noise fragment or an emoticon
the core failed to remove (or removed wrongly) shows up as a word in or out of a probe set.
"""

from __future__ import annotations

from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.engines_vs_humans import DEFAULT_DATA, load
from bench.language import LATIN, load_languages
from scoring import native
from scoring.text import language
from tests.scoring.native_cores import assert_missing_core_warns, required_core

_DEFAULTS = (
    language.ENGLISH_WORD_SHARE,
    language.ENGLISH_MIN_HITS,
    language.ENGLISH_WORD_SHARE_LONG,
    language.ENGLISH_WORD_SHARE_WEAK,
)
# Words that survive only where cleaning leaves a URL, address, tag, inline code or emoticon behind.
_FRAGMENTS = frozenset(
    b"http https www com co org x xd d p o x' dp pp b ex example jane doe code a b c tag user".split()
)
_PLAIN = frozenset(b"the and you thanks great good love bad it's i'm".split())
# (share, min_hits, share_long, share_weak, english, other, weak): the module's rule, then rules that turn on
# single words.
PROBES: list[tuple[float, float, float, float, frozenset[bytes], frozenset[bytes], frozenset[bytes]]] = [
    (*_DEFAULTS, language._ENGLISH_BYTES, language._OTHER_BYTES, language._WEAK_BYTES),
    (2.0, 1, 0.0, 2.0, _FRAGMENTS, frozenset(), frozenset()),  # English iff some fragment word is left
    (2.0, 1, 0.0, 2.0, _PLAIN, _FRAGMENTS, frozenset()),  # ... iff a plain word is left and no fragment word
    (1.0, 10**9, 1.0, 2.0, _PLAIN, frozenset(), frozenset()),  # ... iff every word is a plain word
    (2.0, 10**9, 1.0, 1.0, _PLAIN, frozenset(), _FRAGMENTS),  # ... iff a plain word and the rest fragments
    (2.0, 10**9, 1.0, 0.0, _PLAIN, _FRAGMENTS, frozenset()),  # ... iff a plain word, no fragment (the third path)
    (0.5, 2, 0.25, 0.5, language._ENGLISH_BYTES | _FRAGMENTS, language._OTHER_BYTES, language._WEAK_BYTES),
    (0.0, 0, 0.0, 0.0, frozenset(), frozenset(), frozenset()),  # ... iff there is a word at all
]


def _core() -> ModuleType:
    return required_core(language._CORE)


def _python_decision(stripped: str) -> int:
    """The Python code's answer on a text _strip_noise cleaned, under the module's current settings."""
    if not language._LETTER_RE.search(stripped):
        return language._NO_LETTERS
    return language._ENGLISH if language._looks_english(stripped) else language._MODEL


def _same(*texts: str) -> None:
    """The core's answer is the Python code's for each text, under each probe."""
    core = _core()
    cleaned = [language._strip_noise(t) for t in texts]
    names = (
        "ENGLISH_WORD_SHARE",
        "ENGLISH_MIN_HITS",
        "ENGLISH_WORD_SHARE_LONG",
        "ENGLISH_WORD_SHARE_WEAK",
        "_ENGLISH_BYTES",
        "_OTHER_BYTES",
        "_WEAK_BYTES",
    )
    saved = [getattr(language, name) for name in names]
    try:
        for probe in PROBES:
            for name, value in zip(names, probe, strict=True):
                setattr(language, name, value)
            expected = [_python_decision(c) for c in cleaned]
            got = [core.decide(t, language.MAX_CHARS, *probe) for t in texts]
            wrong = [(t, g, e) for t, g, e in zip(texts, got, expected, strict=True) if g != e]
            assert not wrong, (probe[:4], wrong[:3])
    finally:
        for name, value in zip(names, saved, strict=True):
            setattr(language, name, value)
    assert [language._core_decision(t) for t in texts] == [_python_decision(c) for c in cleaned]  # the module's own


def test_the_core_is_built_and_used_for_ascii_text(monkeypatch: pytest.MonkeyPatch) -> None:
    _core()
    calls: list[str] = []

    def strip(text: str) -> str:
        calls.append(text)
        return text

    monkeypatch.setattr(language, "_strip_noise", strip)
    language.detect_language.cache_clear()
    try:
        assert language.detect_language("Thanks, the refund is on its way! :)") == language.LanguageGuess(
            "en", "English", 1.0
        )
        assert language.detect_language("@anna 100% :) http://x.co") is None
        assert language.english_by_fast_path("Is it you? Thanks!")
        assert calls == []  # ASCII text the fast path decides: the core alone
        assert language.detect_language("Merci beaucoup pour votre aide !").code == "fr"  # type: ignore[union-attr]
        assert not language.english_by_fast_path("naïve café")
        assert calls == ["Merci beaucoup pour votre aide !", "naïve café"]  # the model's text; non-ASCII text
    finally:
        language.detect_language.cache_clear()


def test_a_missing_core_warns_and_the_python_code_gives_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_missing_core_warns(monkeypatch, "scoring.text._language_core", language._load_core)
    texts = [t for _, t in load_languages()[:60]] + ["@x :) 100%", "Thanks, you are great!", "", "   "]
    language.detect_language.cache_clear()
    expected = [(language.detect_language(t), language.english_by_fast_path(t)) for t in texts]
    monkeypatch.setattr(language, "_CORE", None)  # the Python code alone
    language.detect_language.cache_clear()
    try:
        assert [(language.detect_language(t), language.english_by_fast_path(t)) for t in texts] == expected
    finally:
        language.detect_language.cache_clear()


def test_pure_python_turns_the_core_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.PURE_PYTHON_ENV, "1")
    assert language._load_core() is None


def test_the_core_leaves_other_text_and_settings_to_the_python_code() -> None:
    core = _core()
    sets = (language._ENGLISH_BYTES, language._OTHER_BYTES, language._WEAK_BYTES)
    for text in ("naïve", "Thanks 👍", "\x80", "\ud83d", b"bytes", None):
        assert core.decide(text, 2000, *_DEFAULTS, *sets) is None
    assert core.decide("Thanks, you are great", 2000, *_DEFAULTS, *sets) == language._ENGLISH
    assert core.decide("Thanks, you are great", -5, *_DEFAULTS, *sets) is None  # text[:-5] counts from the end
    assert core.decide("Thanks, you are great", 2000.0, *_DEFAULTS, *sets) is None
    assert core.decide("Thanks, you are great", 2000, 0.15, 10**400, 0.08, 0.25, *sets) is None  # no double holds it
    assert core.decide("Thanks, you are great", 2000, "0.15", 3, 0.08, 0.25, *sets) is None  # the Python code raises
    assert core.decide("Thanks, you are great", 2000, *_DEFAULTS, set(sets[0]), *sets[1:]) is None
    assert core.decide("Thanks, you are great", 2000, *_DEFAULTS, *sets[:2], set(sets[2])) is None
    long_word = frozenset({b"a" * 32})
    assert core.decide("a" * 32, 2000, *_DEFAULTS, long_word, frozenset(), frozenset()) is None  # over a slot's size
    assert core.decide("Thanks, you are great", 2000, *_DEFAULTS, *sets) == language._ENGLISH  # sets again
    with pytest.raises(TypeError, match="decide takes 9 arguments"):
        core.decide("x")


def test_the_core_reads_the_modules_current_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "Hate being blamed for other people's sloppy code. Adam Sandler is to Gary Cooper what a gnat is to a "
        "racehorse. Long, but really fun weekend. So happy to be in a fun relationship again."
    )
    _core()
    assert language._core_decision(text) == language._ENGLISH
    monkeypatch.setattr(language, "ENGLISH_MIN_HITS", 10**9)
    assert language._core_decision(text) == language._ENGLISH  # the third fast path
    monkeypatch.setattr(language, "ENGLISH_WORD_SHARE_WEAK", 2.0)
    assert language._core_decision(text) == language._MODEL
    monkeypatch.setattr(language, "_WEAK_BYTES", frozenset({b"hate"} | language._WEAK_BYTES))
    monkeypatch.setattr(language, "ENGLISH_WORD_SHARE_WEAK", 0.25)
    assert (
        language._core_decision("No way to buy it now, sadly enough.") == language._ENGLISH
    )  # "it": 1 hit; 4 of 8 words
    monkeypatch.setattr(language, "_OTHER_BYTES", frozenset({b"buy"}))
    assert language._core_decision("No way to buy it now, sadly enough.") == language._MODEL
    monkeypatch.setattr(language, "MAX_CHARS", 5)  # "Hate ": no English word
    monkeypatch.setattr(language, "ENGLISH_MIN_HITS", 3)
    assert language._core_decision(text) == language._MODEL
    monkeypatch.setattr(language, "_ENGLISH_BYTES", frozenset({b"hate"}))
    assert language._core_decision(text) == language._ENGLISH


_WORDS = sorted(
    w.decode() for w in language._ENGLISH_BYTES | language._OTHER_BYTES | language._WEAK_BYTES | _FRAGMENTS | _PLAIN
)
_EMOTICONS = (
    ":) :( ;) ;-P =D 8O 8) <3 x3 xD XD xd :-) :'( ;o) =] 8-) :P :p :3 :/ :\\ :* :| :o :O :0 :-/ :^) :oD :-O0 =)) "
    ":)) :(( :[ :] x( X) 8| ;* :o3 :-- :'' ::) <33 <<3"
).split()
_NOISE = (
    "http://x.co https://example.com/a?b=c http:// https:/x.co www. www.ex.com HTTP://X.CO wwwx.com "
    "jane.doe@example.com a@b a@b.c a@b. @b.c x+y@z-w.co.uk .@a.b -@- @user @ # #tag #_ @@x ##y "
    "`code` `a b` `` ` `x\ny` a`b`c"
).split()
_PIECE = st.sampled_from(
    [
        *_EMOTICONS,
        *_NOISE,
        *" \t\n\r\v\f\x1c\x1d\x1e\x1f",
        *"@#`:;=<3xX8o-^'()DPpO0|/\\*[]._+!?,",
        "  ",
        "THE",
        "YOU ARE",
        "I'M",
        "Thanks",
        "x_y",
        "a1",
        "1",
    ]
)
_ADVERSARIAL = st.lists(
    st.one_of(_PIECE, st.sampled_from(_WORDS), st.text(st.characters(max_codepoint=127), max_size=3)), max_size=40
).map("".join)


# Cases random text rarely hits: emoticons the gate lets through ("<3" opens it; a URL's ":" removed first closes
# it), inline code cut by a line break, a mouth that must give back characters, addresses and URLs in words.
TRICKY = [
    "xD <3", "XD x3 8O", "<3xD", "a<3 xD", "http://x.co xD", "see www.x.co/:) xd", "@a:b xD", "#x;y XD",
    "`x\ny`", "`a b` c", "`open", "x`y`z", "``", ":DP(z", ":DP(9", ":DP(", ":)(a", ":-PD(z", "=pO(_", ":oD",
    "xo)", "8-)a", ":oo)", ":'(", ":^D", "x:)", ":)x", "=Dx =D", "8)", "8)8)", "x3x3 x3", "jane.doe@example.com:)",
    "a@b.c:D",
    "a.b@c.d.e", "a@b-c.d", "-@x.y", "x@y", "@x.y", "a@@b.c", "https://", "http://\x1cx", "www.\x1fxd",
    "\x1c:)\x1d xD\x1e", "THE YOU ARE :)", "http://a.b http://c.d you", "#you #the and", "@the thanks",
]  # fmt: skip


@pytest.mark.parametrize("text", TRICKY)
def test_the_core_decides_as_the_python_code_on_tricky_cases(text: str) -> None:
    _same(text, f"the {text} the", f"{text} thanks", f"{text}{text}")


@settings(max_examples=600, deadline=None, derandomize=True)
@given(text=_ADVERSARIAL)
def test_the_core_decides_as_the_python_code_on_adversarial_ascii(text: str) -> None:
    _same(text, text.upper())


@settings(max_examples=500, deadline=None, derandomize=True)
@given(text=st.text(st.characters(max_codepoint=127), max_size=200))
def test_the_core_decides_as_the_python_code_on_any_ascii(text: str) -> None:
    _same(text)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(pieces=st.lists(st.one_of(_PIECE, st.sampled_from(_WORDS)), min_size=1, max_size=40), times=st.integers(1, 400))
def test_the_core_decides_as_the_python_code_past_max_chars(pieces: list[str], times: int) -> None:
    text = " ".join(pieces) * times  # often longer than MAX_CHARS, cut inside a URL, address or emoticon
    _same(text, text[language.MAX_CHARS - 40 :])


@pytest.mark.parametrize(
    "text",
    ["a" * 5000 + "@b.c", "a." * 3000 + "@x", "`" + "x" * 3000, ":" + "D" * 3000 + "a", "http://" + "x" * 4000, ""],
    ids=["local-part", "dotted", "open-backtick", "long-mouth", "long-url", "empty"],
)
def test_the_core_decides_as_the_python_code_on_long_runs(text: str) -> None:
    _same(text)


def test_the_core_decides_as_the_python_code_past_its_stack_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(language, "MAX_CHARS", 50_000)  # texts over 4,096 characters: a buffer on the heap
    text = "@x http://a.b :) xD the " * 300 + "mais oui merci beaucoup " * 1_000
    _same(text, text.replace(":)", ""), "Merci " * 5_000 + "thanks you are", "a@b.c `x` " * 2_000)


def _real_texts() -> list[str]:
    texts = [t for _, t in load_languages() + load_languages(LATIN)]
    if DEFAULT_DATA.exists():
        texts += load(DEFAULT_DATA)["text"].tolist()
    return texts


def test_the_core_decides_as_the_python_code_on_real_texts() -> None:
    texts = _real_texts()
    ascii_texts = [t for t in texts if t.isascii()]
    ascii_texts += [t.encode("ascii", "ignore").decode() for t in texts if not t.isascii()]
    _same(*ascii_texts)
    assert len(ascii_texts) == len(texts)  # every text checked, as written or without its non-ASCII letters
