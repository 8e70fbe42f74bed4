"""Seconds to score one long text, by length: is every step linear in the text?

Run ``python -m bench.long_text`` (``--sizes 5000,20000,100000,300000,1000000``; ``--text runon|prose``).

Two texts of each length: ``runon`` is one "sentence" of sentiment words with no end punctuation and a
"but" every ~14 words (VADER's worst case: vaderSentiment's "but" rule is quadratic in a sentence's words;
the port's is not); ``prose`` has a period after ~8% of the words (thousands of sentences). Each figure is
one cold run (the engines' caches cleared), with the length limit lifted, shown as milliseconds and as
microseconds per 1,000 characters: for a linear step the second number stays flat as the text grows.

Columns: the tone scorer's ``run`` (VADER + smart splitter, the default; AFINN + Mastra's regex), the two
splitters alone, the language check, and the content-similarity scorer (Dice; Levenshtein, which is
O(n·m/64) by design: rapidfuzz's bit-parallel edit distance).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

from scoring import create_content_similarity_scorer, create_tone_scorer
from scoring.text.language import coverage_warning
from scoring.text.splitters import split_mastra, split_smart
from scoring.tone.engines import get_engine

WORDS = "good bad great terrible fine the a of and movie was really not but".split()


def text_of(chars: int, seed: int = 1, *, kind: str = "runon") -> str:
    """A text of ``chars`` characters: a run-on sentence, or prose with a period after ~8% of the words."""
    rng = random.Random(seed)
    words: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        if kind == "prose" and rng.random() < 0.08:
            word += "."
        words.append(word)
        size += len(word) + 1
    return " ".join(words)[:chars]


def seconds(run: Callable[[str], object], text: str) -> float:
    for name in ("vader", "afinn"):
        get_engine(name).polarity.cache_clear()  # type: ignore[attr-defined]
    start = time.perf_counter()
    run(text)
    return time.perf_counter() - start


RUNS: dict[str, Callable[[str], object]] = {
    "tone (vader, smart)": lambda t: create_tone_scorer().run(output=t),
    "tone (afinn, mastra)": lambda t: create_tone_scorer(engine="afinn", splitter="mastra").run(output=t),
    "smart splitter": split_smart,
    "mastra splitter": split_mastra,
    "language check": lambda t: coverage_warning(t, "vader"),
    "similarity (dice)": lambda t: create_content_similarity_scorer().run(input=t[::-1], output=t),
    "similarity (levenshtein)": lambda t: create_content_similarity_scorer(algorithm="levenshtein").run(
        input=t[::-1], output=t
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.long_text", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000,100000,300000", help="text lengths in characters")
    parser.add_argument("--text", choices=["runon", "prose"], default="runon", help="which kind of text")
    parser.add_argument("--skip", default="", help="comma-separated columns to leave out")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    os.environ["TONE_EXPLORER_MAX_TEXT_CHARS"] = str(max(sizes) * 2)
    runs = {k: v for k, v in RUNS.items() if k not in args.skip.split(",")}
    print(f"text: {args.text}")
    print("| Characters | " + " | ".join(runs) + " |")
    print("| ---: |" + " ---: |" * len(runs))
    for run in runs.values():
        run("Warm up: load the engines once. Bonjour tout le monde.")
    for size in sizes:
        text = text_of(size, kind=args.text)
        cells = []
        for run in runs.values():
            took = seconds(run, text)
            cells.append(f"{took * 1e3:,.1f} ms ({took * 1e9 / size:,.0f} µs/kchar)")
        print(f"| {size:,} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
