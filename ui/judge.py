"""The LLM judge on the pages: its sidebar settings, where the key comes from, and the ask-on-click panel."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from scoring.charts import threshold_tradeoff_figure
from scoring.errors import ScoringError
from scoring.limits import user_message
from scoring.toxicity import KNOWN_GAPS, MEASURED_RECALL
from scoring.toxicity.classifier import MeasuredRecall
from scoring.toxicity.defaults import describe_defaults
from scoring.toxicity.e5 import default_threshold, fresh_curve, fresh_point, pass_notes, unmeasured_languages
from scoring.toxicity.e5_lite import measured_note as e5_lite_measured_note
from scoring.toxicity.judge.access import ALLOW_VISITOR_URL, JudgeAccess, server_judge
from scoring.toxicity.judge.access import judge_access as decide
from scoring.toxicity.judge.client import DEFAULT_BASE_URL, excerpt
from ui.cached import toxicity_judged
from ui.markdown import escape_markdown


@dataclass(frozen=True)
class JudgeSettings:
    """The toxicity sidebar's values and the judge access they give (the key is never part of the repr)."""

    threshold: float | None  # None: the e5 engine's measured defaults (a threshold per language)
    base_url: str  # as the visitor typed it ("" for the server's)
    model: str
    access: JudgeAccess = field(repr=False)

    @property
    def api_key(self) -> str:
        return self.access.api_key


_SECRET_NAMES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", ALLOW_VISITOR_URL)


def _secrets() -> dict[str, object]:
    """The judge's settings in Streamlit secrets ({} without a secrets.toml, or a malformed one)."""
    try:
        return {name: st.secrets[name] for name in _SECRET_NAMES if name in st.secrets}
    except Exception:  # no or malformed secrets.toml: the environment only
        return {}


def judge_access(base_url: str) -> JudgeAccess:
    """Where a judge request of this session goes and with whose key (``scoring``'s decision, for this visitor)."""
    try:
        server = server_judge(os.environ, _secrets())
    except ScoringError as e:  # the operator's setting is malformed: nothing is sent anywhere
        return JudgeAccess(DEFAULT_BASE_URL, "", "", False, str(e))
    access = decide(server, url=base_url)
    if access.ask_key:  # a typed key counts only where the page asks for one (never a hidden, stale one)
        access = decide(server, url=base_url, key=str(st.session_state.get("toxicity.api_key", "")))
    return access


def judge_settings(engine: str | None = None) -> JudgeSettings:
    """The toxicity settings in the sidebar, shared by the Toxicity and Batch pages (same session keys).

    The threshold slider is the ``engine``'s (default: the Toxicity page's engine): e5's in steps of 0.01, the
    classifier's otherwise. The server's key (environment or Streamlit secrets) is never shown and only ever
    goes to the server's judge URL; a visitor who types another URL is asked for their own key (see
    scoring.toxicity.judge.access).
    """
    engine = engine or str(st.session_state.get("toxicity.engine"))
    with st.sidebar:
        st.subheader("Toxicity settings")
        threshold: float | None
        if engine == "e5" and st.toggle(
            "Measured defaults", key="toxicity.e5_defaults", persist_state="session",
            help="A threshold per language with the rubric's patterns, chosen from measurement (docs/toxicity.md). "
            "Turn off to hold every sentence to one threshold on the learned head.",
        ):  # fmt: skip
            threshold = None
            st.caption(describe_defaults() + ".")  # our text, not the user's
        elif engine == "e5":
            threshold = st.slider(
                "e5 threshold", 0.05, 0.99, step=0.01, key="toxicity.e5_threshold", persist_state="session",
                help="A sentence is toxic when the learned head's probability is at least this. The Toxicity page "
                "shows precision and recall on fresh text at each threshold.",
            )  # fmt: skip
        elif engine == "e5-lite":
            threshold = st.slider(
                "e5-lite threshold", 0.05, 0.99, step=0.01, key="toxicity.e5_lite_threshold", persist_state="session",
                help="A sentence is toxic when the e5-lite head's probability is at least this (default: its head's "
                "0.29, the e5 head's rule: at most 1% of real texts people rated clearly positive flagged).",
            )  # fmt: skip
            st.caption(e5_lite_measured_note())  # our text: its measured recall, beside the choice
        else:
            threshold = st.slider(
                "Classifier threshold", 0.05, 0.95, step=0.05, key="toxicity.threshold", persist_state="session"
            )
        base_url = st.text_input(
            "Judge base URL", key="toxicity.base_url", persist_state="session", placeholder=judge_access("").base_url
        )
        model = st.text_input("Judge model", key="toxicity.model", persist_state="session")
        access = judge_access(base_url)
        if access.ask_key:
            label = "Your API key for this URL" if access.note else "Judge API key"
            st.text_input(label, type="password", key="toxicity.api_key", persist_state="session")
            access = judge_access(base_url)
        if access.key_owner == "server":
            source = judge_access("")
            st.caption(f"Judge API key: the server's, sent only to {escape_markdown(source.base_url)}.")
        if access.note:
            st.caption(escape_markdown(access.note))
    return JudgeSettings(None if threshold is None else float(threshold), base_url, model, access)


def judge_panel(input_text: str, output: str, settings: JudgeSettings) -> dict[str, Any] | None:
    """Ask the judge on a click (it costs money and time); return the last answer for these inputs."""
    access = settings.access
    if access.problem:
        st.info(escape_markdown(access.problem))
        return None
    signature = (input_text, output, settings.model, access.base_url, access.key_owner)
    if st.button("Ask the judge", key="toxicity.ask", type="primary", icon=":material/gavel:"):
        with st.spinner("Asking the judge…"):
            try:
                judged = toxicity_judged(input_text, output, settings.model, access.base_url, access.api_key)
                st.session_state["toxicity.judged"] = (signature, judged)
            except Exception as e:  # network, refused key, unparseable reply: the scorer's message, no traceback
                st.error(escape_markdown(excerpt(user_message(e), 400)))
                return None
    judged = st.session_state.get("toxicity.judged")
    return judged[1] if judged and judged[0] == signature else None


def toxicity_known_gaps(engine: str) -> list[str]:
    """What the toxicity engine is known to miss, as the scorer's module states it."""
    return [str(gap) for gap in KNOWN_GAPS.get(engine, ())]


def toxicity_recall(engine: str) -> MeasuredRecall | None:
    """The engine's measured recall, as the scorer documents it (None when not measured, e.g. the judge)."""
    return MEASURED_RECALL.get(engine)


def toxicity_passes(result: dict[str, Any], engine: str, threshold: float | None, where: Any) -> pd.DataFrame:
    """The verdicts as a table; with e5, beside every pass the threshold it was held to and the measured recall at
    it (under the score too, when nothing was flagged), and a warning when a language was not measured."""
    verdicts = pd.DataFrame(result["analyzeStepResult"].get("verdicts", []))
    if engine == "e5" and len(verdicts):
        records = verdicts.to_dict("records")
        verdicts["measured recall"] = pass_notes(records, threshold, short=True)
        if "threshold" in verdicts:  # None: a rubric pattern decided alone (the head's threshold played no part)
            verdicts["threshold"] = [
                "rubric pattern" if t is None or t != t else f"{t:g}" for t in verdicts["threshold"].tolist()
            ]
        if result["score"] == 0:
            where.caption(next(n for n in pass_notes(records, threshold) if n))  # our text, not the user's
        if unmeasured := unmeasured_languages(verdicts["opinion"].tolist()):
            st.warning(
                f"Language(s) not measured: {', '.join(unmeasured)}. The e5 engine and its defaults were measured on "
                "English, Chinese, Korean, Japanese, German, Spanish and French only: a pass here says less.",
                icon=":material/translate:",
            )
    elif result["score"] == 0 and (recall := toxicity_recall(engine)):  # a pass from a low-recall screen means little
        where.caption(recall.sentence())
    return verdicts


def toxicity_threshold_curve(threshold: float) -> None:
    """The e5 head's precision and recall by threshold on its fresh set, with the chosen threshold marked."""
    curve = fresh_curve()
    with st.expander("Precision and recall by threshold (choose yours in the sidebar)", icon=":material/tune:"):
        st.plotly_chart(threshold_tradeoff_figure(curve, threshold=threshold, default=default_threshold()))
        at = fresh_point(threshold)
        st.caption(
            f"On {curve.attrs['n']} fresh sentences in 7 languages, written after the head was trained: at "
            f"{at['threshold']:g}, {at['precision']:.0%} of flags are right and {at['recall']:.0%} of toxic "
            f"sentences are caught. With no threshold chosen the engine uses its measured defaults (sidebar), which "
            "keep false alarms on real texts people rated clearly positive under 1% (docs/toxicity.md)."
        )
