"""``python -m bench.vader_core``: the VADER engine with its compiled core and with it off, in one process.

Same rows as ``python -m bench`` (20,000 by default; ``--rows``). Each round times, by CPU time of this
process, the core on then off (``engine._core`` set aside; every other core stays as it is), so both see the
same load; every per-text cache is cleared before each pass, and the best of ``--rounds`` counts. Steps: VADER
polarities of the replies' sentences, ``ToneScorer.score_many`` (vader/smart), and ``ToneScorer.run`` on each
of the first ``--run-rows`` replies. Prints a markdown table in µs per row and the ratio.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from bench.throughput import build_rows
from scoring.text import language
from scoring.text.splitters import split_smart
from scoring.tone.engines import get_engine
from scoring.tone.lexicons import VaderEngine
from scoring.tone.scorer import create_tone_scorer


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.vader_core", description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000, help="rows (20000)")
    parser.add_argument("--run-rows", type=int, default=5_000, help="replies scored one by one with run (5000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; the best counts (5)")
    return parser.parse_args()


def main() -> None:
    args = _args()
    outputs = build_rows(args.rows)["output"].tolist()
    engine = get_engine("vader")
    assert isinstance(engine, VaderEngine)
    core = engine._core
    if core is None:
        raise SystemExit("the VADER core is not built (make setup) or TONE_EXPLORER_PURE_PYTHON turns it off")
    scorer = create_tone_scorer()
    sentences = [s.text for o in outputs for s in split_smart(o)]
    scorer.score_many(outputs=outputs[:200])  # load the language model once, as a warm process has
    steps: dict[str, tuple[int, Callable[[], object]]] = {
        "VADER polarities (sentences of each reply)": (args.rows, lambda: engine.polarities(sentences)),
        "ToneScorer.score_many, vader/smart": (args.rows, lambda: scorer.score_many(outputs=outputs)),
        f"ToneScorer.run, each of {args.run_rows:,} replies": (
            args.run_rows,
            lambda: [scorer.run(output=o) for o in outputs[: args.run_rows]],
        ),
    }
    best = {(name, on): float("inf") for name in steps for on in (True, False)}
    for _ in range(args.rounds):
        for on in (True, False):
            engine._core = core if on else None
            for name, (_, step) in steps.items():
                engine.polarity.cache_clear()
                for cached in ("detect_language", "coverage_warning"):  # whichever this tree caches
                    getattr(getattr(language, cached), "cache_clear", lambda: None)()
                start = time.process_time()
                step()
                best[(name, on)] = min(best[(name, on)], time.process_time() - start)
    engine._core = core
    print(f"{args.rows:,} rows, 1 process, CPU time, best of {args.rounds} alternating rounds\n")
    print("| Step | core, µs per row | Python, µs per row | ratio |\n| --- | ---: | ---: | ---: |")
    for name, (rows, _) in steps.items():
        on, off = best[(name, True)] / rows * 1e6, best[(name, False)] / rows * 1e6
        print(f"| {name} | {on:.1f} | {off:.1f} | {off / on:.2f}x |")


if __name__ == "__main__":
    main()
