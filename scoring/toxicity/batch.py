"""Many outputs at once for the toxicity scorer: one model batch offline (e5 or classifier); the judge through
:mod:`.judge.batch`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from scoring.errors import InputError
from scoring.inputs import to_text
from scoring.result import RowsDone, VerdictCache
from scoring.text.splitters import split_smart
from scoring.toxicity.classifier import model_probabilities
from scoring.toxicity.e5 import probabilities as e5_probabilities
from scoring.toxicity.judge.batch import judge_many
from scoring.toxicity.judge.client import ToxicityJudge
from scoring.toxicity.rules import candidate_rules, normalise
from scoring.toxicity.verdicts import score_from_counts

__all__ = ["PIECE_ROWS", "any_rule_fires", "score_many"]

PIECE_ROWS = 64  # rows the e5 engine scores between two progress reports (as the tone engine's e5 does)


def score_many(
    outputs: Sequence[object],
    inputs: Sequence[object] | None = None,
    *,
    scale: float,
    threshold: float,
    judge: ToxicityJudge | None = None,
    engine: str = "classifier",
    on_row: RowsDone | None = None,
    cache: VerdictCache | None = None,
) -> dict[str, list[Any]]:
    """Return ``{"score", "toxicCount", "opinionCount", "error"}`` lists, one entry per output.

    The verdicts come from ``judge`` when given, else from the offline ``engine`` ("classifier" or "e5") at
    ``threshold``.

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
    columns = _offline_many(texts, scale, threshold, _classifier_flags)
    if on_row is not None:
        on_row(len(texts))
    return columns


def _classifier_flags(sentences: list[str], threshold: float) -> list[bool]:
    return [
        p >= threshold or any_rule_fires(s, threshold)
        for s, p in zip(sentences, model_probabilities(sentences), strict=True)
    ]


def _e5_flags(sentences: list[str], threshold: float) -> list[bool]:
    return [p >= threshold for p in e5_probabilities(sentences)]


def _offline_many(
    texts: list[str],
    scale: float,
    threshold: float,
    flags: Callable[[list[str], float], list[bool]],
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
