"""Widgets the pages share: error handling, text inputs and uploads, score cards, charts, JSON downloads."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from scoring.charts import sentence_sentiment_figure
from scoring.io.encodings import decode_text
from scoring.limits import user_message
from scoring.registry import TONE
from scoring.tone.explain import OTHER_ENGINE, sentence_frame, tone_band
from scoring.tone.scorer import stability_note
from ui.state import Y_LABELS


def attempt(fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn``; on bad input show the error as a page user should read it (no traceback) and return None."""
    try:
        return fn(*args)
    except (ValueError, TypeError, OSError) as e:
        st.error(user_message(e))
        return None


def _load_upload(page: str) -> None:
    st.session_state.pop(f"{page}.upload_error", None)
    upload = st.session_state.get(f"{page}.upload")
    if upload is None:
        return
    try:
        st.session_state[f"{page}.text"] = decode_text(upload.getvalue(), upload.name)
    except ValueError as e:
        st.session_state[f"{page}.upload_error"] = user_message(e)


def _edited(page: str) -> None:
    st.session_state.pop(f"{page}.upload_error", None)  # the user moved on from the refused file


def text_source(page: str, label: str, *, height: int = 160) -> str | None:
    """A text area (``<page>.text``) that an uploaded .txt/.md file fills in; returns its text.

    Returns None while the last upload was refused (too long, binary, not UTF-8): the error stays on
    screen, and nothing is scored, until the user edits the text or uploads another file, so the previous
    text's score and chart never sit under the error as if they were the file's.
    """
    text: str = st.text_area(
        label, key=f"{page}.text", height=height, persist_state="session", on_change=_edited, args=(page,)
    )
    with st.expander("Upload a .txt or .md file instead", icon=":material/upload_file:"):
        st.file_uploader("Text file", type=["txt", "md"], key=f"{page}.upload", on_change=_load_upload, args=(page,))
    if error := st.session_state.get(f"{page}.upload_error"):
        st.error(error, icon=":material/block:")
        st.caption("Nothing is scored until you edit the text above or upload another file.")
        return None
    return text


def show_warnings(result: Mapping[str, Any]) -> None:
    """Show a result's warnings (e.g. a language the engine does not cover)."""
    for warning in result.get("warnings", []):
        st.warning(warning, icon=":material/warning:")


def tone_score_card(result: Mapping[str, Any], *, label: str = "Tone score") -> None:
    """The score, big, with the docs' band under it; a stability score of too little text says so instead."""
    pre = result["preprocessStepResult"]
    if "sentimentVariance" in pre and stability_note([str(s["text"]) for s in pre["sentences"]]):
        st.metric(
            label,
            "—",
            help=f"The score in the JSON is {result['score']:.3f}, Mastra's value; it measures nothing here.",
        )
        st.badge("Not enough text", color="gray", icon=":material/short_text:")
        st.caption("Stability compares sentences with each other: it needs two or more sentences with words.")
        return
    band = tone_band(float(result["score"]))
    st.metric(label, f"{result['score']:.3f}", help="1 = perfectly consistent tone; 0 = completely different tones")
    st.badge(band.label, color=band.color)  # type: ignore[arg-type]
    st.caption(band.description.capitalize())


def tone_chart(result: Mapping[str, Any], engine: str, *, key: str, title: str = "Sentiment per sentence") -> None:
    """The per-sentence sentiment chart of a tone result; in comparison mode, what its score is made of."""
    pre = result["preprocessStepResult"]
    frame = sentence_frame(pre["sentences"], engine)
    figure = sentence_sentiment_figure(
        frame,
        reference=pre.get("referenceSentiment"),
        response=pre.get("responseSentiment"),
        y_label=Y_LABELS[engine],
        title=title,
        engine_names=(TONE.engine_name(engine), TONE.engine_name(OTHER_ENGINE[engine])),
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
