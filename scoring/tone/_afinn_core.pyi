"""The compiled core of the AFINN engine (``_afinn_core.c``): the ``sentiment`` package's comparative of ASCII text."""

from collections.abc import Iterable, Mapping

class Scorer:
    """``afinn.comparative``'s ASCII fast path, with the lexicon and negators passed in once."""

    def __init__(self, *, lexicon: Mapping[str, int], negators: Iterable[str], separators: str) -> None:
        """``separators``: the characters tokenising turns into spaces (punctuation and the line feed)."""
    def comparative(self, text: str, /) -> float | None:
        """Return ``afinn.comparative(text)`` for ASCII text without a tab, \\v, \\f or \\r, else None."""
