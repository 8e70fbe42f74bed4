"""What the rest of the package knows about one toxicity engine: its :class:`ToxicityEngineFacts`, kept on the engine.

Each engine module carries ``FACTS`` (:mod:`scoring.toxicity.e5`, :mod:`scoring.toxicity.classifier`,
:mod:`scoring.toxicity.judge.client`), as each tone engine carries its :class:`~scoring.tone.facts.EngineFacts`;
:mod:`scoring.toxicity.scorer` lists the engines, and every table that names a toxicity engine (the registry's
labels, slow and remote engines, speed notes and retry defaults; the scorer's thresholds, known gaps and measured
recall; the dashboard's) is read from these facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["JudgeRetries", "MeasuredRecall", "ToxicityEngineFacts"]


@dataclass(frozen=True, slots=True)
class MeasuredRecall:
    """How many toxic sentences an engine flags, measured on sentences it was not tuned on."""

    flagged: int
    toxic: int
    split: str
    source: str

    @property
    def recall(self) -> float:
        """The share of toxic sentences flagged (higher is better)."""
        return self.flagged / self.toxic

    def sentence(self) -> str:
        """One sentence for a reader, e.g. next to a "no toxic opinion" verdict.

        >>> print(MeasuredRecall(9, 40, "fresh", "x.csv").sentence())  # doctest: +ELLIPSIS
        Recall 0.23 on sentences it was not tuned on: it catches about 1 toxic sentence in 4 (9 of 40), so ...
        """
        one_in = round(self.toxic / self.flagged) if self.flagged else 0
        about = f"about 1 toxic sentence in {one_in}" if one_in else "none of the toxic sentences"
        return (
            f"Recall {self.recall:.2f} on sentences it was not tuned on: it catches {about} ({self.flagged} of "
            f"{self.toxic}), so a pass means little."
        )


@dataclass(frozen=True, slots=True)
class JudgeRetries:
    """A remote engine's retries: network trouble ``max_retries`` times with backoff; a bad reply, ``parse_retries``."""

    max_retries: int = 2
    parse_retries: int = 1
    backoff: float = 0.5
    max_backoff: float = 8.0


@dataclass(frozen=True, slots=True)
class ToxicityEngineFacts:
    """One toxicity engine's facts."""

    label: str  #: how pages and the CLI name it: its name, then what it is in parentheses
    #: a sentence is toxic at or above this probability when no threshold is chosen; None: the engine's own measured
    #: defaults (e5: a threshold per language and the rubric patterns, :mod:`scoring.toxicity.defaults`)
    threshold: float | None
    slow: bool = False  #: slow enough per row that a batch run reports rows as they finish (e5 embeds)
    remote: bool = False  #: sends the texts over the network (a batch run stays in one process)
    speed: str = ""  #: what a batch run should expect of its speed (slow engines; the CLI and the Batch page say it)
    known_gaps: tuple[str, ...] = ()  #: what it is known to miss or get wrong (docs and the dashboard)
    #: its measured recall on toxic sentences it was not tuned on; None: not measured here (the judge's model varies)
    measured_recall: MeasuredRecall | None = None
    #: options a retry of failed rows must give as the run did (name -> default), e.g. the judge's model
    retry_keeps: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    retries: JudgeRetries | None = None  #: a remote engine's retry defaults
