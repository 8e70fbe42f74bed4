"""e5-lite's compiled tokenizer (scoring/text/_e5_lite_core.c) gives the Python tokenizer's tokens, and so its bits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.throughput import source_texts
from scoring.text import e5_lite as module
from scoring.text.e5_lite import META, load_model, model
from scoring.tone.e5_lite import lite_raw, load_lite_head
from tests.scoring.native_cores import assert_missing_core_warns, required_core
from tests.scoring.text.test_e5_lite import TEXTS

EDGES = [
    *TEXTS,
    META,
    META * 3 + " " + META,
    "   ",
    "\u3000\u3000full-width spaces\u3000",  # normalised to spaces, then collapsed
    "ﬁ ligature ① circled ㍿ square",  # replacements of several characters
    "\ud800 lone surrogate \udfff",
    "\U0001f600\U0001f44d astral " + "\U00020000" * 3,
    "tab\tand\r\nnewlines\x00nul",
    "\u00a0\u00a0 non-breaking",
    "한" * 400,  # a word longer than the core's stack buffers
    "x" * 20_000,
]

# Letters, spaces, the metaspace, characters the normalisation maps (full-width, compatibility, NBSP), Hangul, CJK
# and astral characters: each case of the normalisation and of the Viterbi's unknown fallback.
_CHARS = st.text(alphabet="ab ae\u2581\u3000\u00a0ＡｶﬁḈ한글中\U0001f600\ud83d\t.,'!", max_size=40)


def _core() -> object:
    return required_core(module._CORE)


def test_the_core_is_built_and_used() -> None:
    _core()
    tok = model().tokenizer
    assert tok.core is not None
    assert tok.ids("query: I didn't like it") == tok.python_ids("query: I didn't like it")


@pytest.mark.parametrize("text", EDGES)
def test_the_edge_cases_give_the_same_tokens_and_rows(text: str) -> None:
    _core()
    lite = model()
    assert lite.tokenizer.ids(text) == lite.tokenizer.python_ids(text)
    flat, owner = lite.batch_rows([text, text])
    py_flat, py_owner = lite.python_batch_rows([text, text])
    assert np.array_equal(flat, py_flat) and np.array_equal(owner, py_owner)


@settings(max_examples=500, deadline=None)
@given(text=_CHARS)
def test_any_text_gives_the_same_tokens(text: str) -> None:
    _core()
    tok = model().tokenizer
    assert tok.ids(text) == tok.python_ids(text)


def test_real_texts_give_the_same_tokens() -> None:
    _core()
    texts = source_texts()[:3000]
    lite = model()
    flat, owner = lite.batch_rows(texts)
    py_flat, py_owner = lite.python_batch_rows(texts)
    assert np.array_equal(flat, py_flat) and np.array_equal(owner, py_owner)


def test_a_missing_core_warns_and_the_python_code_gives_the_same_score_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_missing_core_warns(monkeypatch, "scoring.text._e5_lite_core", module._load_core)
    texts = [*EDGES[:-1], *source_texts()[:300]]
    head = load_lite_head()
    with_core = lite_raw(head, texts)
    vectors = model().vectors(texts)
    monkeypatch.setattr(module, "_CORE", None)
    python = load_model()  # a model whose tokenizer runs the Python code
    assert python.tokenizer.core is None
    monkeypatch.setattr(module, "model", lambda: python)
    monkeypatch.setattr("scoring.tone.e5_lite.model", lambda: python)
    assert np.array_equal(lite_raw(head, texts), with_core)  # the same bits
    assert np.array_equal(python.vectors(texts), vectors)


def test_bad_arguments_are_refused() -> None:
    core = _core()
    lite = model()
    seg = lite.tokenizer.core
    with pytest.raises(TypeError, match="text must be a str"):
        seg.ids(b"bytes")
    with pytest.raises(TypeError, match="text must be a str"):
        seg.rows(["ok", 3], lite.row_of)
    with pytest.raises(TypeError, match="int64"):
        seg.rows(["ok"], lite.row_of.astype(np.int32))
    with pytest.raises(ValueError, match="one item per piece"):
        seg.rows(["ok"], lite.row_of[:10])
    with pytest.raises(ValueError, match="same length"):
        core.Segmenter(["a", "b"], [0.0], 0, -10.0, {})  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="code points"):
        core.Segmenter(["a", "b"], [0.0, 0.0], 0, -10.0, {-1: "x"})  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="not initialised"):
        core.Segmenter.__new__(core.Segmenter).ids("x")  # type: ignore[attr-defined]
