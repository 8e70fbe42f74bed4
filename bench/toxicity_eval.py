"""How well does the offline toxicity classifier do? Precision and recall per kind, on labelled sentences.

Run ``python -m bench.toxicity_eval [--threshold 0.5] [--speed-rows 3000]``. Prints markdown tables (for the
learned e5 engine: ``python -m bench.toxicity_eval --engine e5 [--sweep] [--speed]``, :mod:`bench.toxicity_e5`):

1. the shipped classifier (profanity model + rubric patterns) per kind and split of
   ``tests/scoring/data/toxicity_labelled.csv``: ``dev`` (the patterns were tuned on it), ``heldout``
   (written with the dev sentences, never tuned on) and ``fresh`` (written after the patterns were frozen);
2. the candidates side by side: the profanity model alone, the patterns alone, the shipped combination,
   and any optional candidate installed (``hatesonar``, ``better_profanity``; skipped with a note if not);
3. how often each flags clearly positive real texts (VADER ground truth, human rating >= 1), a proxy for
   the false-positive rate on text nobody wrote for this test;
4. speed: ``score_many`` against a loop of ``run`` on the same outputs, measured in the same run.

Recall of a kind = flagged / sentences of that kind. Precision of a kind = flagged sentences of that kind /
(those + clean sentences flagged in the same split): the precision if the split held only that kind and
the clean sentences.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from scoring.toxicity.batch import any_rule_fires
from scoring.toxicity.classifier import classify, model_probabilities
from scoring.toxicity.rules import KINDS
from scoring.toxicity.scorer import create_toxicity_scorer

ROOT = Path(__file__).resolve().parents[1]
LABELLED = ROOT / "tests" / "scoring" / "data" / "toxicity_labelled.csv"
VADER = ROOT.parent / "shared" / "data" / "vader-ground-truth"
SPLITS = ("dev", "heldout", "fresh")

Predictor = Callable[[list[str], float], list[bool]]


def shipped(texts: list[str], threshold: float) -> list[bool]:
    return [v.toxic for v in classify(texts, threshold)]


def model_only(texts: list[str], threshold: float) -> list[bool]:
    return [p >= threshold for p in model_probabilities(texts)]


def rules_only(texts: list[str], threshold: float) -> list[bool]:
    return [any_rule_fires(t, threshold) for t in texts]


def optional_candidates() -> tuple[dict[str, Predictor], list[str]]:
    """Other offline candidates, if installed; and a note for each one that is not."""
    found: dict[str, Predictor] = {}
    notes = []
    try:
        from hatesonar import Sonar  # type: ignore[import-not-found]

        sonar = Sonar()
        found["hatesonar 0.1.0 (hate + offensive)"] = lambda texts, th: [
            1 - float(sonar.ping(t)["classes"][2]["confidence"]) >= th for t in texts
        ]
    except Exception as exc:  # not installed, or its ONNX runtime cannot start (it needs the en_US.UTF-8 locale)
        notes.append(f"hatesonar: not evaluated here ({type(exc).__name__}: {str(exc)[:80]})")
    try:
        from better_profanity import profanity  # type: ignore[import-not-found]

        found["better-profanity 0.7.0 (word list)"] = lambda texts, th: [profanity.contains_profanity(t) for t in texts]
    except ImportError as exc:
        notes.append(f"better-profanity: not evaluated here ({exc})")
    return found, notes


def prf(pred: pd.Series, truth: pd.Series) -> tuple[float, float, float]:
    tp, fp, fn = int((pred & truth).sum()), int((pred & ~truth).sum()), int((~pred & truth).sum())
    p = tp / (tp + fp) if tp + fp else float("nan")
    r = tp / (tp + fn) if tp + fn else float("nan")
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def per_kind_table(df: pd.DataFrame, split: str) -> str:
    part = df if split == "all" else df[df["split"] == split]
    clean_fp = int(part.loc[part["kind"] == "clean", "pred"].sum())
    rows = ["| kind | sentences | flagged | recall | precision |", "| --- | ---: | ---: | ---: | ---: |"]
    for kind in KINDS:
        k = part[part["kind"] == kind]
        hit = int(k["pred"].sum())
        precision = f"{hit / (hit + clean_fp):.2f}" if hit else "n/a (nothing flagged)"
        rows.append(f"| {kind} | {len(k)} | {hit} | {hit / len(k):.2f} | {precision} |")
    for group, g in part[part["kind"] == "clean"].groupby("group"):
        rows.append(
            f"| clean: {group} | {len(g)} | {int(g['pred'].sum())} | false-positive rate {g['pred'].mean():.2f} | |"
        )
    p, r, f = prf(part["pred"], part["toxic"])
    rows.append(f"| **all** | {len(part)} | {int(part['pred'].sum())} | {r:.2f} | {p:.2f} (F1 {f:.2f}) |")
    return "\n".join(rows)


def systems_table(df: pd.DataFrame, systems: dict[str, Predictor], threshold: float) -> str:
    header = "| system | " + " | ".join(f"{s} P / R / F1" for s in (*SPLITS, "all")) + " |"
    rows = [header, "|" + " --- |" * (len(SPLITS) + 2)]
    texts = df["text"].tolist()
    for name, predict in systems.items():
        pred = pd.Series(predict(texts, threshold), index=df.index)
        cells = []
        for split in (*SPLITS, "all"):
            mask = df["split"] == split if split != "all" else pd.Series(True, index=df.index)
            p, r, f = prf(pred[mask], df.loc[mask, "toxic"])
            cells.append(f"{p:.2f} / {r:.2f} / {f:.2f}")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def real_text_table(systems: dict[str, Predictor], threshold: float) -> str:
    files = sorted(VADER.glob("*.csv"))
    if not files:
        return f"(VADER ground truth not found in {VADER}: skipped)"
    data = pd.concat([pd.read_csv(f, dtype={"id": str, "text": str}, keep_default_na=False) for f in files])
    positive = data[data["human_rating"] >= 1.0]["text"].tolist()
    rows = ["| system | positive texts | flagged | flag rate |", "| --- | ---: | ---: | ---: |"]
    for name, predict in systems.items():
        flagged = sum(predict(positive, threshold))
        rows.append(f"| {name} | {len(positive)} | {flagged} | {flagged / len(positive):.4f} |")
    return "\n".join(rows)


def speed_table(rows: int) -> str:
    files = sorted(VADER.glob("*.csv"))
    texts = pd.concat([pd.read_csv(f, keep_default_na=False) for f in files])["text"].tolist() if files else []
    if not texts:
        return "(no texts for the speed test)"
    outputs = [texts[i % len(texts)] for i in range(rows)]
    scorer = create_toxicity_scorer(engine="classifier")
    scorer.score_many(outputs=outputs[:10])  # load the model outside the timing
    start = time.perf_counter()
    loop = [scorer.run(output=o).score for o in outputs]
    t_loop = time.perf_counter() - start
    start = time.perf_counter()
    many = scorer.score_many(outputs=outputs)["score"]
    t_many = time.perf_counter() - start
    same = "yes" if many == loop else "NO"
    return "\n".join(
        [
            "| path | outputs | seconds | outputs/s | same scores |",
            "| --- | ---: | ---: | ---: | --- |",
            f"| loop of run() (baseline) | {rows} | {t_loop:.2f} | {rows / t_loop:,.0f} | |",
            f"| score_many() | {rows} | {t_many:.2f} | {rows / t_many:,.0f} | {same} |",
            f"\nscore_many is {t_loop / t_many:.1f}x the loop's speed.",
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--engine", choices=["classifier", "e5"], default="classifier")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--speed-rows", type=int, default=3000, help="outputs in the speed test (0 skips it)")
    args, rest = parser.parse_known_args(argv)
    if args.engine == "e5":
        from bench.toxicity_e5 import main as e5_main

        return e5_main(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    df = pd.read_csv(LABELLED, keep_default_na=False)
    df["toxic"] = df["toxic"].astype(bool)
    df["pred"] = shipped(df["text"].tolist(), args.threshold)
    print(f"# Toxicity classifier, threshold {args.threshold:g}: {len(df)} labelled sentences\n")
    for split in (*SPLITS, "all"):
        print(f"## Shipped classifier, split `{split}`\n\n{per_kind_table(df, split)}\n")
    extra, notes = optional_candidates()
    systems = {"profanity model alone": model_only, "rubric patterns alone": rules_only, "shipped": shipped, **extra}
    print(f"## Candidates (precision / recall / F1)\n\n{systems_table(df, systems, args.threshold)}\n")
    for note in notes:
        print(f"- {note}")
    print(f"\n## Flag rate on clearly positive real texts\n\n{real_text_table(systems, args.threshold)}\n")
    if args.speed_rows:
        print(f"## Speed\n\n{speed_table(args.speed_rows)}")


if __name__ == "__main__":
    main()
