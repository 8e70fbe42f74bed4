"""Ten browser sessions scoring at once against one `streamlit run` server each get their own correct result.

Driven by bench/load.py (which also reports latency: ``python -m bench.load``); this test checks only
correctness and isolation, never timings. 30 more sessions speak the websocket protocol without a browser.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.load import CHROMIUM, Session, run_measure, run_protocol
from bench.server import streamlit_server

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
