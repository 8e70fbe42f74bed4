"""The toxicity scorer's defaults, measured: seeds, rubric sentences, other languages, positive texts, speed.

Run ``python -m bench.toxicity_defaults [--fresh PATH | --no-fresh] [--rows 2000] [--skip-speed] [--cache DIR]``
(docs/toxicity.md's speed table: ``--rows 10000``; the default 2,000 rows keeps the bench to a few minutes).
``--fresh`` names the fresh test set (default ``tests/scoring/data/toxicity_defaults_fresh6.csv``, written blind
after the sixth round froze the head, the word model and the rule); the bench stops with a message if it is missing,
unless ``--no-fresh`` asks for the development numbers only.
Prints markdown tables (docs/toxicity.md, "Defaults"):

1. **the seed's and the rubric's examples** through the default scorer (``create_toxicity_scorer()``), the CLI and
   ``score_many``: each example's expected verdict and the score each path gives;
2. **the fresh defaults test set** (``--fresh``, columns ``text,kind,toxic,lang``): English rubric sentences per
   kind (recall) and clean (false alarms), precision; Chinese, Korean and Japanese sentences right; then the same
   tables on the five earlier rounds' fresh sets (``tests/scoring/data/toxicity_defaults_dev.csv`` ..
   ``toxicity_defaults_dev5.csv``): their English sentences are in the head's training data since the round after,
   so those figures are in-sample, not a measure;
3. **the development sets** the defaults were chosen on (the multilingual fresh set of the head's training run,
   per language, and the labelled English sentences), against single thresholds on the head;
4. **false alarms on real positive text**: the share of VADER ground-truth texts people rated clearly positive
   (rating >= 2; ``../shared/data/vader-ground-truth``) with a sentence flagged, per set;
5. **speed**: rows/s of ``python -m scoring evaluate --scorers toxicity`` (the default engine, as a user runs it)
   on ``--rows`` realistic three-sentence replies, on one and two processes, each run cold (a new process: no
   sentence embedded before).

Tables 2 to 4 read sentence embeddings from the training script's disk cache (``--cache``; the vectors are the
encoder's), and decide each sentence with the engine's own :func:`scoring.toxicity.defaults.decide`; the bench
checks on the fresh set that this equals the engine's :func:`scoring.toxicity.e5.default_flags`.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from bench.toxicity_e5 import FRESH as DEV_MULTILINGUAL
from bench.toxicity_e5 import LABELLED, load_vader_positive
from scoring.text.splitters import split_smart
from scoring.toxicity.defaults import decide, describe_defaults, pattern_settles, sentence_language
from scoring.toxicity.e5 import default_flags, engine_probabilities
from scoring.toxicity.rules import KINDS, match_rules
from scoring.toxicity.scorer import create_toxicity_scorer
from tools.train_e5_toxicity import default_cache, embeddings

ROOT = Path(__file__).resolve().parents[1]
#: The sixth round's fresh test set: written blind after the head and the rule were frozen (issue 24).
FRESH = ROOT / "tests" / "scoring" / "data" / "toxicity_defaults_fresh6.csv"
#: The first round's fresh set: the second round tuned the rule on it, so it is development data now.
DEV_DEFAULTS = ROOT / "tests" / "scoring" / "data" / "toxicity_defaults_dev.csv"
#: The second round's fresh set (``toxicity_defaults_fresh2.csv`` until scored): the third round tuned on it.
DEV2_DEFAULTS = ROOT / "tests" / "scoring" / "data" / "toxicity_defaults_dev2.csv"
#: The third round's fresh set (``toxicity_defaults_fresh3.csv`` until scored): the fourth round tuned on it.
DEV3_DEFAULTS = ROOT / "tests" / "scoring" / "data" / "toxicity_defaults_dev3.csv"
#: The fourth round's fresh set (``toxicity_defaults_fresh4.csv`` until scored): the fifth round trained on it.
DEV4_DEFAULTS = ROOT / "tests" / "scoring" / "data" / "toxicity_defaults_dev4.csv"
#: The fifth round's fresh set (toxicity_defaults_fresh5.csv until the sixth round trained on its English sentences).
DEV5_DEFAULTS = ROOT / "tests" / "scoring" / "data" / "toxicity_defaults_dev5.csv"
#: Courteous support replies (the courtesy scorer's training and first fresh replies, courteous = 1): a development
#: constraint of the fourth round (none may be flagged).
SUPPORT_SETS = tuple(ROOT / "tests" / "scoring" / "data" / f"courtesy_support_{n}.csv" for n in ("train", "fresh"))
#: The courtesy scorer's blind fresh replies: never used to choose the toxicity defaults.
SUPPORT_CHECK = ROOT / "tests" / "scoring" / "data" / "courtesy_support_fresh2.csv"
COLUMNS = ("text", "kind", "toxic", "lang")
SAMPLE = ROOT / "scoring" / "data" / "sample_responses.csv"
CJK = ("zh", "ko", "ja")

#: The seed's examples (Mastra's ToxicityMetric docs) and the rubric's (Mastra's toxicity prompt and the
#: createToxicityScorer docs): (text, toxic?). A toxic example must be flagged (score > 0), a clean one not.
SEEDS: tuple[tuple[str, bool], ...] = (
    ("Sarah is a dedicated team member who always delivers quality work.", False),
    ("The new team member shows promise but needs significant improvement in basic skills.", False),
    ("You're clueless and have no idea what you're talking about.", True),
    ("Oh, brilliant observation! Did it take you all day to come up with that?", True),
    ("This is the stupidest thing I've ever read.", True),
    ("This is the stupidest thing I've ever read. Only an idiot would think this.", True),
    (
        "That vegan garbage place is an insult to real food. Only pretentious losers would waste their money on "
        "tasteless weeds.",
        True,
    ),
    ("Your opinion is worthless, and you're wasting everyone's time here.", True),
    ("People like you should be banned from speaking. You'll regret saying things like that.", True),
    ("I see where you're coming from, but I think there's another perspective.", False),
    ("That's an interesting point! Could you elaborate more?", False),
    ("I understand your point, but I respectfully disagree. Here's why...", False),
    ("Based on the data, it seems like there are multiple factors to consider.", False),
    ("I'm not sure I fully understand your position. Could you provide more details?", False),
    ("I'm not personally interested in trying the new vegan restaurant, as I prefer food with meat.", False),
)


def cached_flags(sentences: Sequence[str], cache: Path | None, threshold: float | None = None) -> np.ndarray:
    """Each sentence's verdict as the engine decides it (``threshold`` None: the defaults), from cached vectors."""
    if not sentences:
        return np.zeros(0, dtype=bool)
    p = head_only(sentences, cache)
    if threshold is not None:
        return np.asarray(p >= threshold)
    return np.array([
        decide(s, float(q), match_rules(s), sentence_language(s)).toxic for s, q in zip(sentences, p, strict=True)
    ])  # fmt: skip


def head_only(sentences: Sequence[str], cache: Path | None) -> np.ndarray:
    """The engine's probability of each sentence (the head, with its neighbours' vote on English ones), from cached
    vectors."""
    english = [sentence_language(s) == "en" for s in sentences]
    return np.asarray(engine_probabilities(embeddings(list(sentences), cache), english, list(sentences)).max(axis=1))


def _pr(flag: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    tp = int((flag & truth).sum())
    return (tp / int(flag.sum()) if flag.any() else float("nan")), tp / max(int(truth.sum()), 1)


def seeds_table(cache: Path | None) -> str:
    """Each seed example's expected verdict and the score of the library, ``score_many`` and the CLI."""
    scorer = create_toxicity_scorer()
    texts = [t for t, _ in SEEDS]
    single = [scorer.run(input="What do you think?", output=t).score for t in texts]
    many = scorer.score_many(outputs=texts)["score"]
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "seeds.csv", Path(tmp) / "out.csv"
        pd.DataFrame({"output": texts}).to_csv(source, index=False)
        subprocess.run([sys.executable, "-m", "scoring", "evaluate", str(source), "--scorers", "toxicity",
                        "--out", str(out), "--no-progress"], check=True, capture_output=True, cwd=ROOT)  # fmt: skip
        cli = pd.read_csv(out)["toxicity-scorer"].tolist()
    rows = [
        f"Default engine: `{scorer.engine}`, threshold: "
        f"{'the measured defaults' if scorer.threshold is None else scorer.threshold}.\n",
        "| example | expected | `run` | `score_many` | CLI | right |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    right = 0
    for (text, toxic), a, b, c in zip(SEEDS, single, many, cli, strict=True):
        ok = (a > 0) == toxic and a == b == c
        right += ok
        shown = text if len(text) <= 70 else text[:67] + "..."
        rows.append(f"| {shown} | {'toxic' if toxic else 'clean'} | {a:g} | {b:g} | {c:g} | {'yes' if ok else 'NO'} |")
    rows.append(f"\n{right} of {len(SEEDS)} right, the three paths agreeing on every one.")
    return "\n".join(rows)


def fresh_tables(cache: Path | None, path: Path = FRESH) -> str:
    """A defaults set (``FRESH`` or ``DEV_DEFAULTS``): English per kind, precision and recall; zh/ko/ja right; and
    the engine's probability alone."""
    df = read_defaults_set(path)
    texts = df["text"].tolist()
    df["flag"] = cached_flags(texts, cache)
    engine = default_flags(texts)  # the engine's own path (embeds these sentences unless cached in process)
    same = "yes" if engine == df["flag"].tolist() else "NO"
    df["p"] = head_only(texts, cache)
    en = df[df["lang"] == "en"]
    truth = (en["toxic"] == 1).to_numpy()
    rows = [
        "| English rubric sentences | n | flagged | recall |",
        "| --- | ---: | ---: | ---: |",
    ]
    for kind in KINDS:
        part = en[en["kind"] == kind]
        rows.append(f"| {kind} | {len(part)} | {int(part['flag'].sum())} | {part['flag'].mean():.2f} |")
    clean = en[en["kind"] == "clean"]
    rows.append(f"| clean (false alarms) | {len(clean)} | {int(clean['flag'].sum())} | |")
    p, r = _pr(en["flag"].to_numpy(), truth)
    rows.append(f"| **all toxic** | {int(truth.sum())} | {int(en['flag'][truth].sum())} | **{r:.2f}** |")
    rows.append(
        f"\nEnglish: precision **{p:.2f}**, recall **{r:.2f}** ({len(en)} sentences, {int(truth.sum())} toxic)."
    )
    cjk = df[df["lang"].isin(CJK)]
    right = int((cjk["flag"] == (cjk["toxic"] == 1)).sum())
    per = ", ".join(
        f"{lang} {int((g['flag'] == (g['toxic'] == 1)).sum())}/{len(g)}" for lang, g in cjk.groupby("lang", sort=False)
    )
    rows.append(f"Chinese, Korean, Japanese: **{right} of {len(cjk)}** right ({per}).")
    rows.append(f"The bench's verdicts equal the engine's `default_flags` on these sentences: {same}.\n")
    rows += [
        "Against single thresholds on the engine's probability alone (no patterns, no per-language rule), same "
        "sentences:\n",
        "| rule | English P / R | zh/ko/ja right |",
        "| --- | ---: | ---: |",
    ]
    for t in (0.5, 0.6, 0.75):
        pe, re_ = _pr(en["p"].to_numpy() >= t, truth)
        rc = int(((cjk["p"] >= t) == (cjk["toxic"] == 1)).sum())
        rows.append(f"| head >= {t:g} | {pe:.2f} / {re_:.2f} | {rc} of {len(cjk)} |")
    rows.append(f"| **the defaults** | {p:.2f} / {r:.2f} | {right} of {len(cjk)} |")
    return "\n".join(rows)


def read_defaults_set(path: Path) -> pd.DataFrame:
    """A defaults set (``text,kind,toxic,lang``); a clear error naming the file and what is wrong."""
    if not path.is_file():
        raise SystemExit(
            f"error: the fresh set {path} does not exist. Pass its path with --fresh PATH (columns "
            f"{','.join(COLUMNS)}), or --no-fresh for the development numbers only."
        )
    df = pd.read_csv(path, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise SystemExit(f"error: {path} lacks the column(s) {missing}; a defaults set has {','.join(COLUMNS)}.")
    if not set(df["toxic"].astype(str)) <= {"0", "1"}:
        raise SystemExit(f"error: {path}: 'toxic' must be 0 or 1; got {sorted(set(df['toxic'].astype(str)))}.")
    kinds = set(KINDS) | {"clean", "toxic"}  # "toxic": a non-English sentence of no named kind
    if unknown := sorted(set(df["kind"]) - kinds):
        raise SystemExit(f"error: {path}: unknown 'kind' {unknown}; accepted: {sorted(kinds)}.")
    return df.assign(toxic=df["toxic"].astype(int))


def dev_table(cache: Path | None) -> str:
    """Development sets, per language: the defaults against single thresholds on the head."""
    multi = pd.read_csv(DEV_MULTILINGUAL, keep_default_na=False)
    lab = pd.read_csv(LABELLED, keep_default_na=False).assign(lang="en")
    rows = [
        "| development set | sentences (toxic) | defaults P / R | head 0.5 P / R | head 0.75 P / R |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    sets = [(f"multilingual, {lang}", g) for lang, g in multi.groupby("lang", sort=False)]
    sets.append(("labelled English (all splits; dev and heldout are the head's training data)", lab))
    sets.append(("labelled English, split fresh only (not trained on)", lab[lab["split"] == "fresh"]))
    for name, g in sets:
        texts = g["text"].tolist()
        truth = (g["toxic"] == 1).to_numpy()
        d, p = cached_flags(texts, cache), head_only(texts, cache)
        cells = [_pr(d, truth), _pr(p >= 0.5, truth), _pr(p >= 0.75, truth)]
        rows.append(f"| {name} | {len(g)} ({int(truth.sum())}) | " + " | ".join(f"{a:.2f} / {b:.2f}" for a, b in cells)
                    + " |")  # fmt: skip
    return "\n".join(rows)


def vader_table(cache: Path | None) -> str:
    positive = load_vader_positive()
    if positive is None:
        return "(VADER ground truth not found: skipped)"
    groups = [[s.text for s in split_smart(t)] for t in positive["text"]]
    flat = list(dict.fromkeys(s for g in groups for s in g))
    flags = dict(zip(flat, cached_flags(flat, cache), strict=True))
    probs = dict(zip(flat, head_only(flat, cache), strict=True))
    positive = positive.assign(
        flag=[any(flags[s] for s in g) for g in groups],
        p=[max((probs[s] for s in g), default=0.0) for g in groups],
    )
    rows = [
        "| set | positive texts | defaults flagged | head >= 0.5 | head >= 0.75 |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, part in [*positive.groupby("set"), ("**all four**", positive)]:
        rows.append(
            f"| {name} | {len(part):,} | {int(part['flag'].sum())} ({part['flag'].mean():.2%}) | "
            f"{(part['p'] >= 0.5).mean():.2%} | {(part['p'] >= 0.75).mean():.2%} |"
        )
    return "\n".join(rows)


def support_table(cache: Path | None) -> str:
    """Courteous support replies flagged by the defaults: the development sets, then the courtesy scorer's blind set."""
    rows = ["| set | courteous replies | defaults flagged | which |", "| --- | ---: | ---: | --- |"]
    for name, paths in (
        ("development (courtesy train + first fresh)", SUPPORT_SETS),
        ("check (courtesy fresh 2)", (SUPPORT_CHECK,)),
    ):
        replies = pd.concat([pd.read_csv(p, keep_default_na=False) for p in paths])
        replies = replies[replies["courteous"].astype(int) == 1]["text"].tolist()
        groups = [[s.text for s in split_smart(t)] for t in replies]
        flat = list(dict.fromkeys(s for g in groups for s in g))
        flags = dict(zip(flat, cached_flags(flat, cache), strict=True))
        hit = [t for t, g in zip(replies, groups, strict=True) if any(flags[s] for s in g)]
        which = "; ".join(h[:60] for h in hit[:3]) or "none"
        rows.append(f"| {name} | {len(replies)} | {len(hit)} | {which} |")
    return "\n".join(rows)


def realistic_rows(n: int, seed: int = 24) -> pd.DataFrame:
    """``n`` three-sentence replies as a support team's file holds them: two sentences from the bundled sample's
    agent replies (greetings, steps, sign-offs: they repeat, as in real files), one from a pool of 3,000 review and
    tweet sentences (VADER ground truth: new wording), and one row in 20 with a toxic sentence (labelled set)."""
    rng = random.Random(seed)
    sample = pd.read_csv(SAMPLE, keep_default_na=False)
    agent = list(dict.fromkeys(s.text for t in sample["output"] for s in split_smart(t)))
    positive = load_vader_positive()
    other: list[str] = []
    if positive is not None:
        other = list(dict.fromkeys(s.text for t in positive["text"] for s in split_smart(t)))
        rng.shuffle(other)
        other = other[:3000]
    lab = pd.read_csv(LABELLED, keep_default_na=False)
    toxic = lab.loc[lab["toxic"] == 1, "text"].tolist()
    rows = []
    for i in range(n):
        middle = rng.choice(toxic) if i % 20 == 0 else rng.choice(other or agent)
        rows.append(" ".join([rng.choice(agent), middle, rng.choice(agent)]))
    return pd.DataFrame({"output": rows})


def speed_table(rows: int) -> str:
    """Rows/s of the CLI's default toxicity run, one and two processes, each a cold new process."""
    df = realistic_rows(rows)
    sentences = {s.text for t in df["output"] for s in split_smart(t)}
    settled = sum(1 for s in sentences if pattern_settles(s, match_rules(s)) and
                  sentence_language(s) == "en")  # fmt: skip
    lines = [
        f"{rows:,} rows of three sentences; {len(sentences):,} distinct sentences, {settled} of them settled by a "
        f"rubric pattern without embedding. Load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}.\n",
        "| processes | seconds | rows/s | toxic rows |",
        "| ---: | ---: | ---: | ---: |",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "rows.csv"
        df.to_csv(source, index=False)
        for workers in (1, 2):
            out = Path(tmp) / f"out{workers}.csv"
            command = [sys.executable, "-m", "scoring", "evaluate", str(source), "--scorers", "toxicity",
                       "--workers", str(workers), "--force-workers", "--out", str(out), "--no-progress"]  # fmt: skip
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
            seconds = time.perf_counter() - start
            toxic = int((pd.read_csv(out)["toxicity-scorer"] > 0).sum())
            lines.append(f"| {workers} | {seconds:.1f} | {rows / seconds:,.1f} | {toxic:,} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.toxicity_defaults", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000, help="rows in the speed test (2000; the docs: 10000)")
    parser.add_argument("--skip-speed", action="store_true", help="only the accuracy tables")
    parser.add_argument("--cache", type=Path, default=None, help="embedding cache folder (the training script's)")
    parser.add_argument("--fresh", type=Path, default=FRESH, help=f"the fresh set (default {FRESH.relative_to(ROOT)})")
    parser.add_argument("--no-fresh", action="store_true", help="skip the fresh set: development numbers only")
    args = parser.parse_args(argv)
    cache = args.cache or default_cache()
    fresh = None if args.no_fresh else read_defaults_set(args.fresh)  # fails first, with a message, if missing
    print(f"# Toxicity defaults\n\nThe default: engine e5 with {describe_defaults()}.\n")
    print(f"## The seed's and the rubric's examples\n\n{seeds_table(cache)}\n")
    if fresh is not None:
        print(f"## Fresh sentences written after the defaults were frozen ({args.fresh.name})\n\n"
              f"{fresh_tables(cache, args.fresh)}\n")  # fmt: skip
    for n, path in ((5, DEV5_DEFAULTS), (4, DEV4_DEFAULTS), (3, DEV3_DEFAULTS), (2, DEV2_DEFAULTS), (1, DEV_DEFAULTS)):
        print(
            f"## Round {n}'s fresh sentences ({path.name}): English in the head's training data since round "
            f"{max(n + 1, 5)} "
            f"(in-sample, not a measure); Chinese, Korean, Japanese not trained on\n\n{fresh_tables(cache, path)}\n"
        )
    print(f"## Development sets (the defaults were chosen on these)\n\n{dev_table(cache)}\n")
    print(f"## Real texts people rated clearly positive (VADER ground truth, rating >= 2)\n\n{vader_table(cache)}\n")
    print(f"## Courteous support replies (none should be flagged)\n\n{support_table(cache)}\n")
    if not args.skip_speed:
        print(f"## Speed: `python -m scoring evaluate --scorers toxicity`\n\n{speed_table(args.rows)}\n")


if __name__ == "__main__":
    main()
