"""Train e5-lite's heads: the e5 heads' training, run on e5-lite's static text vectors instead of e5's.

Usage (deterministic; nothing is embedded by the transformer: about a minute of CPU, most of it the Hangul head)::

    python -m tools.train_e5_lite [tone|toxicity|courtesy ...] [--check]

``tone`` runs ``tools.train_e5_tone``'s training unchanged (the same data, row weights, hash folds, nested CV,
alpha grid, gains, lexicon head on VADER's and AFINN's scores, Hangul head with its character n-grams and
naive-Bayes blend; the NYT editorials held out) with each text's vector from :mod:`scoring.text.e5_lite` in
place of its e5 embedding, and writes ``scoring/tone/data/e5_lite_head.json`` and
``e5_lite_hangul_ngrams.json``.

``toxicity`` runs ``tools.train_e5_toxicity``'s training the same way (its data, folds, one logistic head per
rubric kind, C), with its threshold chosen by the e5 head's rule (the smallest 0.01 step flagging at most 1% of
the VADER texts people rated clearly positive, ``THRESHOLD_RULE``) computed on e5-lite's probabilities, and
writes ``scoring/toxicity/data/e5_lite_head.json`` with its cross-validated and fresh-test scores (the e5
trainer's refusal of a head under 0.90 cross-validated precision is lifted: the engine is a choice by name,
its measured precision and recall shown where it is offered).

``courtesy`` runs ``tools.train_e5_courtesy``'s training the same way (TyDiP English and the support replies,
the same folds and threshold; C and the support weight chosen for e5-lite's vectors by cross-validation,
``COURTESY_C``; ``--search`` prints the grid) and writes ``scoring/courtesy/data/e5_lite_courtesy_head.json``
with its TyDiP test and fresh support-reply scores.

Both reuse those trainers' functions, so after either e5 trainer changes (data, C, rule), re-running
``python -m tools.train_e5_lite toxicity courtesy`` regenerates the e5-lite heads from the same recipe.

``--check`` trains the named heads again and compares with the shipped files (exit 1 on a difference).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scoring.text.e5_lite import EMBEDDING_DIM, model
from tools import train_e5_tone as tone
from tools.e5_data import DEFAULT_DATA, HELD_OUT, REPO, TRAINING_SETS, differences, dumps, load_set

COMMAND = "python -m tools.train_e5_lite"
TONE_HEAD = REPO / "scoring" / "tone" / "data" / "e5_lite_head.json"
TONE_NGRAMS = REPO / "scoring" / "tone" / "data" / "e5_lite_hangul_ngrams.json"
COURTESY_FRESH2 = REPO / "tests" / "scoring" / "data" / "courtesy_support_fresh2.csv"
TOXICITY_HEAD = REPO / "scoring" / "toxicity" / "data" / "e5_lite_head.json"
COURTESY_HEAD = REPO / "scoring" / "courtesy" / "data" / "e5_lite_courtesy_head.json"
TARGET_PRECISION, TARGET_RECALL = 0.90, 0.75  # issue 25: toxicity recall >= 0.75 at precision >= 0.90 (fresh test)
TARGET_AUC = 0.92  # issue 25: courtesy ROC AUC >= 0.92 on the fresh support replies
#: The courtesy head's C and support-reply weight on e5-lite vectors: the best cross-validated ROC AUC on the training
#: support replies over ``courtesy_search``'s grid (0.871; e5's C = 4, weight 8 give 0.803 here: e5-lite's vectors
#: are short, weighted means, and want less regularisation). Chosen on training data only, before the fresh test
#: was read with them.
COURTESY_C, COURTESY_SUPPORT_WEIGHT = 64.0, 32.0
MODEL = (
    "e5-lite: the weighted mean of static token vectors distilled from multilingual-e5-small "
    "(scoring/text/data/e5_lite.npz, python -m tools.build_e5_lite)"
)


def lite_vectors(texts: Sequence[str]) -> np.ndarray:
    """e5-lite's vector of each text (384 columns, as e5's embeddings)."""
    return model().vectors(list(texts))


def tone_training(data: Path = DEFAULT_DATA) -> tone.Training:
    """``tools.train_e5_tone``'s training run on e5-lite vectors."""
    from scoring.tone.e5 import LEXICON_ENGINES
    from scoring.tone.lexicons import lexicon_scores

    sets = {name: load_set(name, data) for name in (*TRAINING_SETS, *HELD_OUT)}
    emb = {name: lite_vectors(ds.texts) for name, ds in sets.items()}
    lexicon = {name: lexicon_scores(LEXICON_ENGINES, ds.texts) for name, ds in sets.items()}
    run = tone.Training(sets, emb, {}, {}, {}, lexicon, hangul_embeddings=emb["nsmc"])  # type: ignore[arg-type]
    tone.fit_heads(run, data)
    head = run.head
    head["model"] = MODEL
    head["command"] = f"{COMMAND} tone"
    head["prefix"] = tone.PREFIX  # the prefix the table's tokens were embedded with (tools.build_e5_lite)
    if "hangul_head" in head:
        han = head["hangul_head"]
        assert isinstance(han, dict)
        han["ngrams_file"] = TONE_NGRAMS.name
        han["ngrams_sha256"] = hashlib.sha256(run.ngrams.encode("utf-8")).hexdigest()
    return run


def toxicity_head() -> dict[str, Any]:
    """``tools.train_e5_toxicity``'s training on e5-lite vectors: the head file's content (see the module docstring).

    The same data, folds, per-kind heads, C and scores; the threshold is chosen by the e5 head's rule on e5-lite's
    probabilities, and the e5 trainer's guard (cross-validated precision at least ``MIN_PRECISION`` at the threshold)
    is lifted: the head ships as a choice by name with its measured precision and recall beside it.
    """
    from tools import train_e5_toxicity as tox

    saved = tox.embeddings, tox.THRESHOLD, tox.MIN_PRECISION
    tox.embeddings = lambda texts, cache: lite_vectors(texts)  # type: ignore[assignment]
    try:
        tox.THRESHOLD = positive_threshold_for(tox)
        tox.MIN_PRECISION = 0.0
        head = tox.train(None)
    finally:
        tox.embeddings, tox.THRESHOLD, tox.MIN_PRECISION = saved  # type: ignore[assignment]
    head["about"] = "Learned toxicity head on e5-lite's static text vectors; written by the command below."
    head["command"] = f"{COMMAND} toxicity"
    head["encoder"] = MODEL
    head["thresholdRule"] = THRESHOLD_RULE
    head["freshBest"] = best_at_precision(head["fresh"]["curve"]) if "fresh" in head else None
    return head


def courtesy_head() -> dict[str, Any]:
    """``tools.train_e5_courtesy``'s training on e5-lite vectors (the same data, folds and threshold; its own C and
    support weight, ``COURTESY_C`` and ``COURTESY_SUPPORT_WEIGHT``, chosen by cross-validation: ``courtesy_search``)."""
    from tools import train_e5_courtesy as court

    saved = court.embeddings, court.C, court.SUPPORT_WEIGHT
    court.embeddings = lambda texts, cache: lite_vectors(texts)  # type: ignore[assignment]
    court.C, court.SUPPORT_WEIGHT = COURTESY_C, COURTESY_SUPPORT_WEIGHT
    try:
        head = court.train(None)
    finally:
        court.embeddings, court.C, court.SUPPORT_WEIGHT = saved  # type: ignore[assignment]
    head["about"] = (
        "Learned courtesy head (P(courteous)) on e5-lite's static text vectors; written by the command below."
    )
    head["command"] = f"{COMMAND} courtesy"
    head["features"] = {"encoder": "e5-lite", "prefix": "", "dimensions": EMBEDDING_DIM, "model": MODEL}
    if COURTESY_FRESH2.is_file():  # a second fresh set, written after C and the weight were chosen: test only
        fresh2 = court.load_support(COURTESY_FRESH2)
        coef, intercept = np.asarray(head["head"]["coef"]), float(head["head"]["intercept"])
        head["data"][court._rel(COURTESY_FRESH2)] = {
            "sha256": court._sha256(COURTESY_FRESH2), "rows": len(fresh2), "use": "test only (second fresh set)"
        }  # fmt: skip
        head["fresh2"] = court._support_scores(fresh2, court.predict(coef, intercept, lite_vectors(fresh2["text"])))
    return head


def courtesy_search() -> list[str]:
    """The cross-validated ROC AUCs (training data only: TyDiP English, the training support replies) over a grid of C
    and support weights, on e5-lite vectors: how ``COURTESY_C`` and ``COURTESY_SUPPORT_WEIGHT`` were chosen."""
    from tools import train_e5_courtesy as court

    saved = court.embeddings
    court.embeddings = lambda texts, cache: lite_vectors(texts)  # type: ignore[assignment]
    try:
        frame, x = court._training(None)
    finally:
        court.embeddings = saved  # type: ignore[assignment]
    return [
        f"C={c:<5g} support weight={w:<4g} {court.cross_validate(frame, x, c, w)}"
        for c in (1.0, 4.0, 16.0, 64.0, 256.0)
        for w in (1.0, 8.0, 32.0)
    ]


def best_at_precision(curve: list[dict[str, float]], precision: float = TARGET_PRECISION) -> dict[str, float] | None:
    """The curve's point of highest recall among those of precision at least ``precision`` (None: no such point)."""
    usable = [c for c in curve if c["precision"] >= precision]
    return max(usable, key=lambda c: (c["recall"], c["threshold"])) if usable else None


def toxicity_report(head: dict[str, Any]) -> list[str]:
    """The toxicity head's measured scores, for the terminal."""
    cv, fresh = head["crossValidation"], head["fresh"]
    return [
        f"toxicity on e5-lite, threshold {head['threshold']} ({THRESHOLD_RULE}):",
        f"  cross-validated precision {cv['precision']}, recall {cv['recall']}, ROC AUC {cv['rocAuc']}",
        f"  fresh test ({fresh['n']}): precision {fresh['precision']}, recall {fresh['recall']}, "
        f"ROC AUC {fresh['rocAuc']}",
        f"  fresh test, best recall at precision >= {TARGET_PRECISION}: {head['freshBest']} (issue 25's target: "
        f"recall >= {TARGET_RECALL})",
    ]


def courtesy_report(head: dict[str, Any]) -> list[str]:
    """The courtesy head's measured scores, for the terminal."""
    cv, test = head["crossValidation"], head["tydipTest"]
    lines = [
        f"courtesy on e5-lite: cross-validated ROC AUC TyDiP English {cv['tydipTrainRocAuc']}, support replies "
        f"{cv['supportRocAuc']}; TyDiP test English {test['en']['rocAuc']}, other languages mean "
        f"{test['otherLanguagesMeanRocAuc']}"
    ]
    for key in ("fresh", "fresh2"):
        if key in head:
            fr = head[key]
            lines.append(
                f"  {key} support replies ({fr['n']}): ROC AUC {fr['rocAuc']}, accuracy {fr['accuracy']} "
                f"(issue 25's target: ROC AUC >= {TARGET_AUC})"
            )
    return lines


THRESHOLD_RULE = (
    "the smallest 0.01 step flagging at most 1% of the VADER texts rated clearly positive (human rating >= 2), "
    "as for the e5 head, computed on e5-lite's probabilities by python -m tools.train_e5_lite toxicity"
)
MAX_POSITIVE_FLAGGED = 0.01


def positive_threshold_for(tox: Any) -> float:
    """The smallest 0.01 step at which at most 1% of the VADER texts rated >= 2 are flagged by the full-data head."""
    frame = tox.load_training()
    x = lite_vectors(frame["text"].tolist())
    coef, intercept = tox._fit_heads(x, frame["kind"].to_numpy())
    coef, intercept = np.round(coef, tox.DIGITS), np.round(intercept, tox.DIGITS)
    texts: list[str] = []
    for name in ("tweets", "movies", "amazon", "nyt"):
        ds = load_set(name, DEFAULT_DATA)
        texts += [t for t, r in zip(ds.texts, ds.frame["target"] * 4, strict=True) if r >= 2]
    prob, _ = tox._predict(coef, intercept, lite_vectors(texts))
    for step in range(5, 100):
        threshold = round(step / 100, 2)
        if float(np.mean(prob >= threshold)) <= MAX_POSITIVE_FLAGGED:
            return threshold
    return 0.99


def write_or_check(
    head: dict[str, Any], report: Callable[[dict[str, Any]], list[str]], path: Path, *, check: bool
) -> bool:
    """Print the head's scores, then write it to ``path`` or (``check``) compare; True when the check fails."""
    print("\n".join(report(head)), file=sys.stderr)
    if check:
        diff = differences(json.loads(path.read_text(encoding="utf-8")), head)
        print(f"{path}: " + ("differs in " + "; ".join(diff[:20]) if diff else "matches"), file=sys.stderr)
        return bool(diff)
    path.write_text(dumps(head), encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)
    return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("heads", nargs="*", choices=["tone", "toxicity", "courtesy"], default=["tone"])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--check", action="store_true", help="compare with the shipped files instead of writing")
    parser.add_argument("--search", action="store_true", help="print the courtesy head's cross-validation grid only")
    args = parser.parse_args(argv)
    if args.search:
        print("\n".join(courtesy_search()), file=sys.stderr)
        return 0
    failed = False
    if "tone" in args.heads:
        run = tone_training(args.data)
        for name, s in run.head["scores"].items():  # type: ignore[attr-defined]
            print("tone", name, json.dumps(s), file=sys.stderr)
        if args.check:
            diffs = tone.heads_match(json.loads(TONE_HEAD.read_text(encoding="utf-8")), run.head)
            diffs += tone.ngrams_match(json.loads(TONE_NGRAMS.read_text(encoding="utf-8")), json.loads(run.ngrams))
            print(f"{TONE_HEAD}: " + (f"differs in {diffs}" if diffs else "matches"), file=sys.stderr)
            failed |= bool(diffs)
        else:
            TONE_HEAD.write_text(json.dumps(run.head, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            TONE_NGRAMS.write_text(run.ngrams, encoding="utf-8")
            print(f"wrote {TONE_HEAD} and {TONE_NGRAMS}", file=sys.stderr)
    for name, build, report, path in (
        ("toxicity", toxicity_head, toxicity_report, TOXICITY_HEAD),
        ("courtesy", courtesy_head, courtesy_report, COURTESY_HEAD),
    ):
        if name in args.heads:
            failed |= write_or_check(build(), report, path, check=args.check)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
