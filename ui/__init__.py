"""Shared UI helpers: session state, cached scoring, cards. Pages call these; every number comes from scoring/."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from scoring import create_content_similarity_scorer, create_tone_scorer
from scoring.charts import sentence_sentiment_figure
from scoring.limits import check_text_length
from scoring.similarity.scorer import similarities
from scoring.tone.explain import sentence_frame, tone_band, word_drivers

try:  # the toxicity scorer lands with its own issue; until then its page says so
    from scoring import create_toxicity_scorer
except ImportError:  # pragma: no cover - depends on what is installed
    create_toxicity_scorer = None

ENGINE_LABELS = {"vader": "VADER", "afinn": "AFINN (as Mastra)"}
SPLITTER_LABELS = {"smart": "Smart", "mastra": "Mastra's regex"}
Y_LABELS = {"vader": "VADER compound", "afinn": "AFINN comparative (per token)"}
DRIVER_NOTES = {
    "afinn": "AFINN: each word's AFINN-165 value after negation; a sentence's sentiment is their sum "
    "divided by its number of tokens (npm sentiment's comparative).",
    "vader": "VADER: each word's valence after VADER's rules (boosters, CAPS, negation, 'but'); a sentence's "
    "compound is their sum, plus punctuation emphasis, normalised to [-1, 1].",
}
PAGE_FILES = {name: f"pages/{name}.py" for name in ("home", "tone", "similarity", "toxicity", "batch", "demo")}

DEFAULTS: dict[str, object] = {
    "tone.text": "Thanks for reaching out! I'm glad to help. Your refund was approved today. "
    "Unfortunately the shipping delay is frustrating and we are sorry. Have a wonderful week!",
    "tone.mode": "stability",
    "tone.reference": "We are happy to help and glad you had a great experience!",
    "tone.engine": "vader",
    "tone.splitter": "smart",
    "tone.both_engines": False,
    "similarity.input": "The quick brown fox jumps over the lazy dog.",
    "similarity.output": "A quick brown fox jumped over a lazy dog.",
    "similarity.ignore_case": True,
    "similarity.ignore_whitespace": True,
    "toxicity.input": "How is Sarah as a person?",
    "toxicity.output": "Sarah is a dedicated team member who always delivers quality work.",
    "toxicity.engine": "classifier",
    "toxicity.threshold": 0.5,
    "toxicity.base_url": os.environ.get("OPENAI_BASE_URL", ""),
    "toxicity.model": "gpt-4o-mini",
    "toxicity.api_key": "",
}


def init_state() -> None:
    """Set every page's session-state defaults once per session ("<page>.<name>" keys)."""
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)


def attempt(fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn``; on bad input show ``st.error(str(e))`` (no traceback) and return None."""
    try:
        return fn(*args)
    except (ValueError, TypeError, OSError) as e:
        st.error(str(e))
        return None


# --- cached scoring (pure text -> plain data) -------------------------------------------------


@st.cache_data(max_entries=2_000, show_spinner=False)
def tone_result(text: str, reference: str | None, engine: str, splitter: str) -> dict[str, Any]:
    """Score ``text`` with the tone scorer (comparison mode when ``reference`` is given)."""
    return create_tone_scorer(reference or None, engine=engine, splitter=splitter).run(output=text).to_dict()


@st.cache_data(max_entries=2_000, show_spinner=False)
def drivers(sentences: tuple[str, ...], engine: str) -> pd.DataFrame:
    """The words that drove each sentence's polarity."""
    return word_drivers(sentences, engine)


@st.cache_data(max_entries=2_000, show_spinner=False)
def similarity_result(a: str, b: str, ignore_case: bool, ignore_whitespace: bool) -> dict[str, Any]:
    """Score a pair with Mastra's Dice similarity, and every algorithm on the processed texts."""
    scorer = create_content_similarity_scorer(ignore_case=ignore_case, ignore_whitespace=ignore_whitespace)
    out = scorer.run(input=a, output=b).to_dict()
    pre = out["preprocessStepResult"]
    out["allAlgorithms"] = similarities(pre["processedInput"], pre["processedOutput"])  # type: ignore[index]
    return out


@st.cache_resource(show_spinner="Loading the toxicity classifier…")
def toxicity_classifier(threshold: float) -> Any:
    """The offline toxicity classifier, loaded once per process and threshold."""
    return create_toxicity_scorer(engine="classifier", threshold=threshold)  # type: ignore[misc]


@st.cache_data(max_entries=2_000, show_spinner=False)
def toxicity_classified(input_text: str, output: str, threshold: float) -> dict[str, Any]:
    """Score a reply's toxicity with the offline classifier."""
    result: dict[str, Any] = toxicity_classifier(threshold).run(input=input_text, output=output).to_dict()
    return result


def toxicity_judged(input_text: str, output: str, model: str, base_url: str, api_key: str) -> dict[str, Any]:
    """Score a reply's toxicity with the LLM judge (never cached: the key must not become a cache key)."""
    judge = create_toxicity_scorer(  # type: ignore[misc]
        engine="judge", model=model, base_url=base_url or None, api_key=api_key or None
    )
    result: dict[str, Any] = judge.run(input=input_text, output=output).to_dict()
    return result


def judge_panel(input_text: str, output: str, model: str, base_url: str, api_key: str) -> dict[str, Any] | None:
    """Ask the judge on a click (it costs money and time); return the last answer for these inputs."""
    if not api_key:
        st.info("The LLM judge needs an API key: set OPENAI_API_KEY, add it to secrets, or type it in the sidebar.")
        return None
    signature = (input_text, output, model, base_url)
    if st.button("Ask the judge", key="toxicity.ask", type="primary", icon=":material/gavel:"):
        with st.spinner("Asking the judge…"):
            try:
                st.session_state["toxicity.judged"] = (signature, toxicity_judged(*signature, api_key))
            except Exception as e:  # network, refused key, unparseable reply: the scorer's message, no traceback
                st.error(str(e))
                return None
    judged = st.session_state.get("toxicity.judged")
    return judged[1] if judged and judged[0] == signature else None


def toxicity_known_gaps(engine: str) -> list[str]:
    """What the toxicity engine is known to miss, as the scorer's module states it."""
    try:
        from scoring.toxicity.scorer import KNOWN_GAPS
    except ImportError:  # pragma: no cover - the scorer is not installed
        return []
    return [str(gap) for gap in KNOWN_GAPS.get(engine, ())]


# --- inputs -----------------------------------------------------------------------------------


def decode_upload(data: bytes, name: str) -> str:
    """Return an uploaded text file's text; raise ValueError naming the file when it is not usable text."""
    if b"\x00" in data:
        raise ValueError(f"{name} looks binary (it contains NUL bytes); upload a UTF-8 .txt or .md file.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ValueError(f"{name} is not UTF-8 text (byte {e.start}); re-save it as UTF-8 and upload again.") from e
    return check_text_length(text, name)  # one response; files of many responses go to the Batch page


def _load_upload(page: str) -> None:
    upload = st.session_state.get(f"{page}.upload")
    if upload is None:
        return
    try:
        st.session_state[f"{page}.text"] = decode_upload(upload.getvalue(), upload.name)
    except ValueError as e:
        st.session_state[f"{page}.upload_error"] = str(e)


def text_source(page: str, label: str, *, height: int = 160) -> str:
    """A text area (``<page>.text``) that an uploaded .txt/.md file fills in; returns its text."""
    text: str = st.text_area(label, key=f"{page}.text", height=height, persist_state="session")
    with st.expander("Upload a .txt or .md file instead", icon=":material/upload_file:"):
        st.file_uploader("Text file", type=["txt", "md"], key=f"{page}.upload", on_change=_load_upload, args=(page,))
    if error := st.session_state.pop(f"{page}.upload_error", None):
        st.error(error)
    return text


@dataclass(frozen=True)
class JudgeSettings:
    """The toxicity sidebar's values; the key is never part of the repr."""

    threshold: float
    base_url: str
    model: str
    api_key: str = field(repr=False)


def judge_settings() -> JudgeSettings:
    """The toxicity settings in the sidebar, shared by the Toxicity and Batch pages (same session keys).

    The API key is taken from the environment or Streamlit secrets when set there (never shown), else
    from a password field.
    """
    with st.sidebar:
        st.subheader("Toxicity settings")
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


# --- outputs ----------------------------------------------------------------------------------


def show_warnings(result: Mapping[str, Any]) -> None:
    """Show a result's warnings (e.g. a language the engine does not cover)."""
    for warning in result.get("warnings", []):
        st.warning(warning, icon=":material/warning:")


def tone_score_card(result: Mapping[str, Any], *, label: str = "Tone score") -> None:
    """The score, big, with the docs' band under it."""
    band = tone_band(float(result["score"]))
    st.metric(label, f"{result['score']:.3f}", help="1 = perfectly consistent tone; 0 = completely different tones")
    st.badge(band.label, color=band.color)  # type: ignore[arg-type]
    st.caption(band.description.capitalize())


def tone_chart(result: Mapping[str, Any], engine: str, *, key: str, title: str = "Sentiment per sentence") -> None:
    """The per-sentence sentiment chart of a tone result."""
    pre = result["preprocessStepResult"]
    frame = sentence_frame(pre["sentences"], engine)
    figure = sentence_sentiment_figure(
        frame, reference=pre.get("referenceSentiment"), y_label=Y_LABELS[engine], title=title
    )
    st.plotly_chart(figure, key=key)


METRIC_LABELS = {
    "responseSentiment": "Response sentiment",
    "referenceSentiment": "Reference sentiment",
    "difference": "Difference",
    "avgSentiment": "Average sentiment",
    "sentimentVariance": "Sentiment variance",
}


def metric_row(metrics: Mapping[str, float | int | str]) -> None:
    """One st.metric per item, side by side; result keys get a readable label and their key as help."""
    for col, (name, value) in zip(st.columns(len(metrics)), metrics.items(), strict=True):
        shown = f"{value:.3f}" if isinstance(value, float) else value
        col.metric(
            METRIC_LABELS.get(name, name), shown, help=f"`{name}` in the JSON" if name in METRIC_LABELS else None
        )


def json_download(result: Mapping[str, Any], file_name: str, *, key: str) -> None:
    """The result in Mastra's shape, shown and downloadable."""
    payload = json.dumps(result, indent=2, ensure_ascii=False)
    st.download_button(
        "Download JSON", payload, file_name=file_name, mime="application/json", key=key, icon=":material/download:"
    )
    st.json(result, expanded=1)


def load_example(state: Mapping[str, object], page: str) -> None:
    """Put a demo example's values into session state and open its page."""
    for key, value in state.items():
        st.session_state[key] = value
    st.switch_page(PAGE_FILES[page])
