"""Choose the e5 toxicity defaults' English rule by leaving each blind writer's set out in turn.

    python -m tools.select_toxicity_defaults [--cache DIR] [--top N]

The sixth round of issue 24 chose its English thresholds and the word model's weight with this command, before its
fresh set was written. Random folds of the training sentences had promised far more than the blind sets gave (round
5: 0.88 out of fold, 0.76 fresh): a blind writer words things in ways the project's own sentences do not. So here the
unit left out is a writer's whole set.

- **Held out in turn**: the English sentences of the five sets written blind from the rubric, one per earlier round
  (``tests/scoring/data/toxicity_defaults_dev.csv`` .. ``dev5.csv``, 90 each, 50 toxic). For each, the head, the
  neighbour bank and the word model are retrained on the training data of ``tools.train_e5_toxicity`` without that
  set's sentences, and the set is scored as the engine scores it (head, neighbours' vote, word model, patterns).
- **Constraints**, scored by the model trained on everything: at most ``MAX_POSITIVE`` of the VADER texts people
  rated clearly positive flagged (a margin under the issue's 1%), no courteous support reply of the courtesy sets
  flagged, all 15 seed examples right, pooled precision >= ``MIN_PRECISION`` and each set's >= ``MIN_SET_PRECISION``.
- **Rule**: the highest pooled recall; ties go to the higher lowest per-set recall, then to the higher recall on the
  development sets no model trains on (the multilingual fresh set's English, the labelled set's fresh split).

Only the fifth set is a clean estimate: the training data of rounds 3 to 5 were written after the earlier sets
showed their misses. The sixth round's own fresh set (``toxicity_defaults_fresh6.csv``) is the measure.

The sixth round chose with scratch scripts of this method before this command was written (both before its fresh set
existed); they fitted the word model with scikit-learn's default tolerance, gridded its C (4, 16, 64) and held every
sentence of the constraint sets to the English rule. This command re-implements the method with the training
script's own fits and the engine's per-language rule, and prints where the shipped setting ranks under it
(docs/toxicity.md, "Sixth round").
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench import toxicity_defaults as B
from tools import train_e5_toxicity as T

MAX_POSITIVE = 0.0085
MIN_PRECISION = 0.93
MIN_SET_PRECISION = 0.90
WORD_WEIGHTS = (0.0, 0.2, 0.3, 0.4)
ENGLISH = tuple(round(0.2 + 0.05 * i, 2) for i in range(8))  # 0.2 .. 0.55
ADDRESSED = tuple(round(0.2 + 0.05 * i, 2) for i in range(9))  # 0.2 .. 0.6


class Sentences:
    """Sentences with what the rule needs: vectors, language, patterns, second person."""

    def __init__(self, texts: Sequence[str], cache: Path | None) -> None:
        from scoring.toxicity.defaults import addresses_reader, pattern_settles, sentence_language
        from scoring.toxicity.rules import match_rules

        self.texts = list(texts)
        self.x = T.embeddings(self.texts, cache).astype(np.float64)
        found = [match_rules(t) for t in self.texts]
        self.english = np.array([sentence_language(t) == "en" for t in self.texts])
        self.settled = np.array([pattern_settles(t, f) for t, f in zip(self.texts, found, strict=True)])
        self.weak = np.array([bool(f) for f in found]) & ~self.settled
        self.addressed = np.array([addresses_reader(t) for t in self.texts])


def _scores(model: tuple[Any, ...], s: Sentences) -> tuple[np.ndarray, np.ndarray]:
    """(engine probability before the word model, the word model's probability) per sentence; the other languages'
    rows carry the head alone and no word model."""
    (coef, intercept), bank, words = model
    engine, _ = T._predict(coef, intercept, s.x, s.english, bank)
    lexical = np.zeros(len(s.texts))
    if s.english.any():
        lexical[s.english] = words.probabilities([t for t, e in zip(s.texts, s.english, strict=True) if e])
    return engine, lexical


def _flags(scores: tuple[np.ndarray, np.ndarray], s: Sentences, b: float, e: float, a: float) -> np.ndarray:
    from scoring.toxicity.defaults import OTHER_THRESHOLD, PATTERN_WITH_HEAD

    q = np.where(s.english, (1 - b) * scores[0] + b * scores[1], scores[0])
    english = np.where(s.settled, True, np.where(s.weak, q >= PATTERN_WITH_HEAD, q >= np.where(s.addressed, a, e)))
    return np.where(s.english, english, q >= OTHER_THRESHOLD)


def select(cache: Path | None) -> pd.DataFrame:
    """Every setting of the grid with its measures (one row each)."""
    from scoring.text.splitters import split_smart

    frame = T.load_training()
    x = T.embeddings(frame["text"].tolist(), cache).astype(np.float64)
    held: dict[str, tuple[Sentences, np.ndarray, tuple[np.ndarray, np.ndarray]]] = {}
    for n, path in enumerate(T.DEFAULTS_SETS, start=1):
        data = B.read_defaults_set(path)
        data = data[data["lang"] == "en"]
        s = Sentences(data["text"].tolist(), cache)
        model = T.fit_engine(frame, x, ~frame["text"].isin(set(s.texts)).to_numpy())
        held[f"set {n}"] = (s, (data["toxic"] == 1).to_numpy(), _scores(model, s))
        print(f"left out {path.name}", flush=True)
    full = T.fit_engine(frame, x, np.ones(len(frame), dtype=bool))
    positive = B.load_vader_positive()
    if positive is None:
        raise SystemExit(
            f"error: the VADER ground truth is not in {T.VADER} (set $TONE_DATA to the shared data folder)"
        )
    replies = pd.concat([pd.read_csv(p, keep_default_na=False) for p in (*B.SUPPORT_SETS, B.SUPPORT_CHECK)])
    groups = {
        "positive": [[t.text for t in split_smart(text)] for text in positive["text"]],
        "replies": [[t.text for t in split_smart(text)] for text in replies[replies["courteous"] == 1]["text"]],
        "seeds": [[t.text for t in split_smart(text)] for text, _ in B.SEEDS],
    }
    multi = pd.read_csv(B.DEV_MULTILINGUAL, keep_default_na=False)
    labelled = pd.read_csv(B.LABELLED, keep_default_na=False)
    dev = pd.concat([multi[multi["lang"] == "en"], labelled[labelled["split"] == "fresh"]])
    flat = list(dict.fromkeys([t for g in groups.values() for r in g for t in r] + dev["text"].tolist()))
    everything = Sentences(flat, cache)
    full_scores = _scores(full, everything)
    index = {t: i for i, t in enumerate(flat)}
    seed_truth = np.array([y for _, y in B.SEEDS])
    dev_rows = np.array([index[t] for t in dev["text"]])
    dev_truth = dev["toxic"].astype(int).to_numpy() == 1
    rows = []
    for b, e, a in itertools.product(WORD_WEIGHTS, ENGLISH, ADDRESSED):
        row: dict[str, Any] = {"word weight": b, "English": e, "addressed": a}
        tp = flagged = toxic = 0
        for name, (s, truth, scores) in held.items():
            f = _flags(scores, s, b, e, a)
            hit = int((f & truth).sum())
            row[f"{name} recall"] = hit / int(truth.sum())
            row[f"{name} precision"] = hit / max(int(f.sum()), 1)
            tp, flagged, toxic = tp + hit, flagged + int(f.sum()), toxic + int(truth.sum())
        f = _flags(full_scores, everything, b, e, a)
        per_group = {k: np.array([any(f[index[t]] for t in r) for r in g]) for k, g in groups.items()}
        row.update(
            recall=tp / toxic,
            precision=tp / max(flagged, 1),
            positive=float(per_group["positive"].mean()),
            replies=int(per_group["replies"].sum()),
            seeds=int((per_group["seeds"] == seed_truth).sum()),
            development=float((f[dev_rows] & dev_truth).sum() / dev_truth.sum()),
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    table["lowest recall"] = table[[f"{n} recall" for n in held]].min(axis=1)
    table["lowest precision"] = table[[f"{n} precision" for n in held]].min(axis=1)
    return table


def choose(table: pd.DataFrame) -> pd.DataFrame:
    """The settings that meet every constraint, best first (the first is the rule's choice)."""
    ok = table[
        (table["precision"] >= MIN_PRECISION)
        & (table["lowest precision"] >= MIN_SET_PRECISION)
        & (table["positive"] <= MAX_POSITIVE)
        & (table["replies"] == 0)
        & (table["seeds"] == len(B.SEEDS))
    ]
    return ok.sort_values(["recall", "lowest recall", "development"], ascending=False)


def markdown(table: pd.DataFrame) -> str:
    """A markdown table of ``table`` (pandas' own needs the tabulate package)."""
    lines = ["| " + " | ".join(map(str, table.columns)) + " |", "|" + " --- |" * len(table.columns)]
    lines += ["| " + " | ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in row) + " |"
              for row in table.itertuples(index=False)]  # fmt: skip
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cache", type=Path, default=None, help="embedding cache folder (the training script's)")
    parser.add_argument("--top", type=int, default=10, help="settings to print (10)")
    args = parser.parse_args(argv)
    table = select(args.cache or T.default_cache())
    best = choose(table)
    shown = ["word weight", "English", "addressed", "recall", "precision", "lowest recall", "lowest precision",
             *[c for c in table.columns if c.endswith(" recall") and c.startswith("set ")], "positive", "replies",
             "seeds", "development"]  # fmt: skip
    print(markdown(best[shown].head(args.top).round(3)))
    print("\nWithout the word model (weight 0), best:")
    print(markdown(best[best["word weight"] == 0][shown].head(3).round(3)))
    pick = best.iloc[0]
    print(f"\nthe rule's choice here: word weight {pick['word weight']:g}, English {pick['English']:g}, "
          f"addressed {pick['addressed']:g}")  # fmt: skip
    from scoring.toxicity.defaults import ADDRESSED_THRESHOLD, ENGLISH_THRESHOLD

    shipped = (
        (best["word weight"] == T.LEXICAL_WEIGHT)
        & (best["English"] == ENGLISH_THRESHOLD)
        & (best["addressed"] == ADDRESSED_THRESHOLD)
    )
    where = f"rank {int(np.flatnonzero(shipped.to_numpy())[0]) + 1} of {len(best)}" if shipped.any() else "not"
    print(f"the shipped setting (word weight {T.LEXICAL_WEIGHT:g}, English {ENGLISH_THRESHOLD:g}, addressed "
          f"{ADDRESSED_THRESHOLD:g}) is {where} among the settings meeting the constraints")  # fmt: skip
    print(markdown(best[shipped][shown].round(3)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
