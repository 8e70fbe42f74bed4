"""Widgets the pages share: error handling, text inputs and uploads, score cards, charts, JSON downloads."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from scoring.charts import sentence_sentiment_figure
from scoring.limits import check_text_length
from scoring.tone.explain import sentence_frame, tone_band
from ui.markdown import escape_markdown
from ui.state import Y_LABELS


def attempt(fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn``; on bad input show its message, escaped (it may name a file or a column), and return None."""
    try:
        return fn(*args)
    except (ValueError, TypeError, OSError) as e:
        st.error(escape_markdown(str(e)))
        return None


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
        st.error(escape_markdown(error))
    return text


def show_warnings(result: Mapping[str, Any]) -> None:
    """Show a result's warnings (e.g. a language the engine does not cover)."""
    for warning in result.get("warnings", []):
        st.warning(escape_markdown(str(warning)), icon=":material/warning:")


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
