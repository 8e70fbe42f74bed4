"""The LLM judge engine against a real Chat Completions server on 127.0.0.1 (tests/scoring/fake_openai.py)."""

from __future__ import annotations

import json
import logging
import math
import traceback
from typing import Any

import pytest

from scoring import ToxicityMetric, create_toxicity_scorer, run_evals
from scoring.limits import user_message
from scoring.toxicity.judge.prompts import ReplyError, parse_verdicts
from scoring.toxicity.scorer import JudgeError, ToxicityScorer
from tests.scoring.fake_openai import Reply, error_body, serve, unused_port

KEY = "sk-test-SECRET-0123456789abcdef"
TWO = "Sarah is a dedicated team member. You are an idiot."
GOOD = json.dumps(
    {
        "verdicts": [
            {"verdict": "no", "reason": "A kind description of Sarah."},
            {"verdict": "yes", "reason": "Calls the reader 'an idiot'."},
        ]
    }
)
REASON = "The score is 0.5 because 'You are an idiot' insults the reader."
FAST = {"timeout": 5.0, "max_retries": 2, "parse_retries": 1, "backoff": 0.01, "max_backoff": 0.05}


def judge(url: str, **options: Any) -> ToxicityScorer:
    return create_toxicity_scorer(engine="judge", model="judge-model", base_url=url, api_key=KEY, **{**FAST, **options})


def opinions_in(body: dict[str, Any]) -> list[str] | None:
    """Return the opinions a verdicts request asks about, or None for the reason request."""
    prompt = body["messages"][-1]["content"]
    marker = "Opinions (a JSON list of strings from the assistant's reply):\n"
    return json.loads(prompt.split(marker, 1)[1]) if marker in prompt else None


def auto(body: dict[str, Any]) -> Reply:
    """Toxic when an opinion says 'idiot'; an opinion saying 'BROKEN' gets an unreadable reply."""
    opinions = opinions_in(body)
    if opinions is None:
        return Reply("The score is as it is because of the quoted words.")
    if any("BROKEN" in o for o in opinions):
        return Reply("I cannot answer in JSON today.")
    verdicts = [{"verdict": "yes" if "idiot" in o else "no", "reason": f"judged: {o}"} for o in opinions]
    return Reply(json.dumps({"verdicts": verdicts}))


def test_judge_good_verdicts_score_and_reason() -> None:
    with serve([Reply(GOOD), Reply(REASON)]) as fake:
        result = judge(fake.base_url).run(input="How is Sarah as a person?", output=TWO)
    assert result.score == 0.5
    assert result.reason == REASON
    verdicts = result.to_dict()["analyzeStepResult"]["verdicts"]
    assert [(v["opinion"], v["verdict"]) for v in verdicts] == [
        ("Sarah is a dedicated team member.", "no"),
        ("You are an idiot.", "yes"),
    ]
    assert all(TWO[v["start"] : v["end"]] == v["opinion"] for v in verdicts)
    first = fake.requests[0]
    assert first["path"] == "/v1/chat/completions" and first["body"]["model"] == "judge-model"
    assert opinions_in(first["body"]) == ["Sarah is a dedicated team member.", "You are an idiot."]
    assert "How is Sarah as a person?" in first["body"]["messages"][-1]["content"]
    assert first["headers"]["authorization"] == f"Bearer {KEY}"
    assert "0.5" in fake.requests[1]["body"]["messages"][-1]["content"]


def test_judge_reads_fenced_json_with_text_around() -> None:
    fenced = f"Here are the verdicts:\n```json\n{GOOD}\n```\nLet me know if you need more."
    with serve([Reply(fenced), Reply(REASON)]) as fake:
        assert judge(fake.base_url).run(output=TWO).score == 0.5


def test_judge_asks_again_after_malformed_json() -> None:
    with serve([Reply('{"verdicts": [{"verdict": "no"'), Reply(GOOD), Reply(REASON)]) as fake:
        result = judge(fake.base_url).run(output=TWO)
    assert result.score == 0.5 and len(fake.requests) == 3


@pytest.mark.parametrize(
    "reply",
    [
        "not json at all",
        json.dumps({"verdicts": [{"verdict": "yes", "reason": "only one"}]}),  # two opinions, one verdict
        json.dumps({"verdicts": [{"verdict": "maybe", "reason": "x"}, {"verdict": "no", "reason": "y"}]}),
        json.dumps({"verdicts": [{"verdict": "yes", "reason": ""}, {"verdict": "no", "reason": "y"}]}),
        "",
    ],
)
def test_judge_always_malformed_is_an_error_not_a_score(reply: str) -> None:
    with (
        serve([Reply(reply)]) as fake,
        pytest.raises(JudgeError, match="could not be read as verdicts after 2 tries") as info,
    ):
        judge(fake.base_url, parse_retries=1).run(output=TWO)
    assert info.value.kind == "unparseable"
    assert isinstance(info.value, RuntimeError)
    assert len(fake.requests) == 2


def test_judge_slow_reply_times_out_with_a_clear_error() -> None:
    with (
        serve([Reply(GOOD, delay=1.5)]) as fake,
        pytest.raises(JudgeError, match=r"did not answer within 0.2 s \(2 tries\)") as info,
    ):
        judge(fake.base_url, timeout=0.2, max_retries=1).run(output=TWO)
    assert info.value.kind == "timeout"
    assert len(fake.requests) == 2


def test_judge_retries_429_then_succeeds() -> None:
    limited = Reply(
        status=429, body=error_body("Rate limit reached", "rate_limit_exceeded"), headers={"retry-after": "0"}
    )
    with serve([limited, Reply(GOOD), Reply(REASON)]) as fake:
        assert judge(fake.base_url).run(output=TWO).score == 0.5
    assert len(fake.requests) == 3


def test_judge_retries_500_then_succeeds() -> None:
    with serve([Reply(status=500, body=error_body("boom")), Reply(GOOD), Reply(REASON)]) as fake:
        assert judge(fake.base_url).run(output=TWO).score == 0.5
    assert len(fake.requests) == 3


@pytest.mark.parametrize(("status", "kind"), [(500, "server_error"), (503, "server_error"), (429, "rate_limited")])
def test_judge_persistent_failure_is_an_error_after_bounded_retries(status: int, kind: str) -> None:
    with (
        serve([Reply(status=status, body=error_body("still broken"))]) as fake,
        pytest.raises(JudgeError, match=rf"HTTP {status}.*after 3 tries: still broken") as info,
    ):
        judge(fake.base_url, max_retries=2).run(output=TWO)
    assert (info.value.kind, info.value.status) == (kind, status)
    assert len(fake.requests) == 3
    assert "TONE_EXPLORER" not in user_message(info.value) and "still broken" in user_message(info.value)


def test_judge_refused_key_is_a_clear_error_without_retries() -> None:
    refused = Reply(status=401, body=error_body(f"Incorrect API key provided: {KEY}", "invalid_request_error"))
    with (
        serve([refused]) as fake,
        pytest.raises(JudgeError, match=r"refused the API key \(HTTP 401\).*OPENAI_API_KEY") as info,
    ):
        judge(fake.base_url).run(output=TWO)
    assert info.value.kind == "refused" and len(fake.requests) == 1
    assert KEY not in str(info.value)
    shown = user_message(info.value)  # the Toxicity page's words: no variable or argument names, no key
    assert shown.startswith("the judge at") and "check the judge API key" in shown
    assert "OPENAI" not in shown and "api_key" not in shown and KEY not in shown


def test_judge_unknown_model_is_rejected_with_the_server_message() -> None:
    with (
        serve([Reply(status=404, body=error_body("model 'judge-model' not found", "not_found"))]) as fake,
        pytest.raises(JudgeError, match=r"HTTP 404\): model 'judge-model' not found. Is the model name") as info,
    ):
        judge(fake.base_url).run(output=TWO)
    assert info.value.kind == "rejected" and len(fake.requests) == 1


def test_judge_unreachable_endpoint_is_a_clear_error() -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1"
    with pytest.raises(JudgeError, match=r"cannot reach the judge at http://127.0.0.1:\d+/v1 \(2 tries\)") as info:
        judge(url, max_retries=1).run(output=TWO)
    assert info.value.kind == "unreachable"
    assert "OPENAI_BASE_URL" in str(info.value) and "OPENAI_BASE_URL" not in user_message(info.value)


def test_judge_empty_output_scores_zero_without_a_request() -> None:
    with serve([Reply(GOOD)]) as fake:
        result = judge(fake.base_url).run(output="   ")
    assert (result.score, fake.requests) == (0.0, [])
    assert "no opinions" in (result.reason or "")


def test_judge_scale_rounds_like_mastra() -> None:
    three = json.dumps({"verdicts": [{"verdict": v, "reason": "r"} for v in ("yes", "no", "no")]})
    with serve([Reply(three), Reply(REASON)]) as fake:
        result = judge(fake.base_url, scale=10).run(output="One. Two. Three.")
    assert result.score == 3.33
    assert "on a scale from 0 to 10" in fake.requests[1]["body"]["messages"][-1]["content"]


def test_judge_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve([Reply(GOOD), Reply(REASON)]) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        metric = ToxicityMetric("judge-model", scale=1, **FAST)
        assert metric.measure("How is Sarah?", TWO) == {"score": 0.5, "info": {"reason": REASON}}
    assert fake.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"


def test_judge_without_key_or_endpoint_is_refused_up_front(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="needs an API key"):
        create_toxicity_scorer(engine="judge")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"base_url": "localhost:8080"}, "base_url must be an http"),
        ({"model": ""}, "model must name"),
        ({"timeout": 0}, "timeout must be a number > 0"),
        ({"max_retries": -1}, "max_retries must be a whole number"),
        ({"parse_retries": 1.5}, "parse_retries must be a whole number"),
        ({"backoff": float("nan")}, "backoff must be a number"),
    ],
)
def test_judge_bad_settings_are_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        create_toxicity_scorer(engine="judge", **{"api_key": KEY, "base_url": "http://127.0.0.1:9/v1", **options})


def test_run_evals_records_judge_errors_per_item() -> None:
    data = [{"input": "q", "output": "You idiot."}, {"input": "q", "output": "BROKEN reply."}, {"output": "Fine."}]
    with serve(auto) as fake:
        out = run_evals(data, [judge(fake.base_url)])
    results = [item["scorerResults"]["toxicity-scorer"] for item in out["items"]]  # type: ignore[index]
    assert results[0]["score"] == 1.0 and results[2]["score"] == 0.0
    assert results[1]["error"].startswith("JudgeError: the judge's reply could not be read")
    assert out["summary"] == {"totalItems": 3, "errors": {"toxicity-scorer": 1}}
    assert out["scores"] == {"toxicity-scorer": 0.5}


def test_judge_score_many_marks_failed_rows() -> None:
    with serve(auto) as fake:
        many = judge(fake.base_url).score_many(outputs=["You idiot. Hi.", "BROKEN.", ""])
    assert many["score"][0] == 0.5 and math.isnan(many["score"][1]) and many["score"][2] == 0.0
    assert many["error"][0] is None and "could not be read" in many["error"][1]
    assert many["opinionCount"] == [2, None, 0]


def test_api_key_never_appears_in_outputs_errors_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    echo = error_body(f"bad key {KEY}")
    seen: list[str] = []
    with serve([Reply(GOOD), Reply(REASON)]) as fake:
        scorer = judge(fake.base_url)
        result = scorer.run(output=TWO)
        seen += [repr(scorer), str(scorer), repr(scorer.judge), json.dumps(result.to_dict()), repr(result)]
        metric = ToxicityMetric("judge-model", base_url=fake.base_url, api_key=KEY, **FAST)
        seen.append(repr(metric))
    for status in (401, 403, 500, 429, 400):
        with serve([Reply(status=status, body=echo)]) as fake, pytest.raises(JudgeError) as info:
            judge(fake.base_url, max_retries=0).run(output=TWO)
        seen += [str(info.value), repr(info.value), "".join(traceback.format_exception(info.value))]
    with serve([Reply(f"{KEY} is not JSON")]) as fake:
        with pytest.raises(JudgeError) as info:
            judge(fake.base_url).run(output=TWO)
        seen += [str(info.value), "".join(traceback.format_exception(info.value))]
        out = run_evals([{"output": TWO}], [judge(fake.base_url)])
        assert "error" in out["items"][0]["scorerResults"]["toxicity-scorer"]  # type: ignore[index]
        seen.append(json.dumps(out))
    seen += [r.getMessage() for r in caplog.records] + [caplog.text]
    leaks = [s for s in seen if KEY in s]
    assert not leaks, leaks[:1]
    assert any("[API key]" in s for s in seen)  # the echoed key was redacted, not just absent


V1 = '{"verdicts": [{"verdict": "YES ", "reason": " rude "}]}'


@pytest.mark.parametrize(
    "reply",
    [
        V1,
        f"```JSON\n{V1}\n```",
        f"```\n{V1}\n```\nAnything {{else}}?",
        f"Note {{this}} first: {V1} and {{that}} after.",
        f'{{"other": 1}} then {V1}',
    ],
)
def test_parse_verdicts_tolerates_fences_and_text_around(reply: str) -> None:
    assert parse_verdicts(reply, 1) == [{"verdict": "yes", "reason": "rude"}]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (None, "the reply is empty"),
        ('{"verdicts": {"verdict": "yes"}}', "expected a list of 1 verdict"),
        ('{"verdicts": ["yes"]}', "verdict 1 is not an object"),
        ('{"verdicts": [{"verdict": true, "reason": "r"}]}', "verdict 1 must be 'yes' or 'no'"),
        ('{"result": []}', "no JSON object with a 'verdicts' key"),
    ],
)
def test_parse_verdicts_says_what_is_wrong(reply: str | None, problem: str) -> None:
    with pytest.raises(ReplyError, match=problem):
        parse_verdicts(reply, 1)
