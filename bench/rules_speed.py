"""``python -m bench.rules_speed``: the toxicity rules' literal prefilter against searching every pattern.

On every sentence of the VADER ground-truth texts (``split_smart``), times ``any_rule_fires`` (only the rules whose
literals the sentence holds are searched) against one case-insensitive alternation of every rule (what it replaced),
per confidence threshold, best of ``--rounds``, and checks both give the same answer on every sentence.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from functools import partial

from bench.throughput import source_texts
from scoring.text.splitters import split_smart
from scoring.toxicity.batch import any_rule_fires
from scoring.toxicity.rules import RULES, normalise


def _best(rounds: int, fn: Callable[[], list[bool]]) -> tuple[float, list[bool]]:
    times: list[float] = []
    answers: list[bool] = []
    for _ in range(rounds):
        start = time.process_time()
        answers = fn()
        times.append(time.process_time() - start)
    return min(times), answers


def _every_pattern(combined: re.Pattern[str], sentences: list[str]) -> list[bool]:
    return [bool(combined.search(normalise(s))) for s in sentences]


def _prefiltered(threshold: float, sentences: list[str]) -> list[bool]:
    return [any_rule_fires(s, threshold) for s in sentences]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rules_speed", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="passes; the best counts (3)")
    rounds = parser.parse_args().rounds
    sentences = list(dict.fromkeys(s.text for t in source_texts() for s in split_smart(t)))
    print(f"{len(sentences):,} distinct sentences, best of {rounds}\n")
    print("| threshold | every pattern (µs/sentence) | prefilter (µs/sentence) | speed-up | fire | same answers |")
    print("| ---: | ---: | ---: | ---: | ---: | --- |")
    for threshold in (0.5, 0.8):
        parts = [f"(?:{r.pattern.pattern})" for r in RULES if r.confidence >= threshold]
        combined = re.compile("|".join(parts), re.IGNORECASE)
        old, expected = _best(rounds, partial(_every_pattern, combined, sentences))
        new, found = _best(rounds, partial(_prefiltered, threshold, sentences))
        per = 1e6 / len(sentences)
        print(f"| {threshold} | {old * per:.1f} | {new * per:.1f} | {old / new:.1f}x | {sum(found)} | "
              f"{'yes' if found == expected else 'NO'} |")  # fmt: skip


if __name__ == "__main__":
    main()
