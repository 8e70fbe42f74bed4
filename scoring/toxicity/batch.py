"""Many outputs at once for the toxicity scorer: one model batch offline (e5 or classifier); the judge through
:mod:`.judge.batch`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.errors import InputError
from scoring.inputs import to_text
from scoring.result import RowsDone, VerdictCache
from scoring.text.splitters import split_smart
from scoring.toxicity.classifier import model_probabilities
from scoring.toxicity.defaults import decided_by_patterns
from scoring.toxicity.e5 import default_flags as e5_default_flags
from scoring.toxicity.e5 import probabilities as e5_probabilities
from scoring.toxicity.e5_lite import FACTS as E5_LITE_FACTS
from scoring.toxicity.e5_lite import probabilities as e5_lite_probabilities
from scoring.toxicity.judge.batch import judge_many
from scoring.toxicity.judge.client import ToxicityJudge
from scoring.toxicity.rules import candidate_rules, normalise
from scoring.toxicity.verdicts import score_from_counts

__all__ = ["E5_SENTENCES_PER_SECOND", "PIECE_ROWS", "E5Estimate", "any_rule_fires", "e5_estimate", "score_many"]

PIECE_ROWS = 64  # rows the e5 engine scores between two progress reports (as the tone engine's e5 does)
#: New sentences the e5 engine embeds per second, on one process and on two, as ``python -m bench.toxicity_defaults``
#: measured them on this project's shared 2-core machine under load (docs/toxicity.md, "Speed"): an estimate's basis.
E5_SENTENCES_PER_SECOND = {1: 5.8, 2: 9.3}  # 4,864 new sentences in 845 s and 526 s at a load average of 11-13


@dataclass(frozen=True, slots=True)
class E5Estimate:
    """What an e5 run of a file costs, before it starts: sentences to embed and the time that takes."""

    rows: int
    sentences: int  #: distinct sentences
    settled: int  #: of those, decided by a rubric pattern without embedding
    workers: int

    @property
    def to_embed(self) -> int:
        return self.sentences - self.settled

    @property
    def seconds(self) -> float:
        """Expected seconds at the measured rate (a busier or quieter machine changes it)."""
        return self.to_embed / E5_SENTENCES_PER_SECOND[min(max(self.workers, 1), 2)]

    def sentence(self) -> str:
        """One line for the Batch page and the CLI.

        >>> print(E5Estimate(10_000, 3_600, 100, 2).sentence())  # doctest: +NORMALIZE_WHITESPACE
        10,000 rows hold 3,600 distinct sentences; 100 are settled by a rubric pattern, 3,500 to embed: about 6
        minutes on 2 processes (at the 9.3 new sentences/s measured on a busy 2-core machine; a quiet one is faster).
        """
        minutes = self.seconds / 60
        took = f"about {minutes:.0f} minutes" if minutes >= 1.5 else f"about {max(self.seconds, 1):.0f} seconds"
        rate = E5_SENTENCES_PER_SECOND[min(max(self.workers, 1), 2)]
        return (
            f"{self.rows:,} rows hold {self.sentences:,} distinct sentences; {self.settled:,} are settled by a rubric "
            f"pattern, {self.to_embed:,} to embed: {took} on {self.workers} process{'es' if self.workers > 1 else ''} "
            f"(at the {rate:g} new sentences/s measured on a busy 2-core machine; a quiet one is faster)."
        )


def e5_estimate(outputs: Sequence[object], workers: int = 1) -> E5Estimate:
    """Count what an e5 run of ``outputs`` (under the measured defaults) has to embed; fast (no model).

    >>> e5_estimate(["Hi there. You idiot.", "Hi there."]).sentences
    2
    """
    texts = dict.fromkeys(o for o in outputs if isinstance(o, str))
    sentences = dict.fromkeys(s.text for t in texts for s in split_smart(t))
    settled = sum(decided_by_patterns(s) for s in sentences)
    return E5Estimate(len(outputs), len(sentences), settled, workers)


def score_many(
    outputs: Sequence[object],
    inputs: Sequence[object] | None = None,
    *,
    scale: float,
    threshold: float | None,
    judge: ToxicityJudge | None = None,
    engine: str = "classifier",
    on_row: RowsDone | None = None,
    cache: VerdictCache | None = None,
) -> dict[str, list[Any]]:
    """Return ``{"score", "toxicCount", "opinionCount", "error"}`` lists, one entry per output.

    The verdicts come from ``judge`` when given, else from the offline ``engine`` ("classifier", "e5" or "e5-lite") at
    ``threshold`` (e5: None applies its measured defaults, :mod:`scoring.toxicity.defaults`).

    Every text is checked before any is scored, so bad input fails fast with the row it came from.
    ``on_row(done)`` is called as rows finish: by the judge, row by row; by e5, every ``PIECE_ROWS`` rows (it
    embeds each sentence, about 10 to 60 a second on one process); by the classifier, once at the end.
    """
    texts = [to_text(o, f"outputs[{i}]") for i, o in enumerate(outputs)]
    if inputs is not None and len(inputs) != len(texts):
        raise InputError(f"inputs must have one entry per output ({len(texts)}); got {len(inputs)}.")
    questions = [to_text(q, f"inputs[{i}]", required=False) for i, q in enumerate(inputs or [None] * len(texts))]
    if judge is not None:
        return judge_many(judge, texts, questions, scale=scale, on_row=on_row, cache=cache)
    if engine == "e5":  # slow (it embeds each sentence): rows are reported as they finish, PIECE_ROWS at a time
        columns = _offline_many(texts, scale, threshold, _e5_flags, on_row=on_row, piece=PIECE_ROWS)
        if on_row is not None and not texts:
            on_row(0)
        return columns
    if engine == "e5-lite":  # fast: one batch, as the classifier
        columns = _offline_many(texts, scale, threshold, _e5_lite_flags)
        if on_row is not None:
            on_row(len(texts))
        return columns
    columns = _offline_many(texts, scale, threshold, _classifier_flags)
    if on_row is not None:
        on_row(len(texts))
    return columns


def _classifier_flags(sentences: list[str], threshold: float | None) -> list[bool]:
    threshold = 0.5 if threshold is None else threshold  # the classifier's default
    return [
        p >= threshold or any_rule_fires(s, threshold)
        for s, p in zip(sentences, model_probabilities(sentences), strict=True)
    ]


def _e5_flags(sentences: list[str], threshold: float | None) -> list[bool]:
    if threshold is None:  # the measured defaults: a strong rubric pattern settles a sentence without embedding it
        return e5_default_flags(sentences)
    return [p >= threshold for p in e5_probabilities(sentences)]


def _e5_lite_flags(sentences: list[str], threshold: float | None) -> list[bool]:
    limit = float(E5_LITE_FACTS.threshold or 0.5) if threshold is None else threshold
    return [p >= limit for p in e5_lite_probabilities(sentences)]


def _offline_many(
    texts: list[str],
    scale: float,
    threshold: float | None,
    flags: Callable[[list[str], float | None], list[bool]],
    *,
    on_row: RowsDone | None = None,
    piece: int | None = None,
) -> dict[str, list[Any]]:
    """Split every distinct text, flag every distinct sentence once, count per text.

    Without ``piece``, all sentences go to the model in one batch. With it, ``piece`` rows at a time (each
    sentence still flagged once), calling ``on_row(rows done)`` after each: the same verdicts, with progress.
    """
    sentences = {t: [s.text for s in split_smart(t)] for t in dict.fromkeys(texts)}
    toxic: dict[str, bool] = {}
    step = piece or max(len(texts), 1)
    for start in range(0, len(texts), step):
        stop = min(start + step, len(texts))
        new = list(dict.fromkeys(s for t in texts[start:stop] for s in sentences[t] if s not in toxic))
        toxic.update(zip(new, flags(new, threshold), strict=True))
        if piece is not None and on_row is not None:
            on_row(stop)
    counts = {t: (sum(toxic[s] for s in group), len(group)) for t, group in sentences.items()}
    out: dict[str, list[Any]] = {"score": [], "toxicCount": [], "opinionCount": [], "error": []}
    for text in texts:
        k, n = counts[text]
        out["score"].append(score_from_counts(k, n, scale))
        out["toxicCount"].append(k)
        out["opinionCount"].append(n)
        out["error"].append(None)
    return out


def any_rule_fires(text: str, min_confidence: float) -> bool:
    """Whether a rule with confidence >= ``min_confidence`` fires on ``text``.

    Only the rules whose words occur in ``text`` are searched (:func:`scoring.toxicity.rules.candidate_rules`).

    >>> any_rule_fires("Watch your back.", 0.5), any_rule_fires("Watch your back.", 0.9)
    (True, False)
    """
    folded = normalise(text)
    return any(r.confidence >= min_confidence and r.pattern.search(folded) for r in candidate_rules(folded))
