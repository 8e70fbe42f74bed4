"""The compiled core of the VADER engine (``_vader_core.c``): vaderSentiment 3.3.2's scoring of ASCII text."""

from collections.abc import Iterable, Mapping

class Scorer:
    """vaderSentiment's scoring with its tables and constants passed in once."""

    def __init__(
        self,
        *,
        lexicon: Mapping[str, float],
        boosters: Mapping[str, float],
        special_cases: Mapping[str, float],
        negate: Iterable[str],
        punctuation: str,
        n_scalar: float,
        c_incr: float,
        builtin_sum: bool = ...,
    ) -> None:
        """``builtin_sum``: sum the valences with the builtin ``sum`` (default on Python 3.12+, whose ``sum``
        compensates float rounding), else add them in order in C (what ``sum`` does up to 3.11)."""
    def polarity(self, text: str, /) -> float:
        """Return vaderSentiment's compound for ASCII ``text`` (ValueError for other text)."""

    def valences(self, text: str, /) -> list[float]:
        """Return each word's valence after the "but" rule, for ASCII ``text``."""

def round4(x: float, /) -> float:
    """Return ``round(x, 4)`` as the core computes it."""
