"""Cached scoring for the pages: pure text in, plain data out (API keys never become cache keys)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from scoring import create_content_similarity_scorer, create_tone_scorer, create_toxicity_scorer
from scoring.charts import sentence_sentiment_figure
from scoring.registry import TONE, TOXICITY
from scoring.similarity.scorer import similarities
from scoring.tone.explain import OTHER_ENGINE, sentence_frame, word_drivers
from ui.markdown import highlight_markdown
from ui.state import Y_LABELS, toxicity_default_engine


@st.cache_data(max_entries=2_000, show_spinner=False)
def tone_result(text: str, reference: str | None, engine: str, splitter: str) -> dict[str, Any]:
    """Score ``text`` with the tone scorer (comparison mode when ``reference`` is given)."""
    return create_tone_scorer(reference or None, engine=engine, splitter=splitter).run(output=text).to_dict()


@st.cache_data(max_entries=64, show_spinner=False)
def tone_frame(text: str, reference: str | None, engine: str, splitter: str) -> pd.DataFrame:
    """The per-sentence frame of a tone result (labels, tone shifts, the engines' cross-check)."""
    return sentence_frame(tone_result(text, reference, engine, splitter)["preprocessStepResult"]["sentences"], engine)


HIGHLIGHT_MAX_CHARS = 20_000
"""The highlighted text shows the sentences that start in the first 20,000 characters: the browser took
18 s to lay out 300,000 characters of markdown (and 25 s coloured), while the chart and the sentence table
cover every sentence."""


@st.cache_data(max_entries=64, show_spinner=False)
def tone_highlight(text: str, reference: str | None, engine: str, splitter: str) -> tuple[str, int, int]:
    """The text as markdown, each sentence in its label's colour with its marks (escaped: see ui.markdown).

    Returns (markdown, sentences shown, sentences in all): a text over :data:`HIGHLIGHT_MAX_CHARS` is shown
    up to the end of the last sentence that starts within it.
    """
    frame = tone_frame(text, reference, engine, splitter)
    if len(text) <= HIGHLIGHT_MAX_CHARS:
        return highlight_markdown(text, frame), len(frame), len(frame)
    shown = frame[frame["start"] < HIGHLIGHT_MAX_CHARS]
    end = int(shown["end"].max()) if len(shown) else HIGHLIGHT_MAX_CHARS
    return highlight_markdown(text[:end], shown), len(shown), len(frame)


@st.cache_resource(max_entries=32, show_spinner=False)
def tone_figure(text: str, reference: str | None, engine: str, splitter: str, title: str) -> go.Figure:
    """The per-sentence chart of a tone result; in comparison mode, what its score is made of.

    Kept as the object itself (``st.plotly_chart`` only reads it): a 300,000-character text's figure of
    4,700 points takes over a second to build, and pickling it for ``cache_data`` as long again.
    """
    pre = tone_result(text, reference, engine, splitter)["preprocessStepResult"]
    return sentence_sentiment_figure(
        tone_frame(text, reference, engine, splitter),
        reference=pre.get("referenceSentiment"),
        response=pre.get("responseSentiment"),
        y_label=Y_LABELS[engine],
        title=title,
        engine_names=(TONE.engine_name(engine), TONE.engine_name(OTHER_ENGINE[engine]))
        if engine in OTHER_ENGINE
        else None,
    )


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


def toxicity_engines() -> list[str]:
    """The toxicity engines this machine can run, the registry's order (e5 only where its wheel loads)."""
    return [e for e in TOXICITY.engines if e != "e5" or toxicity_default_engine() == "e5"]


@st.cache_resource(show_spinner="Loading the toxicity classifier…")
def toxicity_classifier(threshold: float, engine: str = "classifier") -> Any:
    """An offline toxicity scorer ("classifier" or "e5"), loaded once per process, engine and threshold."""
    return create_toxicity_scorer(engine=engine, threshold=threshold)


@st.cache_data(max_entries=2_000, show_spinner=False)
def toxicity_classified(input_text: str, output: str, threshold: float, engine: str = "classifier") -> dict[str, Any]:
    """Score a reply's toxicity with an offline engine ("classifier" or "e5")."""
    result: dict[str, Any] = toxicity_classifier(threshold, engine).run(input=input_text, output=output).to_dict()
    return result


def toxicity_judged(input_text: str, output: str, model: str, base_url: str, api_key: str) -> dict[str, Any]:
    """Score a reply's toxicity with the LLM judge (never cached: the key must not become a cache key).

    ``base_url`` and ``api_key`` come from ``ui.judge_access``: both are passed as they are ("" is no key),
    so the library never falls back to OPENAI_API_KEY for a URL the operator did not set.
    """
    judge = create_toxicity_scorer(engine="judge", model=model, base_url=base_url, api_key=api_key)
    result: dict[str, Any] = judge.run(input=input_text, output=output).to_dict()
    return result


E5_STEP_SENTENCES = 64
"""Sentences e5 embeds between two progress updates when a long text is scored on a page."""


def e5_progress(text: str, splitter: str, *, what: str = "sentences") -> None:
    """Before e5 scores ``text`` on a page: embed its new sentences in steps with a progress bar and a word on how
    to stop (Streamlit's Stop ends the run between two steps); the scorer then finds them in e5's cache.

    Nothing shows when every sentence is known (the text was scored before) or when there are few to embed.
    """
    from scoring.text.splitters import get_sentence_texts
    from scoring.tone.engines import get_engine

    engine = get_engine("e5")
    missing = getattr(engine, "missing", None)
    if missing is None:
        return
    todo = missing(get_sentence_texts(splitter)(text))
    if len(todo) <= E5_STEP_SENTENCES:
        return
    box = st.empty()
    with box.container():
        bar = st.progress(0.0, text=f"e5 is reading {len(todo):,} new {what} of this text…")
        st.caption("A long text takes e5 a while (about 0.03 to 0.1 s per sentence). To stop, press **Stop** at the "
                   "top right of the page; the sentences read so far are kept for next time.")  # fmt: skip
    for start in range(0, len(todo), E5_STEP_SENTENCES):
        engine.polarities(todo[start : start + E5_STEP_SENTENCES])
        done = min(start + E5_STEP_SENTENCES, len(todo))
        bar.progress(done / len(todo), text=f"e5 has read {done:,} of {len(todo):,} new {what}…")
    box.empty()
