"""The LLM judge on the pages: its sidebar settings, where the key comes from, and the ask-on-click panel."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from scoring.limits import user_message
from scoring.toxicity import KNOWN_GAPS, MEASURED_RECALL
from scoring.toxicity.classifier import MeasuredRecall
from ui.cached import toxicity_judged


@dataclass(frozen=True)
class JudgeSettings:
    """The toxicity sidebar's values; the key is never part of the repr."""

    threshold: float
    base_url: str
    model: str
    api_key: str = field(repr=False)


def judge_settings(engine: str | None = None) -> JudgeSettings:
    """The toxicity settings in the sidebar, shared by the Toxicity and Batch pages (same session keys).

    The threshold slider is the ``engine``'s (default: the Toxicity page's engine): e5's in steps of 0.01, the
    classifier's otherwise. The API key is taken from the environment or Streamlit secrets when set there
    (never shown), else from a password field.
    """
    engine = engine or str(st.session_state.get("toxicity.engine"))
    with st.sidebar:
        st.subheader("Toxicity settings")
        if engine == "e5":
            threshold = st.slider(
                "e5 threshold", 0.05, 0.99, step=0.01, key="toxicity.e5_threshold", persist_state="session",
                help="A sentence is toxic when the learned head's probability is at least this. The Toxicity page "
                "shows precision and recall on fresh text at each threshold.",
            )  # fmt: skip
        else:
            threshold = st.slider(
                "Classifier threshold", 0.05, 0.95, step=0.05, key="toxicity.threshold", persist_state="session"
            )
        base_url = st.text_input(
            "Judge base URL", key="toxicity.base_url", persist_state="session", placeholder="https://api.openai.com/v1"
        )
        model = st.text_input("Judge model", key="toxicity.model", persist_state="session")
        api_key, key_source = judge_api_key()
        if key_source == "password field":
            st.text_input("Judge API key", type="password", key="toxicity.api_key", persist_state="session")
            api_key = st.session_state["toxicity.api_key"]
        else:
            st.caption(f"Judge API key: taken from the {key_source}.")
    return JudgeSettings(float(threshold), base_url, model, api_key)


def judge_api_key() -> tuple[str, str]:
    """Return (key, where it came from): the environment, Streamlit secrets, or the password field."""
    if key := os.environ.get("OPENAI_API_KEY", ""):
        return key, "environment (OPENAI_API_KEY)"
    try:
        if key := str(st.secrets.get("OPENAI_API_KEY", "")):
            return key, "Streamlit secrets"
    except Exception:  # no or malformed secrets.toml: fall through to the password field
        pass
    return str(st.session_state.get("toxicity.api_key", "")), "password field"


def judge_panel(input_text: str, output: str, model: str, base_url: str, api_key: str) -> dict[str, Any] | None:
    """Ask the judge on a click (it costs money and time); return the last answer for these inputs."""
    if not api_key:
        st.info("The LLM judge needs an API key: type it under Judge API key in the sidebar (or ask whoever runs "
                "this dashboard to set one up). The offline classifier needs none.")  # fmt: skip
        return None
    signature = (input_text, output, model, base_url)
    if st.button("Ask the judge", key="toxicity.ask", type="primary", icon=":material/gavel:"):
        with st.spinner("Asking the judge…"):
            try:
                st.session_state["toxicity.judged"] = (signature, toxicity_judged(*signature, api_key))
            except Exception as e:  # network, refused key, unparseable reply: the scorer's message, no traceback
                st.error(user_message(e))
                return None
    judged = st.session_state.get("toxicity.judged")
    return judged[1] if judged and judged[0] == signature else None


def toxicity_known_gaps(engine: str) -> list[str]:
    """What the toxicity engine is known to miss, as the scorer's module states it."""
    return [str(gap) for gap in KNOWN_GAPS.get(engine, ())]


def toxicity_recall(engine: str) -> MeasuredRecall | None:
    """The engine's measured recall, as the scorer documents it (None when not measured, e.g. the judge)."""
    return MEASURED_RECALL.get(engine)
