"""How well does the learned e5 toxicity engine do, per kind and per language, against the classifier?

Run ``python -m bench.toxicity_eval --engine e5 [--sweep] [--cache DIR]`` (or ``python -m bench.toxicity_e5``).
Prints markdown tables:

1. the e5 engine at its default threshold on the **fresh** test set
   (``tests/scoring/data/toxicity_multilingual_fresh.csv``, 512 sentences in 7 languages, written after the head
   was frozen), per kind (n, recall, precision, how often the named kind is right) and per language
   (n, precision, recall), with the classifier's numbers on the same sentences;
2. e5 against the classifier **at equal precision** on test sets neither was trained or tuned on: the
   classifier at its threshold 0.5, and e5 at the smallest threshold whose precision is at least the classifier's;
3. the **false-alarm rate on real positive texts**: the share of VADER ground-truth texts people rated clearly
   positive (human rating >= 2; 3,745 texts; ``../shared/data/vader-ground-truth``) with at least one opinion
   flagged, for each engine; ``--sweep`` adds a table of threshold against cross-validated, fresh and VADER rates
   (how the default threshold was chosen);
4. speed of ``score_many`` on the VADER texts (sentences embedded on the fly, the per-text cache cleared first).

Precision of a kind = flagged sentences of that kind / (those + clean sentences flagged in the same set).
Sentence embeddings are read from, and added to, the training script's disk cache (``--cache``, default
``$TONE_E5_CACHE`` or ``~/.cache/tone-explorer/e5``): the vectors are the encoder's, keyed by text.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from scoring.text.splitters import split_smart
from scoring.toxicity.classifier import classify
from scoring.toxicity.defaults import sentence_language
from scoring.toxicity.e5 import engine_probabilities, load_head
from scoring.toxicity.rules import KINDS
from scoring.toxicity.scorer import create_toxicity_scorer
from tools.e5_data import DEFAULT_DATA
from tools.train_e5_toxicity import GRID, default_cache, embeddings

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "scoring" / "data"
FRESH = DATA / "toxicity_multilingual_fresh.csv"
LABELLED = DATA / "toxicity_labelled.csv"


VADER = DEFAULT_DATA / "vader-ground-truth"
LANGS = ("en", "zh", "ko", "ja", "de", "es", "fr")
CLASSIFIER_THRESHOLD = 0.5


def e5_probability(texts: Sequence[str], cache: Path | None) -> tuple[np.ndarray, np.ndarray]:
    """P(toxic) and the named kind of each sentence, as the engine computes them (the head, with the neighbours' vote
    on English sentences)."""
    english = [sentence_language(t) == "en" for t in texts]
    per_kind = engine_probabilities(embeddings(list(texts), cache), english, list(texts))
    return per_kind.max(axis=1), np.asarray(load_head().labels)[per_kind.argmax(axis=1)]


def _cell(pr: tuple[float, float]) -> str:
    return f"{_num(pr[0])} / {_num(pr[1])}"


def _num(x: float) -> str:
    """Two decimals, or a dash for a precision of nothing flagged."""
    return "-" if x != x else f"{x:.2f}"


def _pr(flagged: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    tp = int((flagged & truth).sum())
    return (tp / int(flagged.sum()) if flagged.any() else float("nan")), tp / max(int(truth.sum()), 1)


def per_kind_table(df: pd.DataFrame) -> str:
    """Per kind: n, recall and precision for e5 (with kind accuracy) and the classifier."""
    rows = [
        "| kind | n | e5 recall | e5 precision | e5 names the kind | classifier recall | classifier precision |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    clean = df["kind"] == "clean"
    fp_e5, fp_cls = int((df["e5"] & clean).sum()), int((df["cls"] & clean).sum())
    for kind in KINDS:
        part = df[df["kind"] == kind]
        hit, hit_c = int(part["e5"].sum()), int(part["cls"].sum())
        named = (part.loc[part["e5"], "e5_kind"] == kind).mean() if hit else float("nan")
        rows.append(
            f"| {kind} | {len(part)} | {hit / len(part):.2f} | {hit / (hit + fp_e5) if hit else float('nan'):.2f} "
            f"| {named:.2f} | {hit_c / len(part):.2f} | {hit_c / (hit_c + fp_cls) if hit_c else float('nan'):.2f} |"
        )
    for group, part in df[clean].groupby("group"):
        rows.append(
            f"| clean: {group} | {len(part)} | false alarms {int(part['e5'].sum())} | | "
            f"| false alarms {int(part['cls'].sum())} | |"
        )
    truth = ~clean.to_numpy()
    p, r = _pr(df["e5"].to_numpy(), truth)
    pc, rc = _pr(df["cls"].to_numpy(), truth)
    named_all = (df.loc[df["e5"] & ~clean, "e5_kind"] == df.loc[df["e5"] & ~clean, "kind"]).mean()
    rows.append(f"| **all** | {len(df)} | {r:.2f} | {p:.2f} | {named_all:.2f} | {rc:.2f} | {pc:.2f} |")
    return "\n".join(rows)


def per_language_table(df: pd.DataFrame) -> str:
    rows = [
        "| language | sentences (toxic) | e5 precision | e5 recall | classifier precision | classifier recall |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for lang in LANGS:
        part = df[df["lang"] == lang]
        truth = (part["kind"] != "clean").to_numpy()
        p, r = _pr(part["e5"].to_numpy(), truth)
        pc, rc = _pr(part["cls"].to_numpy(), truth)
        rows.append(f"| {lang} | {len(part)} ({int(truth.sum())}) | {_num(p)} | {_num(r)} | {_num(pc)} | {_num(rc)} |")
    return "\n".join(rows)


def equal_precision_table(sets: dict[str, pd.DataFrame]) -> str:
    """The classifier at 0.5 against e5 at the smallest threshold whose precision is at least the classifier's."""
    rows = [
        "| test set | sentences (toxic) | classifier P / R | e5 threshold at equal precision | e5 P / R there "
        "| e5 P / R at its default |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    default = load_head().threshold
    for name, df in sets.items():
        truth = (df["toxic"] == 1).to_numpy()
        pc, rc = _pr(df["cls"].to_numpy(), truth)
        prob = df["e5_p"].to_numpy()
        t = next((t for t in GRID if _pr(prob >= t, truth)[0] >= pc), None)
        there = "none reaches it" if t is None else _cell(_pr(prob >= t, truth))
        rows.append(
            f"| {name} | {len(df)} ({int(truth.sum())}) | {pc:.2f} / {rc:.2f} | {t if t is not None else '-'} "
            f"| {there} | {_cell(_pr(prob >= default, truth))} |"
        )
    return "\n".join(rows)


def load_vader_positive() -> pd.DataFrame | None:
    files = sorted(VADER.glob("*.csv"))
    if not files:
        return None
    frames = [pd.read_csv(f, dtype={"id": str, "text": str}, keep_default_na=False).assign(set=f.stem) for f in files]
    data = pd.concat(frames, ignore_index=True)
    return data[data["human_rating"] >= 2.0].reset_index(drop=True)


def vader_rates(positive: pd.DataFrame, cache: Path | None) -> tuple[np.ndarray, np.ndarray]:
    """Per positive text: the largest e5 sentence probability, and whether the classifier flags any sentence."""
    sentences = [[s.text for s in split_smart(t)] for t in positive["text"]]
    flat = list(dict.fromkeys(s for group in sentences for s in group))
    prob, _ = e5_probability(flat, cache)
    by_text = dict(zip(flat, prob, strict=True))
    cls = dict(zip(flat, [v.toxic for v in classify(flat, CLASSIFIER_THRESHOLD)], strict=True))
    top = np.array([max((by_text[s] for s in g), default=0.0) for g in sentences])
    return top, np.array([any(cls[s] for s in g) for g in sentences])


def vader_table(positive: pd.DataFrame, top: np.ndarray, cls: np.ndarray) -> str:
    default = load_head().threshold
    rows = ["| engine | set | positive texts | flagged | false-alarm rate |", "| --- | --- | ---: | ---: | ---: |"]
    for name, part in [*positive.groupby("set"), ("all four", positive)]:
        idx = part.index.to_numpy()
        for engine, flags in ((f"e5 (threshold {default:g})", top[idx] >= default), ("classifier (0.5)", cls[idx])):
            rows.append(f"| {engine} | {name} | {len(idx)} | {int(flags.sum())} | {flags.mean():.2%} |")
    return "\n".join(rows)


def sweep_table(fresh: pd.DataFrame, top: np.ndarray | None) -> str:
    head = load_head().meta
    cv = {c["threshold"]: c for c in head["crossValidation"]["curve"]}  # type: ignore[index]
    truth = (fresh["toxic"] == 1).to_numpy()
    rows = [
        "| threshold | cross-validated P / R | fresh P / R | VADER positive texts flagged |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for t in (0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.72, 0.74, 0.75, 0.76, 0.78, 0.8, 0.85, 0.9):
        p, r = _pr(fresh["e5_p"].to_numpy() >= t, truth)
        fa = f"{(top >= t).mean():.2%}" if top is not None else "-"
        rows.append(f"| {t:.2f} | {cv[t]['precision']:.2f} / {cv[t]['recall']:.2f} | {p:.2f} / {r:.2f} | {fa} |")
    return "\n".join(rows)


def speed_table(positive: pd.DataFrame) -> str:
    from scoring.text.embeddings import clear_cache

    texts = positive["text"].tolist()[:500]
    scorer = create_toxicity_scorer(engine="e5")
    scorer.score_many(outputs=["warm up"])
    clear_cache()
    start = time.perf_counter()
    scorer.score_many(outputs=texts)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    scorer.score_many(outputs=texts)
    warm = time.perf_counter() - start
    n = len({s.text for t in texts for s in split_smart(t)})
    return "\n".join(
        [
            "| path | texts | distinct sentences | seconds | texts/s |",
            "| --- | ---: | ---: | ---: | ---: |",
            f"| e5 score_many, cold cache | {len(texts)} | {n} | {cold:.1f} | {len(texts) / cold:,.0f} |",
            f"| e5 score_many, sentences cached | {len(texts)} | {n} | {warm:.2f} | {len(texts) / warm:,.0f} |",
        ]
    )


def labelled_fresh() -> pd.DataFrame:
    df = pd.read_csv(LABELLED, keep_default_na=False)
    return df[df["split"] == "fresh"].assign(lang="en").reset_index(drop=True)


def score(df: pd.DataFrame, cache: Path | None) -> pd.DataFrame:
    prob, kind = e5_probability(df["text"].tolist(), cache)
    threshold = load_head().threshold
    cls = [v.toxic for v in classify(df["text"].tolist(), CLASSIFIER_THRESHOLD)]
    return df.assign(e5_p=prob, e5_kind=kind, e5=prob >= threshold, cls=cls)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sweep", action="store_true", help="also print threshold against the measured rates")
    parser.add_argument("--cache", type=Path, default=None, help="embedding cache folder")
    parser.add_argument("--speed", action="store_true", help="also time score_many on 500 VADER texts")
    args, _ = parser.parse_known_args(argv)
    cache = args.cache or default_cache()
    threshold = load_head().threshold
    fresh = score(pd.read_csv(FRESH, keep_default_na=False), cache)
    old = score(labelled_fresh(), cache)
    print(f"# e5 toxicity engine, default threshold {threshold:g}\n")
    print(f"## Fresh test set ({len(fresh)} sentences, written after the head was frozen), per kind\n")
    print(per_kind_table(fresh) + "\n")
    print(f"## Fresh test set, per language\n\n{per_language_table(fresh)}\n")
    sets = {
        "fresh, all languages": fresh,
        "fresh, English": fresh[fresh["lang"] == "en"],
        "fresh, other languages": fresh[fresh["lang"] != "en"],
        f"labelled set's `fresh` split (English, {len(old)})": old,
    }
    print(f"## e5 against the classifier at equal precision\n\n{equal_precision_table(sets)}\n")
    positive = load_vader_positive()
    top = None
    if positive is None:
        print(f"(VADER ground truth not found in {VADER}: false-alarm rates skipped)\n")
    else:
        top, cls = vader_rates(positive, cache)
        print("## Flag rate on real texts people rated clearly positive (rating >= 2)\n")
        print(vader_table(positive, top, cls) + "\n")
    if args.sweep:
        print(f"## Threshold sweep\n\n{sweep_table(fresh, top)}\n")
    if args.speed and positive is not None:
        print(f"## Speed\n\n{speed_table(positive)}\n")


if __name__ == "__main__":
    main()
