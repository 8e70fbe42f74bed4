"""The dashboard bounds the e5 work of one request (issue 28): a 300,000-character text on the Toxicity page
(e5 by default) cost about 90 s of the shared server's CPU, and four at once slowed everyone 50-fold. Texts
over ``TONE_EXPLORER_MAX_E5_CHARS`` are refused before any embedding, with what to do instead; other engines
keep the general text limit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scoring.limits import LimitError
from ui import cached, page_cache

LONG = "Thanks for your patience, the order is on its way. " * 6_000  # 306,000 characters


@pytest.fixture(autouse=True)
def _empty() -> Iterator[None]:
    page_cache.clear()
    yield
    page_cache.clear()


def _no_embedding(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("e5 was asked to embed a text over the page limit")

    monkeypatch.setattr(cached, "toxicity_classifier", refuse)
    monkeypatch.setattr(cached, "create_tone_scorer", refuse)


def test_a_long_text_is_refused_for_e5_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_embedding(monkeypatch)
    with pytest.raises(LimitError) as info:
        cached.toxicity_classified("", LONG, 0.5, "e5")
    assert "output is 306,000 characters long; the e5 engine scores at most 20,000 per text here" in str(info.value)
    assert "TONE_EXPLORER_MAX_E5_CHARS" in str(info.value)
    assert "choose another engine" in info.value.user_message and "TONE_EXPLORER" not in info.value.user_message
    with pytest.raises(LimitError, match="reference is 306,000 characters long; the e5 engine"):
        cached.tone_result("Fine.", LONG, "e5", "mastra")


def test_other_engines_keep_the_general_limit() -> None:
    assert cached.toxicity_classified("", LONG, 0.5, "classifier")["score"] == 0
    assert cached.tone_result(LONG, None, "vader", "mastra")["score"] > 0


def test_the_e5_limit_is_set_by_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_embedding(monkeypatch)
    monkeypatch.setenv("TONE_EXPLORER_MAX_E5_CHARS", "10")
    with pytest.raises(LimitError, match="output is 20 characters long; the e5 engine scores at most 10"):
        cached.toxicity_classified("", "x" * 20, 0.5, "e5")


def test_a_batch_run_over_the_e5_budget_is_refused_before_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas as pd

    from scoring.io.columns import ColumnMap
    from ui import batch_input

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the run started")

    monkeypatch.setattr(batch_input, "evaluate", refuse)
    table = pd.DataFrame({"output": ["A reply of forty characters, near enough."] * 30_000, "ref": ["Fine."] * 30_000})
    loaded = batch_input.Loaded(table, "replies.csv", "digest-e5-budget", None)
    options = batch_input.RunOptions(("tone", "toxicity"), ColumnMap("output", None, "ref"), "e5", None, "e5")
    assert batch_input._e5_chars(table, options) == 2 * 41 * 30_000 + 5 * 30_000
    with pytest.raises(LimitError) as info:
        batch_input.scored(loaded, options)
    assert "replies.csv holds 2,610,000 characters for the e5 engine to read; a run here reads at most 1,000,000" in (
        info.value.user_message
    )
    vader = batch_input.RunOptions(("tone", "toxicity"), ColumnMap("output", None, "ref"), "vader", None, "classifier")
    assert batch_input._e5_chars(table, vader) == 0
