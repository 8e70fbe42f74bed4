"""``python -m bench.tone_parts``: where the tone batch path spends its time, in microseconds per row.

Same rows as ``python -m bench`` (20,000 by default; ``--rows``), one process, best of ``--rounds`` with every
per-text cache cleared before each pass. Prints the cost of each step the batch path takes for a row:
splitting the reply, scoring its sentences (VADER or AFINN), the language check behind ``tone-scorer.warnings``,
``ToneScorer.score_many`` as a whole, and ``evaluate`` as a whole.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from bench.throughput import best_of, build_rows
from scoring.batch.runner import evaluate
from scoring.text.language import coverage_warning
from scoring.text.splitters import split_mastra, split_smart
from scoring.tone.engines import get_engine
from scoring.tone.scorer import create_tone_scorer


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.tone_parts", description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000, help="rows (20000)")
    parser.add_argument("--rounds", type=int, default=3, help="passes; the best counts (3)")
    return parser.parse_args()


def main() -> None:
    args = _args()
    df = build_rows(args.rows)
    outputs = df["output"].tolist()
    evaluate(df.head(200), scorers=["tone"])  # load lexicons and the language model once, as a warm process has
    sentences = {"vader": [s.text for o in outputs for s in split_smart(o)],
                 "afinn": [s.text for o in outputs for s in split_mastra(o)]}  # fmt: skip
    steps: dict[str, Callable[[], object]] = {
        "split_smart (each reply)": lambda: [split_smart(o) for o in outputs],
        "split_mastra (each reply)": lambda: [split_mastra(o) for o in outputs],
        "VADER polarities (its sentences, repeats cached)": lambda: get_engine("vader").polarities(sentences["vader"]),
        "AFINN polarities (its sentences)": lambda: get_engine("afinn").polarities(sentences["afinn"]),
        "language check (coverage_warning of each reply)": lambda: [coverage_warning(o, "vader") for o in outputs],
        "ToneScorer.score_many, vader/smart": lambda: create_tone_scorer().score_many(outputs=outputs),
        "ToneScorer.score_many, afinn/mastra": lambda: create_tone_scorer(engine="afinn", splitter="mastra").score_many(
            outputs=outputs
        ),
        "evaluate(scorers=['tone']), vader/smart": lambda: evaluate(df, scorers=["tone"]),
        "evaluate(scorers=['tone']), afinn/mastra": lambda: evaluate(
            df, scorers=["tone"], engine="afinn", splitter="mastra"
        ),
    }
    print(f"{len(df):,} rows (replies of about 3 sentences), 1 process, best of {args.rounds}\n")
    print("| Step | µs per row |\n| --- | ---: |")
    for name, step in steps.items():
        print(f"| {name} | {best_of(args.rounds, step) / len(df) * 1e6:.1f} |")


if __name__ == "__main__":
    main()
