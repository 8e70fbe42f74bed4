"""The judge's API key never leaves: not in errors, tracebacks, logs, reprs, results, exports, CLI or page output.

A real HTTP server on 127.0.0.1 plays a hostile judge: it refuses the key, fails with 5xx, hangs past the
timeout, drops the connection, and echoes the key back in its error bodies and even in its replies.
Every string a user or a log could see is then searched for a distinctive part of the key.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from scoring.io.export import to_csv_bytes, to_excel_bytes, to_jsonl_bytes, to_parquet_bytes
from scoring.toxicity.scorer import JudgeError, create_toxicity_scorer
from tests.pages.conftest import score_cards
from tests.scoring.fake_openai import Reply, error_body, serve, unused_port

CORE = "7c1f0e9d8b2a4c6e"
KEY = f"sk-live-TONEX-{CORE}-LEAKCHECK"
ROOT = Path(__file__).resolve().parents[3]
TEXT = "Sarah is kind. You are an idiot."
FAST = {"timeout": 0.5, "max_retries": 1, "parse_retries": 0, "backoff": 0.01, "max_backoff": 0.02}
ECHO = error_body(f"Incorrect API key provided: {KEY}. Authorization: Bearer {KEY}")


def _judge(url: str, **options: Any) -> Any:
    return create_toxicity_scorer(engine="judge", model="judge-model", base_url=url, api_key=KEY, **{**FAST, **options})


@contextmanager
def _dropping_server() -> Iterator[str]:
    """A server that reads each request and closes the connection without answering."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.1)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                with suppress(OSError):
                    conn.recv(65536)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


def _exception_texts(exc: BaseException) -> list[str]:
    """Everything an error shows: message, repr, args, the traceback as printed, and each chained error."""
    texts = [str(exc), repr(exc), repr(exc.args), "".join(traceback.format_exception(exc))]
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:  # what `raise ... from` would print
        seen.add(id(exc))
        if not exc.__suppress_context__ or exc.__cause__ is not None:
            texts.append("".join(traceback.format_exception_only(exc)))
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)  # type: ignore[assignment]
    return texts


def _assert_no_key(texts: list[str]) -> None:
    leaks = [t for t in texts if CORE in t]
    assert not leaks, f"the API key leaked: {leaks[0][:300]!r}"


FAILURES = {
    "refused 401": [Reply(status=401, body=ECHO)],
    "forbidden 403": [Reply(status=403, body=ECHO)],
    "server error 500": [Reply(status=500, body=ECHO)],
    "bad gateway 502 (html)": [Reply(status=502, body=f"<html>upstream said {KEY}</html>".encode())],
    "rate limited 429": [Reply(status=429, body=ECHO, headers={"Retry-After": "0"})],
    "bad request 400": [Reply(status=400, body=ECHO)],
    "unknown model 404": [Reply(status=404, body=ECHO)],
    "timeout": [Reply(content="{}", delay=2.0)],
    "reply not JSON, echoing the key": [Reply(content=f"Your key is {KEY}, not telling.")],
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_judge_failure_messages_tracebacks_and_logs_hold_no_key(caplog: pytest.LogCaptureFixture, failure: str) -> None:
    caplog.set_level(logging.DEBUG)
    with serve(FAILURES[failure]) as fake, pytest.raises(JudgeError) as info:
        _judge(fake.base_url).run(input="How is Sarah?", output=TEXT)
    assert fake.requests and all(r["headers"]["authorization"] == f"Bearer {KEY}" for r in fake.requests)
    _assert_no_key(_exception_texts(info.value) + [r.getMessage() for r in caplog.records] + [caplog.text])


@pytest.mark.parametrize("kind", ["dropped connection", "nothing listening"])
def test_judge_connection_failures_hold_no_key(caplog: pytest.LogCaptureFixture, kind: str) -> None:
    caplog.set_level(logging.DEBUG)
    if kind == "nothing listening":
        with pytest.raises(JudgeError, match="cannot reach the judge") as info:
            _judge(f"http://127.0.0.1:{unused_port()}/v1").run(output=TEXT)
    else:
        with _dropping_server() as url, pytest.raises(JudgeError) as info:
            _judge(url).run(output=TEXT)
    _assert_no_key([*_exception_texts(info.value), caplog.text])


def _verdicts_echoing_key(body: dict[str, Any]) -> Reply:
    prompt = body["messages"][-1]["content"]
    if '"verdicts"' not in prompt:  # the reason request
        return Reply(f"The score is 0.5; by the way your header was Bearer {KEY}.")
    verdicts = [{"verdict": "no", "reason": f"fine ({KEY})"}, {"verdict": "yes", "reason": f"insult {KEY}"}]
    return Reply(json.dumps({"verdicts": verdicts}))


def test_judge_replies_echoing_the_key_are_redacted_in_results(caplog: pytest.LogCaptureFixture) -> None:
    """Even a judge that writes the key into its verdicts cannot put it into a result or an export."""
    caplog.set_level(logging.DEBUG)
    with serve(_verdicts_echoing_key) as fake:
        scorer = _judge(fake.base_url)
        result = scorer.run(input="How is Sarah?", output=TEXT)
    assert result.score == 0.5
    dumped = json.dumps(result.to_dict())
    assert "[API key]" in dumped  # redacted, not silently dropped
    _assert_no_key([dumped, repr(result), result.reason or "", repr(scorer), str(scorer), caplog.text])


def test_batch_rows_and_exports_hold_no_key() -> None:
    """A judge failing on some rows: the errors kept per row, and every export format, hold no key."""

    def script(body: dict[str, Any]) -> Reply:
        if "BROKEN" in body["messages"][-1]["content"]:
            return Reply(status=401, body=ECHO)
        return _verdicts_echoing_key(body)

    with serve(script) as fake:
        many = _judge(fake.base_url).score_many(outputs=[TEXT, "BROKEN reply. Still broken.", TEXT])
    assert many["error"][0] is None and "refused the API key" in many["error"][1]
    table = pd.DataFrame({"output": [TEXT, "BROKEN", TEXT], **many})
    exports = [to_csv_bytes(table), to_jsonl_bytes(table), to_parquet_bytes(table), to_excel_bytes(table)]
    _assert_no_key([json.dumps(many, default=str)] + [e.decode("latin-1") for e in exports])


def _run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args], cwd=ROOT, env={**os.environ, **env},
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip


def test_cli_never_prints_the_key(tmp_path: Path) -> None:
    """The CLI with the key in its environment: good run, bad file, bad option; stdout, stderr and output."""
    data = tmp_path / "replies.csv"
    data.write_text("input,output\nHow is Sarah?,Sarah is kind.\nAnd you?,You are an idiot.\n")
    with serve([Reply(status=401, body=ECHO)]) as fake:
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.base_url, "PYTHONPATH": str(ROOT)}
        runs = [
            _run_cli(["evaluate", str(data), "--scorers", "tone,toxicity", "--out", str(tmp_path / "o.csv")], env),
            _run_cli(["evaluate", str(tmp_path / "missing.csv")], env),
            _run_cli(["evaluate", str(data), "--scorers", "judge"], env),
            _run_cli(["evaluate", "--help"], env),
        ]
    assert [r.returncode for r in runs] == [0, 2, 2, 0], [r.stderr[-300:] for r in runs]
    _assert_no_key([r.stdout + r.stderr for r in runs] + [(tmp_path / "o.csv").read_text()])


def _tree_text(node: Any) -> list[str]:
    """Every element's protobuf in an AppTest tree (labels, values, messages, data)."""
    texts = [str(getattr(node, "proto", ""))]
    children = getattr(node, "children", {})
    for child in children.values() if isinstance(children, dict) else children:
        texts += _tree_text(child)
    return texts


@pytest.mark.parametrize("script", ["refused", "echoing"])
def test_toxicity_page_never_shows_the_key(monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """The real Toxicity page, key from Streamlit secrets, real scorer, hostile judge: no key anywhere."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("TONE_EXPLORER_JUDGE_TIMEOUT_S", "2")
    replies = [Reply(status=401, body=ECHO)] if script == "refused" else _verdicts_echoing_key
    with serve(replies) as fake:
        at = AppTest.from_file(str(ROOT / "pages" / "toxicity.py"), default_timeout=60)
        at.secrets["OPENAI_API_KEY"] = KEY
        at.secrets["OPENAI_BASE_URL"] = fake.base_url  # the operator's judge: the only URL the key goes to
        at.session_state["toxicity.engine"] = "judge"
        at.session_state["toxicity.output"] = TEXT
        at.run()
        at.button(key="toxicity.ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    if script == "refused":
        assert any("refused the API key" in e.value for e in at.error)
    else:
        assert "Toxicity score" in score_cards(at)
    _assert_no_key(_tree_text(at._tree))
