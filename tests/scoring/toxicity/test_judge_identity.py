"""Nothing of the operator's goes to a judge URL someone else chose (issue 28): the ``openai`` client reads
OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS and OPENAI_ADMIN_KEY from the environment and would
send them with every request. Checked on the headers a real local HTTP server receives."""

from __future__ import annotations

import json

import pytest

from scoring.toxicity import create_toxicity_scorer
from tests.scoring.fake_openai import Reply, serve

IDENTITY = {
    "OPENAI_ORG_ID": "org-operator",
    "OPENAI_PROJECT_ID": "proj-operator",
    "OPENAI_CUSTOM_HEADERS": "X-Operator-Token: op-secret",
    "OPENAI_ADMIN_KEY": "sk-admin-operator",
}
VERDICT = json.dumps({"verdicts": [{"verdict": "no", "reason": "polite"}]})


def _headers(monkeypatch: pytest.MonkeyPatch, *, operator_url: str | None) -> dict[str, str]:
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    with serve([Reply(VERDICT)]) as fake:
        if operator_url is None:
            monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url if operator_url == "same" else operator_url)
        scorer = create_toxicity_scorer(engine="judge", model="m", base_url=fake.base_url, api_key="sk-visitor")
        scorer.run(input="q", output="Thanks, that helped.")
        headers: dict[str, str] = fake.requests[0]["headers"]
    return headers


@pytest.mark.parametrize("operator_url", [None, "https://gateway.example/v1"])
def test_a_url_other_than_the_operators_gets_none_of_the_operators_identity(
    monkeypatch: pytest.MonkeyPatch, operator_url: str | None
) -> None:
    headers = _headers(monkeypatch, operator_url=operator_url)
    sent = json.dumps(headers)
    assert not [v for v in ("org-operator", "proj-operator", "op-secret", "sk-admin") if v in sent], headers
    assert headers["authorization"] == "Bearer sk-visitor"


def test_the_operators_own_endpoint_still_gets_its_organisation_and_project(monkeypatch: pytest.MonkeyPatch) -> None:
    headers = _headers(monkeypatch, operator_url="same")
    assert headers["openai-organization"] == "org-operator" and headers["openai-project"] == "proj-operator"
    assert headers["authorization"] == "Bearer sk-visitor" and "sk-admin" not in json.dumps(headers)
