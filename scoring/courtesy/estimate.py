"""What a batch run of the courtesy scorer costs, before it starts: the distinct replies and sentences e5 embeds,
and the time that takes at a measured rate (the Batch page says it before a file is scored).

``python -m scoring.courtesy.estimate FILE [--column output]`` scores a file's replies on one process and prints
the estimate beside the time it took: the measurement :data:`TEXTS_PER_SECOND` comes from.

>>> print(courtesy_estimate(["Thanks! Happy to help.", "It shipped. Stop asking.", "It shipped. Stop asking."])
...       .sentence())  # doctest: +NORMALIZE_WHITESPACE
3 rows hold 2 distinct replies with words: 6 distinct texts to embed (each reply whole and each of its sentences):
about 1 second on one process (at the 23 texts/s measured on a busy 2-core machine; a quiet one is faster).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring.courtesy.scorer import create_courtesy_scorer
from scoring.text.splitters import DEFAULT_SPLITTER, get_sentence_texts, has_words

__all__ = ["TEXTS_PER_SECOND", "CourtesyEstimate", "courtesy_estimate", "main"]

#: Distinct texts (replies and sentences) the courtesy scorer embeds per second on one process, as
#: ``python -m scoring.courtesy.estimate scoring/data/sample_responses.csv`` measured it on this project's shared
#: 2-core machine at a load average of 7.5 (nice 10): 406 distinct texts of 160 replies in 17.6 s.
TEXTS_PER_SECOND = 23.0


@dataclass(frozen=True, slots=True)
class CourtesyEstimate:
    """What a courtesy run of a file embeds, and about how long that takes."""

    rows: int
    replies: int  #: distinct replies with words (the others are errors, not embedded)
    texts: int  #: distinct texts to embed: each reply whole and each of its sentences with words
    workers: int = 1

    @property
    def seconds(self) -> float:
        """Expected seconds on one process at the measured rate (a busier or quieter machine changes it)."""
        return self.texts / TEXTS_PER_SECOND

    def sentence(self) -> str:
        """One line for the Batch page: what is embedded and how long it takes."""
        minutes = self.seconds / 60
        took = f"about {minutes:.0f} minutes" if minutes >= 1.5 else f"about {max(self.seconds, 1):.0f} second"
        took += "" if minutes >= 1.5 or round(max(self.seconds, 1)) == 1 else "s"
        more = f"; this run's {self.workers} processes may finish sooner" if self.workers > 1 else ""
        return (
            f"{self.rows:,} rows hold {self.replies:,} distinct replies with words: {self.texts:,} distinct texts to "
            f"embed (each reply whole and each of its sentences): {took} on one process (at the "
            f"{TEXTS_PER_SECOND:g} texts/s measured on a busy 2-core machine; a quiet one is faster{more})."
        )


def courtesy_estimate(
    outputs: Sequence[object], workers: int = 1, splitter: str = DEFAULT_SPLITTER
) -> CourtesyEstimate:
    """Count what a courtesy run of ``outputs`` embeds, as its ``score_many`` does; fast (no model)."""
    split = get_sentence_texts(splitter)
    replies = [t for t in dict.fromkeys(o for o in outputs if isinstance(o, str)) if has_words(t)]
    texts = dict.fromkeys(x for t in replies for x in (t, *(s for s in split(t) if has_words(s))))
    return CourtesyEstimate(len(outputs), len(replies), len(texts), workers)


def main(argv: Sequence[str] | None = None) -> int:
    """Score a file's replies for courtesy on one process; print the estimate and the time it took."""
    import pandas as pd

    parser = argparse.ArgumentParser(prog="python -m scoring.courtesy.estimate", description=main.__doc__)
    parser.add_argument("file", type=Path, help="a CSV file of replies")
    parser.add_argument("--column", default="output", help="the column of replies (default: output)")
    args = parser.parse_args(argv)
    outputs = [o for o in pd.read_csv(args.file, keep_default_na=False)[args.column].tolist() if str(o).strip()]
    estimate = courtesy_estimate(outputs)
    scorer = create_courtesy_scorer()
    scorer.score_many(outputs=["Loading the model first."])  # the model's load is not part of the rate
    start = time.perf_counter()
    scorer.score_many(outputs=outputs)
    took = time.perf_counter() - start
    sys.stdout.write(f"estimate: {estimate.sentence()}\nmeasured: {estimate.texts:,} texts in {took:.1f} s = "
                     f"{estimate.texts / took:.1f} texts/s on one process\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
