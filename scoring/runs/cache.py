"""LLM-judge verdicts cached in the run store, so scoring the same rows again never pays twice.

An entry is keyed by the judge's endpoint (``scheme://host[:port]/path``: never a user, password or query),
its model, the prompt version (a hash of the judge's prompts: changing a prompt starts a fresh cache) and
the SHA-256 of the text judged (the question and the reply's opinions). Only answers are cached; a
request that failed is asked again next time. The API key is not part of the key and is never stored.

>>> key = cache_key("https://user:pw@api.example.com/v1?k=1", "gpt-4o-mini", "Hi?", ["Go away."])
>>> key.endpoint, len(key.digest), key.prompt_version == PROMPT_VERSION
('https://api.example.com/v1', 64, True)
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from scoring.runs.db import judge_cache
from scoring.runs.record import clean_text, endpoint_of
from scoring.runs.store import RunStore
from scoring.toxicity.judge.prompts import SYSTEM_PROMPT, verdicts_prompt

__all__ = ["PROMPT_VERSION", "CacheKey", "JudgeCache", "cache_key"]

Verdicts = list[dict[str, str]]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


#: The judge prompts' version: a hash of the system prompt and the verdicts prompt's template.
PROMPT_VERSION = _sha256(SYSTEM_PROMPT + "\n" + verdicts_prompt("{input}", ["{opinion}"]))[:16]


@dataclass(frozen=True, slots=True)
class CacheKey:
    """What a cached verdict list is for; ``digest`` is its primary key."""

    endpoint: str
    model: str
    prompt_version: str
    text_hash: str

    @property
    def digest(self) -> str:
        return _sha256("\n".join((self.endpoint, self.model, self.prompt_version, self.text_hash)))


def cache_key(base_url: str, model: str, question: str | None, opinions: Sequence[str]) -> CacheKey:
    """Return the key of the judge's verdicts on ``opinions`` (a reply's sentences) answering ``question``."""
    text_hash = _sha256(json.dumps([question or "", list(opinions)], ensure_ascii=False))
    return CacheKey(endpoint_of(base_url), model, PROMPT_VERSION, text_hash)


class JudgeCache:
    """Verdicts in ``store``'s ``tone_judge_cache`` table; counts its hits and misses (thread-safe)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._asking: dict[str, threading.Lock] = {}  # one lock per key being asked: a duplicate waits, then hits

    def __repr__(self) -> str:
        return f"JudgeCache({self.store.location!r}, hits={self.hits}, misses={self.misses})"

    def get(self, key: CacheKey) -> Verdicts | None:
        """Return the cached verdicts for ``key``, or None."""
        with self.store.transaction(write=False) as conn:
            value = conn.execute(sa.select(judge_cache.c.verdicts).where(judge_cache.c.key == key.digest)).scalar()
        return [dict(v) for v in value] if isinstance(value, list) else None

    def put(self, key: CacheKey, verdicts: Verdicts) -> None:
        """Keep ``verdicts`` for ``key`` (a key already there, saved meanwhile by another process, is kept)."""
        record: dict[str, Any] = {
            "key": key.digest, "endpoint": key.endpoint, "model": clean_text(key.model),
            "prompt_version": key.prompt_version, "text_hash": key.text_hash, "created_at": datetime.now(UTC),
            "verdicts": [{k: clean_text(str(v)) for k, v in verdict.items()} for verdict in verdicts],
        }  # fmt: skip
        try:
            with self.store.transaction(write=True) as conn:
                conn.execute(judge_cache.insert(), [record])
        except IntegrityError:
            pass  # the same answer was cached by another row or process first

    def verdicts(self, judge: Any, question: str | None, opinions: Sequence[str]) -> tuple[Verdicts, bool]:
        """Return ``judge.verdicts(question, opinions)`` from the cache when there, else ask and keep the answer.

        The second value says whether it came from the cache. ``judge`` needs ``base_url``, ``model`` and
        ``verdicts(question, opinions)`` (:class:`scoring.toxicity.judge.ToxicityJudge`); its errors propagate.
        """
        key = cache_key(str(judge.base_url), str(judge.model), question, opinions)
        with self._lock:
            gate = self._asking.setdefault(key.digest, threading.Lock())
        # The same text twice in one run, judged by two threads at once, was asked twice or once depending on
        # timing; now the second waits for the first's answer and reads it from the cache.
        with gate:
            found = self.get(key)
            if found is not None:
                with self._lock:
                    self.hits += 1
                return found, True
            answer = judge.verdicts(question or "", opinions)
            with self._lock:
                self.misses += 1
            self.put(key, answer)
            return answer, False

    def count(self) -> int:
        """Return how many verdict lists the store holds."""
        with self.store.transaction(write=False) as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(judge_cache)).scalar_one())
