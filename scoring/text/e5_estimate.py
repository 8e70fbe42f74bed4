"""What a batch run's e5 work costs before it starts: the distinct texts the courtesy scorer and the tone scorer's
e5 engine embed, and about how long that takes (the Batch page says it before a file is scored; toxicity's e5 has
its own estimate, :func:`scoring.toxicity.batch.e5_estimate`, with its rubric patterns).

``python -m bench.e5_batch_speed`` scores the bundled sample's replies with each on one process and prints the
estimate beside the time each took: the measurement :data:`TEXTS_PER_SECOND` comes from.

>>> replies = ["Thanks! Happy to help.", "It shipped. Stop asking.", "It shipped. Stop asking."]
>>> print(e5_work(replies, courtesy=True).sentence())  # doctest: +NORMALIZE_WHITESPACE
3 rows: 6 distinct texts for courtesy (each reply whole and each of its sentences): about 1 second on one
process (at the 23 texts/s measured on a busy 2-core machine; a quiet one is faster).
>>> e5_work(replies, tone=True).texts, e5_work(replies, tone=True, references=["Hi.", "Hello.", None]).texts
(4, 6)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.text.splitters import DEFAULT_SPLITTER, get_sentence_texts, has_words

__all__ = ["TEXTS_PER_SECOND", "E5Work", "e5_work"]

#: Distinct texts e5 embeds per second on one process, for the courtesy scorer (replies and sentences) and the
#: tone scorer's e5 engine (sentences), as ``python -m bench.e5_batch_speed`` measured them on the bundled sample
#: on this project's shared 2-core machine at a load average of 7.5 to 10.7 (nice 10): courtesy 406 texts in 13.1
#: to 17.6 s (23 to 31 a second), tone's e5 289 sentences in 7.2 to 11.3 s (26 to 40 a second; alone: after
#: courtesy they come from the embedding cache, as they do in a run scoring both). The slowest is the estimate's.
TEXTS_PER_SECOND = 23.0


@dataclass(frozen=True, slots=True)
class E5Work:
    """The distinct texts a batch run's e5 scorers embed, and about how long that takes."""

    rows: int
    courtesy: int = 0  #: distinct texts for courtesy: each reply with words whole and each of its sentences
    tone: int = 0  #: distinct texts for tone's e5 engine: each sentence, or the whole reply and its reference
    workers: int = 1

    @property
    def texts(self) -> int:
        return self.courtesy + self.tone

    @property
    def seconds(self) -> float:
        """Expected seconds on one process at the measured rate (a busier or quieter machine changes it)."""
        return self.texts / TEXTS_PER_SECOND

    def sentence(self) -> str:
        """One line for the Batch page: what is embedded and how long it takes."""
        parts = [
            f"{n:,} distinct texts for {what}"
            for n, what in (
                (self.courtesy, "courtesy (each reply whole and each of its sentences)"),
                (self.tone, "tone's e5 engine (each sentence; the reply and its reference when compared)"),
            )
            if n
        ]
        minutes = self.seconds / 60
        seconds = round(max(self.seconds, 1))
        took = f"about {minutes:.0f} minutes" if minutes >= 1.5 else f"about {seconds} second{'s' * (seconds != 1)}"
        more = f"; this run's {self.workers} processes may finish sooner" if self.workers > 1 else ""
        # the two may read the same sentence with the same e5 prefix: it is then embedded once, so the sum is a bound
        both = " (at most: a text both read is embedded once)" if self.courtesy and self.tone else ""
        return (
            f"{self.rows:,} rows: {' and '.join(parts) or 'nothing to embed'}: {took}{both} on one process (at "
            f"the {TEXTS_PER_SECOND:g} texts/s measured on a busy 2-core machine; a quiet one is faster{more})."
        )


def e5_work(
    outputs: Sequence[object],
    *,
    courtesy: bool = False,
    tone: bool = False,
    references: Sequence[object] | None = None,
    splitter: str = DEFAULT_SPLITTER,
    workers: int = 1,
) -> E5Work:
    """Count what a run of ``outputs`` embeds for courtesy and for tone's e5 engine, as their ``score_many`` do
    (``references``: tone's per row, the column's or one reference tone for all); fast (no model)."""
    split = get_sentence_texts(splitter)
    replies = [o if isinstance(o, str) else None for o in outputs]
    found_courtesy: dict[str, None] = {}
    if courtesy:
        for text in dict.fromkeys(r for r in replies if r is not None and has_words(r)):
            found_courtesy.update(dict.fromkeys((text, *(s for s in split(text) if has_words(s)))))
    found_tone: dict[str, None] = {}
    if tone:
        refs = list(references) if references is not None else [None] * len(replies)
        for reply, ref in dict.fromkeys(zip(replies, refs, strict=True)):
            if reply is not None and reply.strip():
                found_tone.update(dict.fromkeys([reply, ref] if isinstance(ref, str) and ref else split(reply)))
    return E5Work(len(outputs), len(found_courtesy), len(found_tone), workers)
