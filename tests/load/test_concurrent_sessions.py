"""Ten browser sessions scoring at once against one `streamlit run` server each get their own correct result.

Driven by bench/load.py (which also reports latency: ``python -m bench.load``); this test checks only
correctness and isolation, never timings. 30 more sessions speak the websocket protocol without a browser.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bench.load import CHROMIUM, Session, plan, run_measure, run_protocol
from bench.server import streamlit_server
from bench.ws_session import score_texts

pytestmark = [pytest.mark.load, pytest.mark.browser]
SESSIONS = 10


def test_ten_concurrent_sessions_each_see_their_own_scores() -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make setup` (it installs Debian's chromium).")
    with streamlit_server() as server:
        result = run_measure(server, SESSIONS, rounds=2)
        base, loaded = run_protocol(server.url, 3 * SESSIONS, rounds=2)  # raises if a session sees another's score
    sessions: list[Session] = result["sessions"]  # type: ignore[assignment]
    assert len(sessions) == SESSIONS
    for session in sessions:
        assert session.shown == session.expected  # the score the library gives this session's own text
        assert len(session.latencies) == 2 and session.page_load > 0
    shown = [score for s in sessions for score in s.shown]
    assert len(set(shown)) == len(shown)  # all different: a result shown in the wrong session would fail
    assert result["health"], "the health probe never got an answer during the run"
    assert (len(base), len(loaded)) == (2, 3 * SESSIONS * 2)  # 30 browserless sessions: every update answered


def test_a_new_servers_first_session_without_a_browser_gets_its_score() -> None:
    """The first session a server ever has runs the app twice (its run stops early once the navigation is
    known); the protocol client waits for the real run instead of giving up without a text area."""
    (session,) = plan(1, rounds=2, seed=3)
    with streamlit_server() as server, ThreadPoolExecutor(max_workers=1) as thread:
        # a loop of its own, in a thread: a browser test before this one may have left one running here
        shown, latencies = thread.submit(asyncio.run, score_texts(server.url, session.texts)).result()
    assert shown == session.expected and len(latencies) == 2
