"""Cached scoring for the pages: pure text in, plain data out (API keys never become cache keys).

Results are kept in one store bounded by bytes (``TONE_EXPLORER_PAGE_CACHE_MB``, :mod:`ui.page_cache`), not
by entries: a million-character text's result is not kept as cheaply as a sentence's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from scoring import create_content_similarity_scorer, create_tone_scorer, create_toxicity_scorer
from scoring.charts import sentence_courtesy_figure, sentence_sentiment_figure
from scoring.limits import check_e5_length, check_text_length
from scoring.registry import COURTESY, TONE, TOXICITY
from scoring.similarity.scorer import similarities
from scoring.tone.explain import OTHER_ENGINE, sentence_frame, word_drivers
from ui.markdown import highlight_markdown
from ui.page_cache import byte_cache
from ui.state import Y_LABELS, toxicity_default_engine

_SLOW_WORK = threading.BoundedSemaphore(1)
"""One learned-engine (e5) request at a time in the whole server: others wait their turn, and the lexicon
engines, the classifier and the similarity scorer keep the other CPU core."""


@contextmanager
def _slow_engine(engine: str, scorer: Any, **texts: str | None) -> Iterator[None]:
    """For a slow (e5) engine: check each text against ``TONE_EXPLORER_MAX_E5_CHARS``, then wait for the turn."""
    if engine not in scorer.slow_engines:
        yield
        return
    for name, text in texts.items():
        check_text_length(text or "", name)  # over the general limit, that is the message
        check_e5_length(text or "", name)
    with _SLOW_WORK:
        yield


@byte_cache()
def tone_result(text: str, reference: str | None, engine: str, splitter: str) -> dict[str, Any]:
    """Score ``text`` with the tone scorer (comparison mode when ``reference`` is given)."""
    with _slow_engine(engine, TONE, text=text, reference=reference):
        return create_tone_scorer(reference or None, engine=engine, splitter=splitter).run(output=text).to_dict()


@byte_cache()
def tone_frame(text: str, reference: str | None, engine: str, splitter: str) -> pd.DataFrame:
    """The per-sentence frame of a tone result (labels, tone shifts, the engines' cross-check)."""
    return sentence_frame(tone_result(text, reference, engine, splitter)["preprocessStepResult"]["sentences"], engine)


HIGHLIGHT_MAX_CHARS = 20_000
"""The highlighted text shows the sentences that start in the first 20,000 characters: the browser took
18 s to lay out 300,000 characters of markdown (and 25 s coloured), while the chart and the sentence table
cover every sentence."""


@byte_cache()
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


def _figure_bytes(text: str, reference: str | None, *_: object) -> int:
    """What a kept chart holds: 5.0 bytes a character of text measured (a 103,695-character text's second
    figure: 517,652 bytes, tracemalloc), counted as 8, plus plotly's fixed part."""
    return 8 * (len(text) + len(reference or "")) + 64 * 1024


@byte_cache(weight=_figure_bytes)
def tone_figure(text: str, reference: str | None, engine: str, splitter: str, title: str) -> go.Figure:
    """The per-sentence chart of a tone result; in comparison mode, what its score is made of.

    Kept as the object itself (``st.plotly_chart`` only reads it): a 300,000-character text's figure of
    4,700 points takes over a second to build, and pickling it on every hit would cost that again.
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


@byte_cache()
def drivers(sentences: tuple[str, ...], engine: str) -> pd.DataFrame:
    """The words that drove each sentence's polarity."""
    return word_drivers(sentences, engine)


@byte_cache()
def courtesy_result(text: str, splitter: str) -> dict[str, Any]:
    """Score ``text`` with the courtesy scorer (per sentence and whole; raises EncoderUnavailable without e5).

    e5 embeds the text: it is held to the e5 length limit and waits for the server's one e5 turn, as tone's e5.
    """
    from scoring.registry import get_scorer

    with _slow_engine(COURTESY.default_engine or "e5", COURTESY, text=text):
        return get_scorer("courtesy", splitter=splitter).run(output=text).to_dict()


def courtesy_frame(text: str, reference: str | None, engine: str, splitter: str) -> pd.DataFrame:
    """The tone page's sentences (number, text, sentiment) with each one's courtesy (NaN: no words, not scored)."""
    frame = tone_frame(text, reference, engine, splitter)
    scored = courtesy_result(text, splitter)["preprocessStepResult"]["sentences"]
    by_start = {s["start"]: s["courtesy"] for s in scored}
    out = frame[["sentence", "text", "sentiment", "start"]].copy()
    out["courtesy"] = [by_start.get(int(start), float("nan")) for start in out["start"]]
    return out.drop(columns="start")


@byte_cache(weight=_figure_bytes)
def courtesy_figure(text: str, reference: str | None, engine: str, splitter: str) -> go.Figure:
    """Courtesy beside sentiment, per sentence (see :func:`scoring.charts.sentence_courtesy_figure`)."""
    threshold = float(courtesy_result(text, splitter)["analyzeStepResult"]["threshold"])
    return sentence_courtesy_figure(courtesy_frame(text, reference, engine, splitter), threshold=threshold)


@byte_cache()
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
def toxicity_classifier(threshold: float | None, engine: str = "classifier") -> Any:
    """An offline toxicity scorer ("classifier" or "e5"), loaded once per process, engine and threshold."""
    return create_toxicity_scorer(engine=engine, threshold=threshold)


@byte_cache()
def toxicity_classified(
    input_text: str, output: str, threshold: float | None, engine: str = "classifier"
) -> dict[str, Any]:
    """Score a reply's toxicity with an offline engine ("classifier" or "e5")."""
    with _slow_engine(engine, TOXICITY, output=output):  # the input is context, not embedded
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
    _read_in_steps(missing(get_sentence_texts(splitter)(text)), engine.polarities, what)


def toxicity_e5_progress(text: str) -> None:
    """:func:`e5_progress` for the toxicity e5 engine: embed the reply's new sentences (its opinions, as the scorer
    splits them) in steps, so that the scorer finds them in the encoder's cache."""
    from scoring.text.embeddings import embed, missing
    from scoring.text.splitters import split_smart

    _read_in_steps(missing([s.text for s in split_smart(text)]), embed, "sentences")


def _read_in_steps(todo: list[str], read: Callable[[list[str]], object], what: str) -> None:
    if len(todo) <= E5_STEP_SENTENCES:
        return
    box = st.empty()
    with box.container():
        bar = st.progress(0.0, text=f"e5 is reading {len(todo):,} new {what} of this text…")
        st.caption("A long text takes e5 a while (about 0.03 to 0.1 s per sentence). To stop, press **Stop** at the "
                   "top right of the page; the sentences read so far are kept for next time.")  # fmt: skip
    for start in range(0, len(todo), E5_STEP_SENTENCES):
        read(todo[start : start + E5_STEP_SENTENCES])
        done = min(start + E5_STEP_SENTENCES, len(todo))
        bar.progress(done / len(todo), text=f"e5 has read {done:,} of {len(todo):,} new {what}…")
    box.empty()
