"""The pages' score caches are bounded by bytes (issue 28): distinct long texts evict the oldest results
instead of piling up (each 1,000,000-character text kept about 18 MB; 38 of them took a server to 1 GB)."""

from __future__ import annotations

import pickle
from collections.abc import Iterator

import pytest

from ui import cached, page_cache


@pytest.fixture(autouse=True)
def _empty() -> Iterator[None]:
    page_cache.clear()
    yield
    page_cache.clear()


def _text(i: int, sentences: int = 1_600) -> str:
    return " ".join(f"Reply {i} sentence {j} is great, thanks!" for j in range(sentences))  # ~64,000 characters


def test_distinct_long_texts_never_hold_more_than_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_PAGE_CACHE_MB", "1")
    one = len(pickle.dumps(cached.tone_result(_text(0), None, "vader", "mastra")))
    assert one > 90_000  # each result is large: a dozen fill the megabyte
    seen = []
    for i in range(1, 16):
        cached.tone_result(_text(i), None, "vader", "mastra")
        seen.append(page_cache.cached_bytes())
    assert max(seen) <= 2**20 and seen[-1] > 2**19, seen  # full, and never over


def test_a_hit_is_a_copy_and_the_newest_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    first = cached.tone_result("Thanks, that helped.", None, "vader", "mastra")
    first["score"] = -1.0  # a page changing what it got does not change the cache
    again = cached.tone_result("Thanks, that helped.", None, "vader", "mastra")
    assert again["score"] != -1.0 and again["runId"] == first["runId"]  # the same result, not a new run


def test_a_result_over_a_quarter_of_the_limit_is_returned_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_PAGE_CACHE_MB", "1")
    result = cached.tone_result(_text(1, sentences=6_000), None, "vader", "mastra")  # ~240,000 characters
    assert result["score"] > 0 and page_cache.cached_bytes() == 0
