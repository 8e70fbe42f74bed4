"""The per-item path a Python user calls first: ``scorer.run`` and ``run_evals``, against ``@mastra/evals``.

Run ``python -m bench.per_item [--rounds 3] [--rows N]``. Every VADER ground-truth text (23,703 with the
shared data) is one item: its output is the text, its input the next text. ``@mastra/evals``'
``scorer.run`` (Node.js) and ours score the same items in the same run, one process each, best of
``--rounds`` passes with our per-text caches cleared before each pass. Prints a markdown table of
items/s and the ratio to Mastra's ``scorer.run`` for tone (VADER, AFINN) and content similarity.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

import pandas as pd

from bench.throughput import _rate, best_of, node_timings, source_texts
from scoring import create_content_similarity_scorer, create_tone_scorer, run_evals


def items(n: int | None) -> pd.DataFrame:
    """Return the items: each text as an output, the next text as its input."""
    texts = source_texts()
    if n is not None:
        texts = texts[:n]
    return pd.DataFrame({"input": texts[1:] + texts[:1], "output": texts})


def ours(df: pd.DataFrame, rounds: int) -> dict[str, float]:
    """Return {label: seconds} for scorer.run in a loop and for run_evals, per scorer."""
    inputs, outputs = df["input"].tolist(), df["output"].tolist()
    data = [{"input": i, "output": o} for i, o in zip(inputs, outputs, strict=True)]
    scorers = {
        "tone, VADER (default)": create_tone_scorer(),
        "tone, AFINN as Mastra": create_tone_scorer(engine="afinn", splitter="mastra"),
        "content similarity": create_content_similarity_scorer(),
    }
    out: dict[str, float] = {}
    for label, scorer in scorers.items():
        scorer.run(input=inputs[0], output=outputs[0])  # load lexicons and models once

        def loop(s: object = scorer) -> None:
            run = s.run  # type: ignore[attr-defined]
            for i, o in zip(inputs, outputs, strict=True):
                run(input=i, output=o)

        def evals(s: object = scorer) -> None:
            run_evals(data, [s])  # type: ignore[list-item]

        timed: dict[str, Callable[[], None]] = {"scorer.run": loop, "run_evals": evals}
        for how, fn in timed.items():
            out[f"{label}|{how}"] = best_of(rounds, fn)
    return out


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.per_item", description=__doc__)
    parser.add_argument("--rows", type=int, default=None, help="first N texts only (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="passes per measurement; the best is kept (3)")
    args = parser.parse_args()
    df = items(args.rows)
    n = len(df)
    print(f"{n:,} items, {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.1f}")
    node = node_timings(df, n, args.rounds)
    mastra = {
        "tone": _rate(node["mastraTone"]["rows"], node["mastraTone"]["seconds"]),
        "content similarity": _rate(node["mastraSimilarity"]["rows"], node["mastraSimilarity"]["seconds"]),
    }
    print("| Scorer | Path | Items/s | vs `@mastra/evals` `scorer.run` |")
    print("| --- | --- | ---: | ---: |")
    print(f"| tone | `@mastra/evals` `createToneScorer().run` | {mastra['tone']:,.0f} | 1.0x |")
    sim = mastra["content similarity"]
    print(f"| similarity | `@mastra/evals` `createContentSimilarityScorer().run` | {sim:,.0f} | 1.0x |")
    for key, seconds in ours(df, args.rounds).items():
        label, how = key.split("|")
        rate = _rate(n, seconds)
        base = mastra["tone"] if label.startswith("tone") else mastra["content similarity"]
        print(f"| {label} | ours, `{how}` | {rate:,.0f} | {rate / base:,.1f}x |")


if __name__ == "__main__":
    main()
