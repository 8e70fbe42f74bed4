"""Train e5-lite's heads: the e5 heads' training, run on e5-lite's static text vectors instead of e5's.

Usage (deterministic; nothing is embedded by the transformer: about a minute of CPU, most of it the Hangul head)::

    python -m tools.train_e5_lite [tone|toxicity ...] [--check]

``tone`` runs ``tools.train_e5_tone``'s training unchanged (the same data, row weights, hash folds, nested CV,
alpha grid, gains, lexicon head on VADER's and AFINN's scores, Hangul head with its character n-grams and
naive-Bayes blend; the NYT editorials held out) with each text's vector from :mod:`scoring.text.e5_lite` in
place of its e5 embedding, and writes ``scoring/tone/data/e5_lite_head.json`` and
``e5_lite_hangul_ngrams.json``.

``toxicity`` runs ``tools.train_e5_toxicity``'s training the same way, with its threshold chosen by the e5
head's rule (the smallest 0.01 step flagging at most 1% of the VADER texts people rated clearly positive,
``THRESHOLD_RULE``) computed on e5-lite's probabilities, and prints its scores without writing a head: on the
fresh test its best recall at precision >= 0.90 is 0.47 (the target is 0.75) and its cross-validated
precision at that threshold 0.88 (the e5 trainer refuses a head under 0.90), so no e5-lite toxicity engine
is shipped.

``--check`` trains the tone heads again and compares with the shipped files (exit 1 on a difference).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scoring.text.e5_lite import model
from tools import train_e5_tone as tone
from tools.e5_data import DEFAULT_DATA, HELD_OUT, REPO, TRAINING_SETS, load_set

COMMAND = "python -m tools.train_e5_lite"
TONE_HEAD = REPO / "scoring" / "tone" / "data" / "e5_lite_head.json"
TONE_NGRAMS = REPO / "scoring" / "tone" / "data" / "e5_lite_hangul_ngrams.json"
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


def toxicity_report() -> list[str]:
    """``tools.train_e5_toxicity``'s training on e5-lite vectors, measured but not shipped (see the module docstring).

    The threshold is chosen by the e5 head's rule on e5-lite's probabilities; the e5 trainer's guard (cross-validated
    precision at least ``MIN_PRECISION`` there) is lifted so that the numbers can be printed at all.
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
    cv, fresh = head["crossValidation"], head["fresh"]
    usable = [c for c in fresh["curve"] if c["precision"] >= 0.90]
    best = max(usable, key=lambda c: c["recall"]) if usable else None
    return [
        f"toxicity on e5-lite, threshold {head['threshold']} ({THRESHOLD_RULE}):",
        f"  cross-validated precision {cv['precision']}, recall {cv['recall']}, ROC AUC {cv['rocAuc']}",
        f"  fresh test: precision {fresh['precision']}, recall {fresh['recall']}, ROC AUC {fresh['rocAuc']}",
        f"  fresh test, best recall at precision >= 0.90: {best}",
    ]


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("heads", nargs="*", choices=["tone", "toxicity"], default=["tone"])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--check", action="store_true", help="compare with the shipped files instead of writing")
    args = parser.parse_args(argv)
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
    if "toxicity" in args.heads:  # measured, not shipped: see toxicity_report
        print("\n".join(toxicity_report()), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
