"""What the rest of the package knows about one sentiment engine: its :class:`EngineFacts`, kept on the engine.

Every engine class carries ``facts`` (beside ``name`` and ``description``); :mod:`scoring.tone.engines` registers
the engines, and every table that names engines (the registry's labels and slow engines, the sentiment
thresholds and cross-checks of :mod:`scoring.tone.explain`, the languages of :mod:`scoring.text.language`, the
Tone page's axis labels and driver notes) is read from these facts.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EngineFacts"]


@dataclass(frozen=True, slots=True)
class EngineFacts:
    """One engine's facts."""

    label: str  #: how pages and the CLI name it: its name, then what it is in parentheses ("AFINN (as Mastra)")
    axis_label: str  #: what its polarity is, for a chart's axis ("VADER compound")
    #: the languages (ISO 639-1) its score is meaningful (lexicon) or validated (learned) in; others are warned about
    languages: frozenset[str]
    threshold: float  #: |polarity| above this is positive or negative, else neutral
    #: an English word list: other languages score as neutral (rather than unvalidated)
    lexicon: bool = False
    #: slow enough per row that a batch run reports rows as they finish, not only per chunk (e5 embeds)
    slow: bool = False
    #: the engine each sentence is cross-checked with (where the two read opposite signs, neither is trusted); None
    cross_check: str | None = None
    #: how the Tone page's word drivers are computed (a caption under the drivers)
    driver_note: str = ""
