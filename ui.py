"""Shared UI helpers: session state, cached scoring, cards. Pages call these; maths lives in scoring/."""

from __future__ import annotations

import streamlit as st

DEFAULTS: dict[str, object] = {}


def init_state() -> None:
    """Set every page's session-state defaults once per session ("<page>.<name>" keys)."""
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)
