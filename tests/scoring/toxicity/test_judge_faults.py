"""The LLM judge failing mid-batch: finished rows stay intact, failed rows are marked, and only those are retried.

A local Chat Completions server fails on chosen rows in the ways real endpoints do: HTTP 500, a reply
slower than the timeout, a connection dropped without an answer, and a transient 503 the judge's own
retries absorb. The batch goes on around them.
"""

from __future__ import annotations

import json
import math
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pandas as pd
import pytest

from scoring import run_evals
from scoring.toxicity.scorer import create_toxicity_scorer
from tests.scoring.fake_openai import completion

ROWS = [f"ROW {i} is a fine answer. ROW {i} says you are an idiot." for i in range(12)]
FAILING = {3: "500", 5: "slow", 7: "drop", 9: "flaky"}  # 9 fails once, then the judge's retry succeeds
FAST = {"timeout": 0.5, "max_retries": 1, "parse_retries": 0, "backoff": 0.01, "max_backoff": 0.02}
ROW_RE = re.compile(r"ROW (\d+)")


class FlakyJudge:
    """A judge server: row markers in the opinions decide how it fails; ``healthy`` makes it answer all."""

    def __init__(self) -> None:
        self.healthy = False
        self.seen: list[int] = []  # the row of every verdicts request, in arrival order
        self._flaky_done: set[int] = set()
        self._lock = threading.Lock()

    def answer(self, body: dict[str, Any]) -> tuple[str, bytes]:
        prompt = body["messages"][-1]["content"]
        rows = {int(n) for n in ROW_RE.findall(prompt)}
        if '"verdict"' not in prompt or not rows:  # the reason request
            return "ok", json.dumps(completion("Scored by counting the insults.")).encode()
        (row,) = rows
        with self._lock:
            self.seen.append(row)
            mode = None if self.healthy else FAILING.get(row)
            if mode == "flaky":
                mode = None if row in self._flaky_done else "503"
                self._flaky_done.add(row)
        if mode in {"500", "503"}:
            return mode, json.dumps({"error": {"message": f"upstream failed ({mode})"}}).encode()
        if mode in {"slow", "drop"}:
            return mode, b""
        verdicts = [{"verdict": "yes" if "idiot" in o else "no", "reason": "checked"} for o in _opinions(prompt)]
        return "ok", json.dumps(completion(json.dumps({"verdicts": verdicts}))).encode()


def _opinions(prompt: str) -> list[str]:
    marker = "Opinions (a JSON list of strings from the assistant's reply):\n"
    return list(json.loads(prompt.split(marker, 1)[1]))


@contextmanager
def flaky_server() -> Iterator[tuple[FlakyJudge, str]]:
    judge = FlakyJudge()
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            mode, data = judge.answer(body)
            if mode == "drop":  # close without a status line
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if mode == "slow":  # answer long after the client's timeout
                release.wait(5)
                return
            self.send_response({"500": 500, "503": 503}.get(mode, 200))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield judge, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _scorer(url: str) -> Any:
    return create_toxicity_scorer(engine="judge", model="judge-model", base_url=url, api_key="sk-test", **FAST)


def test_judge_failing_mid_batch_keeps_finished_rows_and_marks_failed_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_JUDGE_CONCURRENCY", "4")
    with flaky_server() as (judge, url):
        many = _scorer(url).score_many(outputs=ROWS)
    hard = {row for row, mode in FAILING.items() if mode != "flaky"}
    for row in range(len(ROWS)):
        if row in hard:
            assert math.isnan(many["score"][row]) and many["opinionCount"][row] is None
            assert many["error"][row], row
        else:  # finished rows are whole: score and counts, no error
            assert (many["score"][row], many["toxicCount"][row], many["opinionCount"][row]) == (0.5, 1, 2)
            assert many["error"][row] is None
    assert "HTTP 500" in many["error"][3]
    assert "did not answer within 0.5 s" in many["error"][5]
    assert "cannot reach the judge" in many["error"][7]
    assert judge.seen.count(9) == 2  # the transient 503 was retried by the judge itself


def test_retrying_only_the_failed_rows_completes_the_batch() -> None:
    """The library-level retry: score again just the rows whose error is set, and merge."""
    with flaky_server() as (judge, url):
        scorer = _scorer(url)
        first = pd.DataFrame(scorer.score_many(outputs=ROWS))
        failed = first.index[first["error"].notna()].tolist()
        judge.healthy, judge.seen = True, []
        again = pd.DataFrame(scorer.score_many(outputs=[ROWS[i] for i in failed]), index=failed)
    assert sorted(judge.seen) == failed == [3, 5, 7]  # only the failed rows went to the judge again
    merged = first.copy()
    merged.loc[failed] = again
    assert merged["error"].isna().all() and merged["score"].tolist() == [0.5] * len(ROWS)


def test_run_evals_with_a_failing_judge_reports_items_and_scores_the_rest() -> None:
    with flaky_server() as (_, url):
        out = run_evals([{"input": "q", "output": text} for text in ROWS], [_scorer(url)])
    errors = [i["index"] for i in out["items"] if "error" in i["scorerResults"]["toxicity-scorer"]]
    assert errors == [3, 5, 7]
    assert out["summary"] == {"totalItems": 12, "errors": {"toxicity-scorer": 3}}
    assert out["scores"]["toxicity-scorer"] == 0.5


def test_batch_engine_retries_only_failed_judge_rows() -> None:
    from scoring.batch.runner import evaluate, retry_errors

    df = pd.DataFrame({"input": ["q"] * len(ROWS), "output": ROWS})
    with flaky_server() as (judge, url):
        judge_options = {"engine": "judge", "model": "judge-model", "base_url": url, **FAST}
        result = evaluate(df, scorers=["toxicity"], toxicity=judge_options)
        assert result.errors["row"].tolist() == [4, 6, 8] and not result.complete
        judge.healthy, judge.seen = True, []
        retried = retry_errors(result, df, toxicity=judge_options)
    assert sorted(judge.seen) == [3, 5, 7] and retried.complete
    assert retried.table["toxicity-scorer"].tolist() == [0.5] * len(ROWS)


def test_batch_judge_keeps_concurrency_bounded_reports_rows_and_stays_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """TONE_EXPLORER_JUDGE_CONCURRENCY bounds requests in flight even with workers=2; progress moves per row."""
    from scoring.batch.runner import evaluate
    from tests.scoring.fake_openai import Reply, serve

    monkeypatch.setenv("TONE_EXPLORER_JUDGE_CONCURRENCY", "3")
    lock, state = threading.Lock(), {"now": 0, "peak": 0}

    def reply(body: dict[str, Any]) -> Reply:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        threading.Event().wait(0.05)
        with lock:
            state["now"] -= 1
        opinions = _opinions(body["messages"][-1]["content"])
        return Reply(json.dumps({"verdicts": [{"verdict": "no", "reason": "fine"} for _ in opinions]}))

    calls: list[tuple[int, int]] = []
    df = pd.DataFrame({"input": ["q"] * len(ROWS), "output": ROWS})
    with serve(reply) as fake:
        options = {"engine": "judge", "model": "judge-model", "base_url": fake.base_url, "api_key": "sk-secret-1"}
        result = evaluate(
            df, scorers=["toxicity"], toxicity=options, workers=2, on_progress=lambda d, t: calls.append((d, t))
        )
    assert result.complete and result.table["toxicity-scorer"].tolist() == [0.0] * len(ROWS)
    assert len(fake.requests) == len(ROWS)  # one request per row: verdicts only, no reason in a batch
    assert 1 < state["peak"] <= 3
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and len(calls) > 2 and calls[-1] == (12, 12)
    assert "sk-secret-1" not in repr(result.spec) + repr(result) and "api_key" not in dict(result.spec.toxicity)


def test_retry_errors_checks_its_arguments_and_keeps_the_rest() -> None:
    from scoring.batch.runner import evaluate, retry_errors

    df = pd.DataFrame({"input": ["q"] * len(ROWS), "output": ROWS})
    with flaky_server() as (judge, url):
        options = {"engine": "judge", "model": "judge-model", "base_url": url, **FAST}
        result = evaluate(df, scorers=["tone", "toxicity"], toxicity=options)
        with pytest.raises(ValueError, match="one table must not mix them"):
            retry_errors(result, df, toxicity={"engine": "classifier"})
        with pytest.raises(ValueError, match="df must be the table that was scored"):
            retry_errors(result, df.head(3))
        still = retry_errors(result)  # the judge still fails on those rows: they stay errors
        judge.healthy = True
        progress: list[tuple[int, int]] = []
        fixed = retry_errors(still, toxicity=options, on_progress=lambda d, t: progress.append((d, t)))
    assert still.errors["row"].tolist() == [4, 6, 8] and not still.complete
    pd.testing.assert_frame_equal(still.table, result.table)
    assert fixed.complete and progress[-1] == (3, 3)
    assert fixed.summary.loc["toxicity-scorer", ["count", "errors"]].tolist() == [12, 0]
    assert fixed.summary.loc["toxicity-scorer", "mean"] == 0.5
    pd.testing.assert_frame_equal(fixed.table.drop(columns=[c for c in fixed.table if "toxicity" in c]),
                                  result.table.drop(columns=[c for c in result.table if "toxicity" in c]))  # fmt: skip
    assert retry_errors(fixed) is fixed  # nothing failed: nothing to do


def _insult_verdicts(body: dict[str, Any]) -> Any:
    from tests.scoring.fake_openai import Reply

    opinions = _opinions(body["messages"][-1]["content"])
    return Reply(
        json.dumps({"verdicts": [{"verdict": "yes" if "idiot" in o else "no", "reason": "r"} for o in opinions]})
    )


def test_retry_adds_metric_columns_when_every_row_had_failed() -> None:
    """A judge refusing every row leaves only the score column; the retry adds the metrics, in place."""
    from scoring.batch.runner import evaluate, retry_errors
    from tests.scoring.fake_openai import Reply, error_body, serve

    df = pd.DataFrame({"output": ["You are an idiot.", "Fine answer."]})
    with serve([Reply(status=401, body=error_body("bad key"))]) as fake:
        options = {"engine": "judge", "model": "m", "base_url": fake.base_url, "api_key": "wrong", "timeout": 10}
        failed = evaluate(df, scorers=["toxicity", "tone"], toxicity=options)
        assert failed.errors["row"].tolist() == [1, 2] and "refused the API key" in failed.errors["error"][0]
        fake.script = _insult_verdicts
        fixed = retry_errors(failed, toxicity={**options, "api_key": "right"})
    fresh_columns = ["output", "toxicity-scorer", "toxicity-scorer.toxicCount", "toxicity-scorer.opinionCount"]
    assert list(fixed.table.columns[:4]) == fresh_columns and fixed.complete
    assert fixed.table["toxicity-scorer"].tolist() == [1.0, 0.0]
