"""The server's API key never follows a visitor's judge URL, on the Toxicity and the Batch page.

A real local server captures what each judge request carries. The server holds a key (environment or
Streamlit secrets); a visitor types the capture server's URL into "Judge base URL" and asks the judge.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import APP, metrics, plain
from tests.scoring.fake_openai import FakeOpenAI, Reply, serve

SERVER_KEY = "sk-server-held-0123456789"
VISITOR_KEY = "sk-visitor-typed-abcdef"
TOXICITY, BATCH = "pages/toxicity.py", "pages/batch.py"


def _verdicts(body: dict[str, Any]) -> Reply:
    prompt = body["messages"][-1]["content"]
    if "Opinions (a JSON list" not in prompt:
        return Reply("The score is 0 because it is polite.")
    opinions = json.loads(prompt.split("Opinions (a JSON list of strings from the assistant's reply):\n", 1)[1])
    return Reply(json.dumps({"verdicts": [{"verdict": "no", "reason": "polite"} for _ in opinions]}))


@pytest.fixture
def capture() -> Iterator[FakeOpenAI]:
    with serve(_verdicts) as fake:
        yield fake


def _sent_keys(fake: FakeOpenAI) -> set[str]:
    return {r["headers"].get("authorization", "") for r in fake.requests}


def _toxicity(state: dict[str, object], *, secrets: dict[str, object] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for name, value in (secrets or {}).items():
        at.secrets[name] = value
    for key, value in {"toxicity.engine": "judge", "toxicity.output": "Thanks, happy to help.", **state}.items():
        at.session_state[key] = value
    at.run().switch_page(TOXICITY).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _ask(at: AppTest) -> AppTest:
    at.button(key="toxicity.ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _batch(state: dict[str, object], *, secrets: dict[str, object] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for name, value in (secrets or {}).items():
        at.secrets[name] = value
    base = {"batch.source": "file", "batch.scorers": ["toxicity"], "batch.tox_engine": "judge"}
    for key, value in {**base, **state}.items():
        at.session_state[key] = value
    at.run().switch_page(BATCH).run()
    data = pd.DataFrame({"output": ["Thanks, happy to help.", "Sure, here it is."]}).to_csv(index=False).encode()
    at.file_uploader(key="batch.upload").set_value(("replies.csv", data, "text/csv")).run()
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


Where = Callable[[dict[str, object]], dict[str, object]]


@pytest.mark.parametrize("source", ["environment", "secrets"])
def test_toxicity_page_never_sends_the_servers_key_to_a_visitor_url(
    source: str, capture: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {"OPENAI_API_KEY": SERVER_KEY} if source == "secrets" else None
    if source == "environment":
        monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    at = _ask(_toxicity({"toxicity.base_url": capture.base_url}, secrets=secrets))
    assert all(SERVER_KEY not in k for k in _sent_keys(capture)), _sent_keys(capture)
    # the visitor is told why, and offered a field for their own key
    assert any("goes only to its own judge URL" in c.value for c in at.sidebar.caption)
    assert at.sidebar.text_input(key="toxicity.api_key").proto.type == 1  # PASSWORD


def test_toxicity_page_sends_the_visitors_own_key_to_their_url(
    capture: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    at = _ask(_toxicity({"toxicity.base_url": capture.base_url, "toxicity.api_key": VISITOR_KEY}))
    assert _sent_keys(capture) == {f"Bearer {VISITOR_KEY}"}
    assert metrics(at)["Toxicity score"] == "0.00"


def test_toxicity_page_sends_the_servers_key_to_the_operators_url(
    capture: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", capture.base_url)
    _ask(_toxicity({}))
    assert _sent_keys(capture) == {f"Bearer {SERVER_KEY}"}


@pytest.mark.parametrize("setting", [{"env": "0"}, {"secrets": False}])
def test_operator_can_turn_visitor_urls_off(
    setting: dict[str, object], capture: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    secrets = {"TONE_EXPLORER_ALLOW_VISITOR_JUDGE_URL": setting["secrets"]} if "secrets" in setting else None
    if "env" in setting:
        monkeypatch.setenv("TONE_EXPLORER_ALLOW_VISITOR_JUDGE_URL", str(setting["env"]))
    at = _toxicity({"toxicity.base_url": capture.base_url, "toxicity.api_key": VISITOR_KEY}, secrets=secrets)
    assert not [b for b in at.button if b.key == "toxicity.ask"]  # nothing to click: nothing is sent
    assert any("only to https://api.openai.com/v1" in plain(i.value) for i in at.info)
    batch = _batch({"toxicity.base_url": capture.base_url, "toxicity.api_key": VISITOR_KEY}, secrets=secrets)
    assert any("turned other judge URLs off" in plain(e.value) for e in batch.error)
    assert capture.requests == []


@pytest.mark.parametrize("source", ["environment", "secrets"])
def test_batch_page_never_sends_the_servers_key_to_a_visitor_url(
    source: str, capture: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {"OPENAI_API_KEY": SERVER_KEY} if source == "secrets" else None
    if source == "environment":
        monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    _batch({"toxicity.base_url": capture.base_url}, secrets=secrets)
    assert capture.requests, "the run asked the visitor's URL (with no key)"
    assert all(SERVER_KEY not in k for k in _sent_keys(capture)), _sent_keys(capture)


def test_batch_page_sends_the_visitors_own_key_to_their_url(
    capture: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    at = _batch({"toxicity.base_url": capture.base_url, "toxicity.api_key": VISITOR_KEY})
    assert _sent_keys(capture) == {f"Bearer {VISITOR_KEY}"}
    assert at.success[0].value == "All 2 rows were scored by every scorer."


def test_a_key_typed_for_another_url_is_not_sent_once_the_field_is_gone(
    capture: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The visitor typed a key for their URL, then cleared the URL: the server's judge gets the server's key."""
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", capture.base_url)
    at = _ask(_toxicity({"toxicity.base_url": "", "toxicity.api_key": VISITOR_KEY}))
    assert _sent_keys(capture) == {f"Bearer {SERVER_KEY}"}
    assert not [t for t in at.sidebar.text_input if t.key == "toxicity.api_key"]
