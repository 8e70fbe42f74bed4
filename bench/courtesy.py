"""The courtesy scorer's accuracy against its targets: ``python -m bench.courtesy [--cache DIR] [--no-cache]``.

Prints ROC AUC (courteous against not) of the shipped head (``scoring/courtesy/data/e5_courtesy_head.json``,
applied as the scorer applies it) on

- the fresh support replies (``tests/scoring/data/courtesy_support_fresh2.csv``, written blind after the head
  was frozen, never read by the fit or the choice of its settings; target >= 0.95), the scorer's reply score on
  them (the mean of the whole reply's and its least courteous sentence's), and VADER's compound on the same
  replies for comparison; the same for the first fresh set (``courtesy_support_fresh.csv``), fresh for the
  previous head but looked at since (no target);
- TyDiP's English test set (binary: the top and bottom quarter of politeness scores; target >= 0.93);
- TyDiP's eight other test languages (target: their mean >= 0.88);

then the two required cases: a polite apology carrying bad news must score courteous, "Stop asking." must not;
and, for reference, the development figures the head's settings were chosen on (cross-validated, read from the
head file: TyDiP's English training requests translated by hand into the eight languages,
``tests/scoring/data/courtesy_requests_dev.csv``; no target).
Embeddings come from the training script's cache (``tools.train_e5_courtesy``; the same vectors the encoder
gives) unless ``--no-cache``; the data folder is ``$TONE_DATA`` or ``../shared/data``. Exit 1 when a target
is missed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

#: The fresh test of the head frozen in a0da700: written blind after that freeze, scored once.
FRESH = Path(__file__).resolve().parents[1] / "tests" / "scoring" / "data" / "courtesy_support_fresh2.csv"
TARGETS = {"fresh": 0.95, "en": 0.93, "others": 0.88}
APOLOGY = "I'm really sorry about the damaged item; a new one ships today."
DISMISSIVE = "Stop asking."


def main(argv: Sequence[str] | None = None) -> int:
    from sklearn.metrics import roc_auc_score

    from scoring.courtesy.e5 import load_head, probabilities
    from scoring.tone.engines import get_engine
    from tools import train_e5_courtesy as tr

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cache", type=Path, default=None, help="embedding cache folder (the training script's)")
    parser.add_argument("--no-cache", action="store_true", help="embed every text with the encoder")
    args = parser.parse_args(argv)
    cache = None if args.no_cache else (args.cache or tr.default_cache())
    head = load_head()

    def auc(texts: list[str], truth: np.ndarray) -> float:
        return float(roc_auc_score(truth, head.apply(tr.embeddings(texts, cache))))

    missed = []
    print(f"courtesy head: {head.meta.get('command')} ({head.encoder}, {head.prefix}: prefix)\n")
    for path, role in ((FRESH, "the fresh test"), (tr.SUPPORT_FRESH, "the first fresh set, looked at since")):
        if not path.is_file():
            print(f"no {role} ({path.name} missing)")
            missed += ["fresh"] if path == FRESH else []
            continue
        fresh = tr.load_support(path)
        truth = fresh["courteous"].to_numpy()
        value = auc(fresh["text"].tolist(), truth)
        vader = float(roc_auc_score(truth, get_engine("vader").polarities(fresh["text"].tolist())))
        target = f" (target >= {TARGETS['fresh']})" if path == FRESH else " (no target: not fresh for this head)"
        print(f"{role}: {path.name} ({len(fresh)} replies, {fresh['lang'].nunique()} languages): ROC AUC "
              f"{value:.4f}{target}; VADER compound on the same: {vader:.4f}")  # fmt: skip
        from scoring.courtesy import create_courtesy_scorer

        replies = create_courtesy_scorer().score_many(outputs=fresh["text"].tolist())["score"]
        accuracy = float(((np.array(replies) >= 0.5) == truth).mean())
        print(f"  the scorer's score (mean of the whole reply's and its lowest sentence's): ROC AUC "
              f"{roc_auc_score(truth, replies):.4f}, accuracy at 0.5 {accuracy:.3f}")  # fmt: skip
        for lang, part in fresh.groupby("lang"):
            if part["courteous"].nunique() == 2:
                print(f"  {lang}: {auc(part['text'].tolist(), part['courteous'].to_numpy()):.4f} ({len(part)})")
        missed += ["fresh"] if path == FRESH and value < TARGETS["fresh"] else []
    scores = {}
    for lang in tr.TYDIP_LANGS:
        test = tr.load_tydip_test(lang)
        scores[lang] = auc(test["text"].tolist(), test["courteous"].to_numpy())
    others = float(np.mean([scores[k] for k in tr.TYDIP_LANGS if k != "en"]))
    print(f"TyDiP English test (binary, 250): ROC AUC {scores['en']:.4f} (target >= {TARGETS['en']})")
    print(f"TyDiP other languages, mean: {others:.4f} (target >= {TARGETS['others']}): "
          + ", ".join(f"{k} {scores[k]:.3f}" for k in tr.TYDIP_LANGS[1:]))  # fmt: skip
    missed += ["en"] if scores["en"] < TARGETS["en"] else []
    missed += ["others"] if others < TARGETS["others"] else []
    cv = head.meta.get("crossValidation")
    if isinstance(cv, dict) and "translatedRequestsRocAuc" in cv:
        print(f"development (chosen on; 5-fold cross-validated, from the head file): translated TyDiP training "
              f"requests, mean {cv['translatedRequestsMeanRocAuc']:.4f}: "
              + ", ".join(f"{k} {v:.3f}" for k, v in cv["translatedRequestsRocAuc"].items()))  # fmt: skip
    if isinstance(cv, dict) and "translatedTrainRocAuc" in cv:
        print(f"development: 220 TyDiP training requests per language translated by separate translators "
              f"(courtesy_tydip_translated.csv), out of fold, mean {cv['translatedTrainMeanRocAuc']:.4f}: "
              + ", ".join(f"{k} {v:.3f}" for k, v in cv["translatedTrainRocAuc"].items()))  # fmt: skip
    apology, dismissive = probabilities([APOLOGY, DISMISSIVE])
    print(f"\n{APOLOGY!r}: {apology:.3f} ({'courteous' if apology >= head.threshold else 'NOT courteous'})")
    print(f"{DISMISSIVE!r}: {dismissive:.3f} ({'courteous' if dismissive >= head.threshold else 'not courteous'})")
    missed += ["apology"] if apology < head.threshold else []
    missed += ["stop asking"] if dismissive >= head.threshold else []
    print(f"\ntargets missed: {', '.join(missed)}" if missed else "\nevery target met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
