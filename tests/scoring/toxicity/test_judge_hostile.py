"""A hostile judge endpoint: redirects elsewhere, replies a byte at a time, huge or zipped-bomb replies,
replies that are not chat completions, and a server that never answers while the user presses Ctrl-C.

Every server is a real HTTP server on 127.0.0.1 (``tests/scoring/fake_openai.py``). No test measures
time: a request that should end at its deadline runs under a hang guard many times longer, and "stops
at once" is checked by the request ending although its deadline is minutes away.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from scoring.batch.runner import evaluate
from scoring.toxicity.judge.client import QUOTED_CHARS
from scoring.toxicity.scorer import JudgeError, create_toxicity_scorer
from tests.scoring.fake_openai import Reply, error_body, serve

ROOT = Path(__file__).resolve().parents[3]
FAST = {"timeout": 1.0, "max_retries": 0, "parse_retries": 0, "backoff": 0.01, "max_backoff": 0.02}
GOOD = json.dumps({"verdicts": [{"verdict": "no", "reason": "polite"}]})
HANG_GUARD = 60.0  # seconds: only ever reached when the behaviour under test is broken


def _judge(url: str, **options: Any) -> Any:
    return create_toxicity_scorer(engine="judge", model="m", base_url=url, api_key="sk-test", **{**FAST, **options})


def _guarded(call: Callable[[], Any]) -> Any:
    """Run ``call`` in a thread; fail (instead of hanging the suite) if it has not returned after HANG_GUARD s."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = call()
        except BaseException as exc:  # handed to the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert not thread.is_alive(), f"still waiting after {HANG_GUARD:g} s: the deadline was not enforced"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_judge_never_follows_a_redirect_to_another_origin(status: int) -> None:
    with serve([Reply(GOOD)]) as elsewhere:
        moved = Reply(status=status, body=b"", headers={"Location": elsewhere.base_url + "/chat/completions"})
        with serve([moved]) as judge, pytest.raises(JudgeError) as caught:
            _judge(judge.base_url).run(output="Fine answer.")
    assert elsewhere.requests == []  # the prompts never reached the other host
    assert caught.value.kind == "redirected" and caught.value.status == status
    assert f"redirect (HTTP {status}) to http://127.0.0.1:" in str(caught.value)


def test_judge_deadline_is_for_the_whole_request_not_each_read() -> None:
    """A server sending one byte at a time, for ever, must time out at the request's deadline."""
    with serve([Reply(GOOD, drip=0.05, endless=True)]) as fake, pytest.raises(JudgeError) as caught:
        _guarded(lambda: _judge(fake.base_url).run(output="Fine answer."))
    assert caught.value.kind == "timeout"
    assert "did not answer within 1 s" in str(caught.value)


def test_judge_slow_headers_hit_the_same_deadline() -> None:
    with serve([Reply(GOOD, hang=True)]) as fake, pytest.raises(JudgeError) as caught:
        _guarded(lambda: _judge(fake.base_url).run(output="Fine answer."))
    assert caught.value.kind == "timeout"


@pytest.mark.parametrize(
    "reply",
    [
        Reply(GOOD, padding=2 << 20),  # 2 MB, announced in Content-Length
        Reply(GOOD, padding=2 << 20, declare_length=False),  # 2 MB, found while reading
        Reply(GOOD, padding=16 << 20, gzip=True),  # ~16 KB on the wire, 16 MB once inflated
    ],
    ids=["content-length", "streamed", "gzip-bomb"],
)
def test_judge_refuses_a_reply_over_the_size_cap(reply: Reply, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_JUDGE_MAX_REPLY_KB", "1024")
    with serve([reply]) as fake, pytest.raises(JudgeError) as caught:
        _judge(fake.base_url, timeout=60).run(output="Fine answer.")
    assert caught.value.kind == "too_large"
    assert "larger than 1,024 KB (TONE_EXPLORER_JUDGE_MAX_REPLY_KB)" in str(caught.value)


def test_judge_reads_a_gzipped_reply_under_the_cap() -> None:
    with serve([Reply(GOOD, gzip=True, padding=1000)]) as fake:
        assert _judge(fake.base_url).score_many(outputs=["Fine answer."])["score"] == [0.0]


BAD_REPLIES = {
    "BAD-CHOICES": Reply(body={"choices": "x"}),
    "BAD-NOT-JSON": Reply(body=b"this is not json"),
    "BAD-NESTED-BODY": Reply(body=b"[" * 100_000 + b"]" * 100_000),
    "BAD-NESTED-CONTENT": Reply('{"verdicts": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    "BAD-CHOICE-SHAPE": Reply(body={"choices": [{"message": "no"}]}),
    "BAD-LIST": Reply(body=[1, 2, 3]),
}


def _by_row(body: dict[str, Any]) -> Reply:
    prompt = body["messages"][-1]["content"]
    for marker, reply in BAD_REPLIES.items():
        if marker in prompt:
            return reply
    return Reply(GOOD)


def test_one_bad_reply_fails_its_row_only_never_its_chunk() -> None:
    rows = ["A polite answer."] + [f"{marker} here." for marker in BAD_REPLIES] + ["Another polite answer."]
    df = pd.DataFrame({"output": rows})
    with serve(_by_row) as fake:
        toxicity = {"engine": "judge", "model": "m", "base_url": fake.base_url, "api_key": "sk-test", **FAST}
        result = evaluate(df, scorers=["toxicity"], toxicity=toxicity)
    scores = result.table["toxicity-scorer"].tolist()
    assert scores[0] == 0.0 and scores[-1] == 0.0  # the chunk's good rows are scored
    assert all(math.isnan(s) for s in scores[1:-1])
    errors = dict(zip(result.errors["row"], result.errors["error"], strict=True))
    assert sorted(errors) == list(range(2, len(rows)))  # one error per bad row, on its own row
    assert "'choices' is str, not a list" in errors[2]
    assert "not a chat completion (JSONDecodeError)" in errors[3]
    assert "not a chat completion (RecursionError)" in errors[4]
    assert "no JSON object with a 'verdicts' key" in errors[5]


def test_judge_error_quotes_the_server_briefly() -> None:
    long = "[Session expired](https://attacker.example/login) " + "blah " * 1000
    with serve([Reply(status=400, body=error_body(long))]) as fake, pytest.raises(JudgeError) as caught:
        _judge(fake.base_url).run(output="Fine answer.")
    message = str(caught.value)
    assert "blah " * (QUOTED_CHARS // 5) not in message and message.count("blah") < QUOTED_CHARS // 5
    assert len(message) < 250 and "\n" not in message


def test_judge_error_on_an_html_page_says_so_instead_of_quoting_it() -> None:
    page = b"<html><body><h1>502 Bad Gateway</h1><img src='https://attacker.example/x.png'></body></html>"
    reply = Reply(status=502, body=page, headers={"Content-Type": "text/html"})
    with serve([reply]) as fake, pytest.raises(JudgeError) as caught:
        _judge(fake.base_url).run(output="Fine answer.")
    assert "HTTP 502 after 1 tries (an HTML page)." in str(caught.value)
    assert "attacker" not in str(caught.value)


@pytest.mark.parametrize("key", ["sk-test\n", "  sk-test\r\n", "\tsk-test "])
def test_judge_key_with_surrounding_whitespace_is_stripped(key: str) -> None:
    with serve([Reply(GOOD)]) as fake:
        judge = create_toxicity_scorer(engine="judge", model="m", base_url=fake.base_url, api_key=key, **FAST)
        judge.score_many(outputs=["Fine."])
    assert fake.requests[0]["headers"]["authorization"] == "Bearer sk-test"


@pytest.mark.parametrize(
    ("key", "problem"), [("sk-te\nst", "a line break or control character at character 6"), ("sk-té", "non-ASCII")]
)
def test_judge_key_that_cannot_be_sent_is_named_not_cannot_reach(key: str, problem: str) -> None:
    with pytest.raises(ValueError, match=f"api_key has {problem}") as caught:
        create_toxicity_scorer(engine="judge", model="m", base_url="http://127.0.0.1:9/v1", api_key=key)
    assert key not in str(caught.value)


def test_judge_key_from_the_environment_with_a_newline_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env\n")
    with serve([Reply(GOOD)]) as fake:
        create_toxicity_scorer(engine="judge", model="m", base_url=fake.base_url, **FAST).score_many(outputs=["Fine."])
    assert fake.requests[0]["headers"]["authorization"] == "Bearer sk-env"


def test_cancel_stops_a_request_in_flight_at_once() -> None:
    """The request's deadline is 10 minutes away: it can only end before the hang guard by being cancelled."""
    stop, caught = threading.Event(), list[BaseException]()

    def ask() -> None:
        try:
            judge.verdicts("", ["Fine."], cancel=stop)
        except BaseException as exc:
            caught.append(exc)

    with serve([Reply(GOOD, hang=True)]) as fake:
        judge = _judge(fake.base_url, timeout=600).judge
        worker = threading.Thread(target=ask, daemon=True)
        worker.start()
        assert fake.wait_for(1)  # the request is now waiting for the server
        judge.cancel(stop)
        worker.join(HANG_GUARD)
        assert not worker.is_alive(), "the cancelled request kept waiting"
    assert len(caught) == 1 and isinstance(caught[0], JudgeError) and caught[0].kind == "cancelled"


def test_cli_ctrl_c_with_a_hung_judge_stops_at_once(tmp_path: Path) -> None:
    """SIGINT while every request hangs (deadline 10 minutes): the CLI exits 130 now, leaving no file."""
    data = tmp_path / "replies.csv"
    pd.DataFrame({"output": [f"Answer number {i}." for i in range(8)]}).to_csv(data, index=False)
    out = tmp_path / "scored.csv"
    with serve([Reply(GOOD, hang=True)]) as fake:
        env = {**os.environ, "OPENAI_API_KEY": "sk-test", "TONE_EXPLORER_JUDGE_TIMEOUT_S": "600",
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        cmd = [sys.executable, "-m", "scoring", "evaluate", str(data), "--scorers", "toxicity", "--toxicity-engine",
               "judge", "--judge-base-url", fake.base_url, "--no-progress", "--out", str(out)]  # fmt: skip
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert fake.wait_for(1, HANG_GUARD), "the CLI never asked the judge"
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=HANG_GUARD)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not out.exists()


def test_cli_exits_4_when_nothing_was_scored(tmp_path: Path) -> None:
    """Every row failed (the judge is down) and no threshold was given: not a success."""
    data = tmp_path / "replies.csv"
    pd.DataFrame({"output": ["One answer.", "Another answer."]}).to_csv(data, index=False)
    with serve([Reply(status=401, body=error_body("bad key"))]) as fake:
        env = {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "scoring", "evaluate", str(data), "--scorers", "toxicity", "--toxicity-engine",
               "judge", "--judge-base-url", fake.base_url, "--no-progress"]  # fmt: skip
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 4, done.stderr
    assert "error: nothing was scored: toxicity-scorer scored none of the 2 rows (2 failed, 0 skipped)." in done.stderr
