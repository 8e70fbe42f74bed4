"""Seconds to score one long text, by length: why ``TONE_EXPLORER_MAX_TEXT_CHARS`` defaults to 20,000.

Run ``python -m bench.long_text`` (add ``--sizes 20000,100000,1000000`` for the 1 MB point, ~3 minutes).
The text is one run-on "sentence" of sentiment words with no end punctuation (VADER's worst case: its
``but`` rule is quadratic in the number of words), scored with the length limit lifted. Each figure is
one cold run (the engines' caches cleared); the 5,000-character row is the baseline of the ratios.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

from scoring import create_content_similarity_scorer, create_tone_scorer
from scoring.tone.engines import get_engine

WORDS = "good bad great terrible fine the a of and movie was really not but".split()


def text_of(chars: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    words: list[str] = []
    size = 0
    while size < chars:
        words.append(rng.choice(WORDS))
        size += len(words[-1]) + 1
    return " ".join(words)[:chars]


def seconds(run: Callable[[str], object], text: str) -> float:
    for name in ("vader", "afinn"):
        get_engine(name).polarity.cache_clear()  # type: ignore[attr-defined]
    start = time.perf_counter()
    run(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.long_text", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000,40000,100000", help="text lengths in characters")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    os.environ["TONE_EXPLORER_MAX_TEXT_CHARS"] = str(max(sizes) * 2)
    runs: dict[str, Callable[[str], object]] = {
        "tone (vader, smart)": lambda t: create_tone_scorer().run(output=t),
        "tone (afinn, mastra)": lambda t: create_tone_scorer(engine="afinn", splitter="mastra").run(output=t),
        "similarity (dice)": lambda t: create_content_similarity_scorer().run(input=t[::-1], output=t),
        "similarity (levenshtein)": lambda t: create_content_similarity_scorer(algorithm="levenshtein").run(
            input=t[::-1], output=t
        ),
    }
    print("| Characters | " + " | ".join(runs) + " |")
    print("| ---: |" + " ---: |" * len(runs))
    for run in runs.values():
        run("Warm up: load the engines once.")
    base: dict[str, float] = {}
    for size in sizes:
        text = text_of(size)
        cells = []
        for name, run in runs.items():
            took = seconds(run, text)
            base.setdefault(name, took)
            cells.append(f"{took:.3f} s ({took / base[name]:.1f}x)")
        print(f"| {size:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
