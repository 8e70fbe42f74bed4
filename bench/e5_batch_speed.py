"""``python -m bench.e5_batch_speed [FILE] [--column output]``: the e5 work of a batch run, estimated and measured.

Scores a file's replies (default: the bundled sample) on one process with the courtesy scorer and with the tone
scorer's e5 engine (stability mode; ``--tone-only`` for it alone: after courtesy its sentences come from the
embedding cache), each after a warm-up that loads its model, and prints each one's estimate
(:func:`scoring.text.e5_estimate.e5_work`) beside the time it took: where
:data:`scoring.text.e5_estimate.TEXTS_PER_SECOND` comes from. Run it with ``nice -n 10`` on a shared machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from scoring.registry import get_scorer
from scoring.text.e5_estimate import e5_work

SAMPLE = Path(__file__).resolve().parents[1] / "scoring" / "data" / "sample_responses.csv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.e5_batch_speed", description=__doc__)
    parser.add_argument("file", type=Path, nargs="?", default=SAMPLE, help="a CSV file of replies (the sample)")
    parser.add_argument("--column", default="output", help="the column of replies (default: output)")
    parser.add_argument("--tone-only", action="store_true", help="measure tone's e5 engine alone (cold cache)")
    args = parser.parse_args(argv)
    outputs = [o for o in pd.read_csv(args.file, keep_default_na=False)[args.column].tolist() if str(o).strip()]
    runs = [("tone e5", get_scorer("tone", engine="e5"), e5_work(outputs, tone=True))]
    if not args.tone_only:
        runs.insert(0, ("courtesy", get_scorer("courtesy"), e5_work(outputs, courtesy=True)))
    for name, scorer, work in runs:
        scorer.score_many(outputs=["Loading the model first. Then the rest."])  # the load is not part of the rate
        start = time.perf_counter()
        scorer.score_many(outputs=outputs)
        took = time.perf_counter() - start
        sys.stdout.write(f"{name}: estimate: {work.sentence()}\n{name}: measured: {work.texts:,} texts in "
                         f"{took:.1f} s = {work.texts / took:.1f} texts/s on one process\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
