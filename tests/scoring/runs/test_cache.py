"""The judge cache: the same rows judged again cost no request; failures are not cached; the key is never stored."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
import sqlalchemy as sa

from scoring.batch import evaluate
from scoring.runs import JudgeCache, RunStore, cache_key
from scoring.runs import cache as runcache
from scoring.runs import db as rundb
from tests.scoring.fake_openai import Reply, error_body, serve

KEY = "sk-cache-secret-42"
OUTPUTS = ["Fine, thanks.", "You idiot. Fine.", "FAIL here.", "Thanks! Bye.", "Fine, thanks."]


def _reply(body: dict[str, Any]) -> Reply:
    prompt = body["messages"][-1]["content"]
    if "FAIL" in prompt:
        return Reply(status=400, body=error_body("cannot judge this"))
    opinions = json.loads(prompt.split("Opinions (a JSON list of strings from the assistant's reply):\n", 1)[1])
    verdicts = [{"verdict": "yes" if "idiot" in o else "no", "reason": f"about {o}"} for o in opinions]
    return Reply(json.dumps({"verdicts": verdicts}))


def _judged(base_url: str, cache: JudgeCache | None, *, model: str = "judge-m") -> Any:
    df = pd.DataFrame({"input": ["Q?"] * len(OUTPUTS), "output": OUTPUTS})
    options = {"engine": "judge", "model": model, "base_url": base_url, "api_key": KEY, "max_retries": 0}
    return evaluate(df, scorers=["toxicity"], toxicity=options, judge_cache=cache)


def test_rows_judged_before_cost_no_request(store: RunStore) -> None:
    with serve(_reply) as fake:
        first_cache = JudgeCache(store)
        first = _judged(fake.base_url, first_cache)
        asked_first = len(fake.requests)
        second_cache = JudgeCache(RunStore(engine=store.engine))  # a new run, same store
        second = _judged(fake.base_url, second_cache)
        asked_second = len(fake.requests) - asked_first
    # five rows, one duplicate text: the duplicate waits for the first's answer and reads it from the cache (it was
    # asked once or twice, depending on the threads' timing); the failing row is asked and not kept
    assert asked_first == 4 and (first_cache.hits, first_cache.misses) == (1, 3)
    assert asked_second == 1  # only the row that failed is asked again
    assert (second_cache.hits, second_cache.misses) == (4, 0)
    assert second.table["toxicity-scorer.cached"].tolist()[:2] == [1.0, 1.0]
    assert second.table["toxicity-scorer.cached"].iloc[2] == 0.0  # failed again: not from the cache
    assert second.summary.loc["toxicity-scorer", "cached"] == 4
    pd.testing.assert_series_equal(first.table["toxicity-scorer"], second.table["toxicity-scorer"])
    assert second.table["toxicity-scorer"].tolist()[:2] == [0.0, 0.5]
    assert second.errors["row"].tolist() == [3]
    info = store.save(second, name="cached", source_name="r.csv", source_sha256="0" * 64)
    assert info.cache_hits == 4
    assert JudgeCache(store).count() == 3  # three distinct texts answered; the failure is not kept


def test_without_a_cache_every_row_is_asked_and_there_is_no_cached_column() -> None:
    with serve(_reply) as fake:
        result = _judged(fake.base_url, None)
    assert len(fake.requests) == len(OUTPUTS)
    assert "toxicity-scorer.cached" not in result.table and result.summary.loc["toxicity-scorer", "cached"] == 0


def test_another_model_or_endpoint_is_asked_again(store: RunStore) -> None:
    with serve(_reply) as fake:
        _judged(fake.base_url, JudgeCache(store))
        before = len(fake.requests)
        other_model = JudgeCache(store)
        _judged(fake.base_url, other_model, model="judge-other")
        # every distinct text is asked again (a duplicate row may be answered by its twin within the run)
        assert other_model.misses >= 3 and other_model.misses + other_model.hits == 4
        assert len(fake.requests) - before >= 4
        other_path = fake.base_url.replace("/v1", "/v2")
        assert cache_key(other_path, "judge-m", "Q?", ["a"]) != cache_key(fake.base_url, "judge-m", "Q?", ["a"])


def test_the_key_separates_what_changes_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    base = cache_key("https://api.example.com/v1", "m", "Q?", ["One.", "Two."])
    assert cache_key("https://u:pw@api.example.com/v1?key=1", "m", "Q?", ["One.", "Two."]) == base
    assert cache_key("https://api.example.com/v1", "m", "Q?", ["One.", "Two?"]) != base
    assert cache_key("https://api.example.com/v1", "m", "Other?", ["One.", "Two."]) != base
    assert cache_key("https://api.example.com:8443/v1", "m", "Q?", ["One.", "Two."]) != base
    monkeypatch.setattr(runcache, "PROMPT_VERSION", "changed-prompts")
    changed = cache_key("https://api.example.com/v1", "m", "Q?", ["One.", "Two."])
    assert changed.text_hash == base.text_hash and changed.digest != base.digest


def test_the_api_key_is_never_stored(store: RunStore) -> None:
    with serve(_reply) as fake:
        result = _judged(fake.base_url.replace("http://", "http://bob:hunter2@"), JudgeCache(store))
    store.save(result, name="judge", source_name="r.csv", source_sha256="0" * 64)
    assert fake.requests  # the judge was asked (with the URL's user and password, as the client sends them)
    with store.engine.connect() as conn:
        dumped = " ".join(str(r) for t in rundb.metadata.sorted_tables for r in conn.execute(sa.select(t)))
        endpoints = set(conn.execute(sa.select(rundb.judge_cache.c.endpoint)).scalars())
    assert KEY not in dumped and "hunter2" not in dumped and "bob" not in dumped
    assert endpoints == {fake.base_url}
