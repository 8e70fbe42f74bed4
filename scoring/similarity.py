"""Content similarity between input and output: Mastra's Dice-bigram score, plus rapidfuzz's.

``dice`` is ``string-similarity``'s ``compareTwoStrings``: whitespace removed, then
``2 * |shared bigrams| / (len(a) + len(b) - 2)`` over UTF-16 code units, 1 for equal strings and
0 when either is shorter than two units. The other algorithms are rapidfuzz's, rescaled to [0, 1].
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import JaroWinkler, Levenshtein

from scoring.inputs import check_scale, to_text
from scoring.jscompat import JS_WS_RE, JS_WS_RUN_RE, js_lower, js_trim, utf16_units
from scoring.result import ScoreResult, new_run_id

__all__ = ["ALGORITHMS", "ContentSimilarityScorer", "create_content_similarity_scorer", "dice", "similarities"]

SCORER_ID = "content-similarity-scorer"


def dice(first: str, second: str) -> float:
    """Return ``compareTwoStrings(first, second)`` exactly (1 = identical).

    >>> dice("night", "nacht")
    0.25
    """
    a = utf16_units(JS_WS_RE.sub("", first))
    b = utf16_units(JS_WS_RE.sub("", second))
    if a == b:
        return 1.0
    if len(a) < 2 or len(b) < 2:
        return 0.0
    shared = Counter(a[i : i + 2] for i in range(len(a) - 1)) & Counter(b[i : i + 2] for i in range(len(b) - 1))
    return (2.0 * shared.total()) / (len(a) + len(b) - 2)


ALGORITHMS: dict[str, Callable[[str, str], float]] = {
    "dice": dice,
    "ratio": lambda a, b: fuzz.ratio(a, b) / 100.0,
    "partial_ratio": lambda a, b: fuzz.partial_ratio(a, b) / 100.0,
    "token_sort_ratio": lambda a, b: fuzz.token_sort_ratio(a, b) / 100.0,
    "token_set_ratio": lambda a, b: fuzz.token_set_ratio(a, b) / 100.0,
    "levenshtein": Levenshtein.normalized_similarity,
    "jaro_winkler": JaroWinkler.similarity,
}


def _normalise(text: str, ignore_case: bool, ignore_whitespace: bool) -> str:
    if ignore_case:
        text = js_lower(text)
    if ignore_whitespace:
        text = js_trim(JS_WS_RUN_RE.sub(" ", text))
    return text


def _similarity(algorithm: str, a: str, b: str) -> float:
    if a == b:  # rapidfuzz scores two empty strings 0; equal texts are identical for every algorithm
        return 1.0
    return float(ALGORITHMS[algorithm](a, b))


def similarities(a: str, b: str) -> dict[str, float]:
    """Return every algorithm's similarity of two already-processed strings, each in [0, 1]."""
    return {name: _similarity(name, a, b) for name in ALGORITHMS}


@dataclass(frozen=True, slots=True)
class ContentSimilarityScorer:
    """Scores how similar the output is to the input; built by :func:`create_content_similarity_scorer`."""

    ignore_case: bool
    ignore_whitespace: bool
    algorithm: str
    scale: float
    id: str = SCORER_ID
    name: str = "Content Similarity Scorer"

    def run(
        self,
        *,
        input: object,  # noqa: A002 - Mastra's name
        output: object,
        ground_truth: object = None,
        run_id: str | None = None,
    ) -> ScoreResult:
        """Score one pair; 1 means identical after processing, 0 nothing in common."""
        processed_input = _normalise(to_text(input, "input"), self.ignore_case, self.ignore_whitespace)
        processed_output = _normalise(to_text(output, "output"), self.ignore_case, self.ignore_whitespace)
        similarity = _similarity(self.algorithm, processed_input, processed_output)
        return ScoreResult(
            scorer_id=self.id,
            score=similarity * self.scale,
            preprocess_step_result={"processedInput": processed_input, "processedOutput": processed_output},
            analyze_step_result={"similarity": similarity},
            run_id=run_id or new_run_id(),
        )


def create_content_similarity_scorer(
    *,
    ignore_case: bool = True,
    ignore_whitespace: bool = True,
    algorithm: str = "dice",
    scale: float = 1,
) -> ContentSimilarityScorer:
    """Create a content-similarity scorer (Mastra's ``createContentSimilarityScorer``).

    >>> s = create_content_similarity_scorer()
    >>> s.run(input="The quick brown fox jumps over the lazy dog.",
    ...       output="A quick brown fox jumped over a lazy dog.").score
    0.7761194029850746
    """
    for flag, value in (("ignore_case", ignore_case), ("ignore_whitespace", ignore_whitespace)):
        if not isinstance(value, bool):
            raise TypeError(f"{flag} must be True or False; got {value!r}.")
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {sorted(ALGORITHMS)}; got {algorithm!r}.")
    return ContentSimilarityScorer(ignore_case, ignore_whitespace, algorithm, check_scale(scale))
