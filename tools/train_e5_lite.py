"""Train e5-lite's heads: the e5 heads' training, run on e5-lite's static text vectors instead of e5's.

Usage (deterministic; seconds for tone and toxicity: nothing is embedded by the transformer)::

    python -m tools.train_e5_lite [tone|toxicity ...] [--check]

``tone`` runs ``tools.train_e5_tone``'s training unchanged (the same data, row weights, hash folds, nested CV,
alpha grid, gains, lexicon head on VADER's and AFINN's scores, Hangul head with its character n-grams and
naive-Bayes blend; the NYT editorials held out) with each text's vector from :mod:`scoring.text.e5_lite` in
place of its e5 embedding, and writes ``scoring/tone/data/e5_lite_head.json`` and
``e5_lite_hangul_ngrams.json``. ``toxicity`` runs ``tools.train_e5_toxicity``'s training the same way and
writes ``scoring/toxicity/data/e5_lite_head.json``; its threshold is chosen by the e5 head's rule (the
smallest 0.01 step flagging at most 1% of the VADER texts people rated clearly positive, ``THRESHOLD_RULE``),
computed here on e5-lite's probabilities.

``--check`` trains again and compares with the shipped files (exit 1 on a difference).
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
TOXICITY_HEAD = REPO / "scoring" / "toxicity" / "data" / "e5_lite_head.json"
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
    """``tools.train_e5_toxicity``'s head trained on e5-lite vectors, with its threshold chosen by the e5 rule."""
    from tools import train_e5_toxicity as tox

    original = tox.embeddings
    tox.embeddings = lambda texts, cache: lite_vectors(texts)  # type: ignore[assignment]
    try:
        threshold = positive_threshold_for(tox)
        old_threshold = tox.THRESHOLD
        tox.THRESHOLD = threshold
        try:
            head = tox.train(None)
        finally:
            tox.THRESHOLD = old_threshold
    finally:
        tox.embeddings = original  # type: ignore[assignment]
    head["about"] = "Learned toxicity head on e5-lite's static text vectors; written by the command below."
    head["command"] = f"{COMMAND} toxicity"
    head["encoder"] = MODEL
    head["thresholdRule"] = THRESHOLD_RULE
    return head


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
    parser.add_argument("heads", nargs="*", choices=["tone", "toxicity"], default=["tone", "toxicity"])
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
    if "toxicity" in args.heads:
        from tools import train_e5_toxicity as tox

        head = toxicity_head()
        cv = head["crossValidation"]
        print(f"toxicity threshold {head['threshold']}: CV precision {cv['precision']}, recall {cv['recall']}, "
              f"ROC AUC {cv['rocAuc']}", file=sys.stderr)  # fmt: skip
        if "fresh" in head:
            fr = head["fresh"]
            print(f"toxicity fresh: precision {fr['precision']}, recall {fr['recall']}, ROC AUC {fr['rocAuc']}",
                  file=sys.stderr)  # fmt: skip
        if args.check:
            diff = tox.differences(json.loads(TOXICITY_HEAD.read_text(encoding="utf-8")), head)
            print("\n".join(diff[:20]) or f"{TOXICITY_HEAD} matches the training run.", file=sys.stderr)
            failed |= bool(diff)
        else:
            TOXICITY_HEAD.write_text(tox.dumps(head), encoding="utf-8")
            print(f"wrote {TOXICITY_HEAD}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
