"""AppTest helpers: open the dashboard on a page, with fresh caches and no real API key."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block, Markdown

from ui import page_cache
from ui.markdown import WORD_JOINER
from ui.widgets import SCORE_LABEL_PATTERN, SCORE_VALUE_PATTERN

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("TONE_EXPLORER_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")  # never the user's run store
    st.cache_data.clear()
    st.cache_resource.clear()
    page_cache.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()
    page_cache.clear()


@pytest.fixture
def open_page() -> Callable[..., AppTest]:
    """Return a function that runs the app, switches to ``page`` and checks nothing raised."""

    def _open(page: str = "pages/home.py", *, state: dict[str, object] | None = None) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=60)
        for key, value in (state or {}).items():
            at.session_state[key] = value
        at.run()
        if page != "pages/home.py":
            at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return _open


def score_cards(at: AppTest) -> dict[str, str]:
    """Every ``ui.score_card`` on the page: its label -> the number it shows."""
    cards = {}
    for node in at.main:
        if not isinstance(node, Block) or node.key is None or len(node.children) != 2:
            continue
        label, value = node.children[0], node.children[1]
        if (
            isinstance(label, Markdown)
            and isinstance(value, Markdown)
            and (shown := SCORE_VALUE_PATTERN.fullmatch(value.value))
            and (named := SCORE_LABEL_PATTERN.fullmatch(label.value))
        ):
            cards[plain(named[1])] = shown[1]
    return cards


def metrics(at: AppTest) -> dict[str, str]:
    """Every st.metric and score card on the page: label -> shown value."""
    return {m.label: m.value for m in at.metric} | score_cards(at)


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain(markdown: str) -> str:
    """The text an escaped markdown string shows: its backslash escapes read, its word joiners dropped."""
    return _ESCAPED.sub(r"\1", markdown).replace(WORD_JOINER, "")
