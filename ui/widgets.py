"""Widgets the pages share: error handling, text inputs and uploads, score cards, charts, JSON downloads."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from scoring.errors import ScoringError
from scoring.io.encodings import decode_text
from scoring.limits import user_message
from scoring.registry import METRIC_LABELS as REGISTRY_METRIC_LABELS
from scoring.registry import find_measure, find_scorer
from scoring.runs.diff import ScorerVerdict
from scoring.similarity.explain import diff_head, word_diff
from scoring.tone.explain import engine_comparison_frame, honest_band
from scoring.tone.scorer import stability_note, unmeasured_reason
from ui.cached import tone_figure
from ui.markdown import diff_markdown, escape_markdown


def attempt(fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn``; when the package refuses something (:class:`scoring.errors.ScoringError`: bad input, a limit, the
    e5 engine on a machine without its wheel, the judge, the run store) show the error as a page user should read
    it, escaped (it may name a file or a column), with no traceback, and return None. Anything else is a bug and
    surfaces as one."""
    try:
        return fn(*args)
    except ScoringError as e:
        st.error(escape_markdown(user_message(e)))
        return None


def _load_upload(page: str) -> None:
    st.session_state.pop(f"{page}.upload_error", None)
    upload = st.session_state.get(f"{page}.upload")
    if upload is None:
        return
    try:
        st.session_state[f"{page}.text"] = decode_text(upload.getvalue(), upload.name)
    except ScoringError as e:
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
        st.error(escape_markdown(error), icon=":material/block:")
        st.caption("Nothing is scored until you edit the text above or upload another file.")
        return None
    return text


def show_warnings(result: Mapping[str, Any]) -> None:
    """Show a result's warnings (e.g. a language the engine does not cover)."""
    for warning in result.get("warnings", []):
        st.warning(escape_markdown(str(warning)), icon=":material/warning:")


SCORE_VALUE_MARKDOWN = "###### {}"
"""The markdown of a score card's number; ``{}`` is the number. A level-6 heading, which .streamlit/config.toml
sizes and weighs as st.metric's value (``theme.headingFontSizes``, ``theme.headingFontWeights``: 2.25rem, 400;
no other markdown in the app uses h6). Plain markdown, not HTML: markdown with HTML waits for Streamlit's
``rehype-raw`` chunk (188 kB), which the browser fetches only once the element is on the page, so a new
viewer's score came 0.3-0.9 s after the elements around it (docs/benchmarks.md, issue 14)."""
SHOWN_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?|—")
"""What a score card's number may be: a formatted number, or "—" (nothing measured). Nothing else reaches it."""
SCORE_LABEL_MARKDOWN = ":small[{}]"
"""The markdown of a score card's label; ``{}`` is the escaped label."""
SCORE_LABEL_PATTERN = re.compile(re.escape(SCORE_LABEL_MARKDOWN).replace(re.escape("{}"), "(.*)"))
"""A score card's label element as it is sent to the browser, the escaped label captured."""
SCORE_VALUE_PATTERN = re.compile(re.escape(SCORE_VALUE_MARKDOWN).replace(re.escape("{}"), f"({SHOWN_NUMBER.pattern})"))
"""A score card's number element as it is sent to the browser, the number captured (tests and benchmarks read it)."""


def score_card_selector(key: str) -> str:
    """The CSS selector of the number on the score card with the key ``key`` (e.g. "tone.score")."""
    return f".st-key-{key.replace('.', '-')} h6"


def score_card(label: str, value: str, help: str, *, key: str) -> None:  # noqa: A002 (Streamlit's name)
    """A headline score as st.metric draws it (a small label with its help icon, a big number), from st.markdown.

    st.metric's frontend code is a chunk the browser fetches only after the page's first message, and React then
    holds the element back up to 0.5 s more; st.markdown's code is in the bundle every page preloads, and plain
    markdown (no HTML, no emoji shortcode, no LaTeX) needs none of its lazily loaded plugins, so a new viewer's
    Tone page paints its score sooner (docs/benchmarks.md, issue 14). ``label`` is shown escaped. ``value`` is
    the markdown of a heading, so it must be a number this app formatted (:data:`SHOWN_NUMBER`). The card is a
    container with the key ``key`` (class ``st-key-<key, dots as hyphens>``); its number is its ``h6``
    (:func:`score_card_selector`).

    Raises:
        ValueError: ``value`` is not a formatted number or "—".
    """
    if not SHOWN_NUMBER.fullmatch(value):
        raise ValueError(f"value must be a formatted number or '—' (it is drawn as a heading); got {value!r}.")
    with st.container(key=key, gap=None):
        st.markdown(SCORE_LABEL_MARKDOWN.format(escape_markdown(label)), help=help)
        st.markdown(SCORE_VALUE_MARKDOWN.format(value), anchors=False)


def tone_score_card(
    result: Mapping[str, Any], *, label: str = "Tone score", key: str = "tone.score", frame: pd.DataFrame | None = None
) -> None:
    """The score, big, with the docs' band under it; a stability score of too little text says so instead.

    With the sentences' ``frame`` (stability mode) a text whose tone turns is never called consistent: the
    band says where it turns (:func:`scoring.tone.explain.honest_band`).
    """
    pre = result["preprocessStepResult"]
    reason = unmeasured_reason([str(w) for w in result.get("warnings", [])])
    if reason is not None or (
        "sentimentVariance" in pre and stability_note([str(s["text"]) for s in pre["sentences"]])
    ):
        score_card(
            label,
            "—",
            f"The score in the JSON is {result['score']:.3f}, Mastra's value; it measures nothing here.",
            key=key,
        )
        if reason is not None and "lexicon is English" in reason:
            st.badge("Not measured", color="gray", icon=":material/translate:")
            st.caption("This engine's word list is English: it found nothing to read in this text. The e5 engine "
                       "reads other languages.")  # fmt: skip
            return
        st.badge("Not enough text", color="gray", icon=":material/short_text:")
        st.caption("Stability compares sentences with each other: it needs two or more sentences with words.")
        return
    band = honest_band(float(result["score"]), frame if "sentimentVariance" in pre else None)
    score_card(
        label, f"{result['score']:.3f}", "1 = perfectly consistent tone; 0 = completely different tones", key=key
    )
    st.badge(band.label, color=band.color)  # type: ignore[arg-type]
    st.caption(band.description.capitalize())


def tone_chart(
    text: str, reference: str | None, engine: str, splitter: str, *, key: str, title: str = "Sentiment per sentence"
) -> None:
    """The per-sentence sentiment chart of a tone result; in comparison mode, what its score is made of."""
    st.plotly_chart(tone_figure(text, reference, engine, splitter, title), key=key)


#: The tone metrics' labels on the score cards, from the registry's one table of display names.
METRIC_LABELS = {
    key: label[0].upper() + label[1:]
    for key, label in REGISTRY_METRIC_LABELS.items()
    if key in ("responseSentiment", "referenceSentiment", "difference", "avgSentiment", "sentimentVariance")
}


def engine_comparison(text: str, reference: str | None, splitter: str) -> None:
    """Every engine's score card and chart side by side, then each sentence's sentiment under each engine."""
    from scoring.registry import TONE
    from ui.cached import tone_frame, tone_result

    st.subheader("Compare engines on the same text")
    results = {}
    # Cards (with warnings: a lexicon's "Perfect" on Korean text must say it read nothing) in one row, charts in
    # the next, so the charts line up however tall a card's warning is.
    cards, charts = st.columns(len(TONE.engines)), st.columns(len(TONE.engines))
    for card, chart, name in zip(cards, charts, TONE.engines, strict=True):
        with card:
            result = attempt(tone_result, text, reference, name, splitter)
            if result is not None:
                results[name] = result
                frame = tone_frame(text, reference, name, splitter)
                tone_score_card(result, label=TONE.engines[name], key=f"tone.score.{name}", frame=frame)
                show_warnings(result)
        if result is not None:
            with chart:
                tone_chart(text, reference, name, splitter, key=f"tone.chart.{name}", title=TONE.engines[name])
    st.dataframe(engine_comparison_frame(results), hide_index=True, key="tone.compare_table")
    st.caption("Each sentence's sentiment under each engine. VADER, e5 and e5-lite are on -1..1; AFINN is per token.")


def metric_row(metrics: Mapping[str, float | int | str]) -> None:
    """One st.metric per item, side by side; result keys get a readable label and their key as help."""
    for col, (name, value) in zip(st.columns(len(metrics)), metrics.items(), strict=True):
        shown = f"{value:.3f}" if isinstance(value, float) else value
        col.metric(
            METRIC_LABELS.get(name, name), shown, help=f"`{name}` in the JSON" if name in METRIC_LABELS else None
        )


JSON_SHOWN_MAX_CHARS = 200_000
"""A result's JSON longer than this is offered for download but not drawn as a tree (a 300,000-character
reply's result, 4,700 sentences, is about a megabyte: the browser took tens of seconds to lay it out)."""


def json_download(result: Mapping[str, Any], file_name: str, *, key: str) -> None:
    """The result in Mastra's shape, downloadable, and shown unless it is very long."""
    payload = json.dumps(result, indent=2, ensure_ascii=False)
    st.download_button(
        "Download JSON", payload, file_name=file_name, mime="application/json", key=key, icon=":material/download:"
    )
    if len(payload) <= JSON_SHOWN_MAX_CHARS:
        st.json(result, expanded=1)
    else:
        st.caption(f"The result's JSON is {len(payload):,} characters long: download it to read it.")


SHOWN_TEXT_MAX_CHARS = 20_000
"""Long texts are shown from their start, up to this many characters (the browser lays out about 20,000
characters of markdown a second on a loaded machine; the scores always cover the whole text)."""


def processed_text(label: str, text: str) -> None:
    """A processed text as code (never markdown), its start only when it is long, and a note saying so."""
    st.caption(label)
    st.code(text[:SHOWN_TEXT_MAX_CHARS] or " ", language=None, wrap_lines=True)
    if len(text) > SHOWN_TEXT_MAX_CHARS:
        st.caption(f"The first {SHOWN_TEXT_MAX_CHARS:,} of {len(text):,} characters; the scores cover all of them.")


def word_diff_view(first: str, second: str) -> None:
    """The word-level diff of two processed texts, escaped; its start only when it is long, and a note saying so."""
    head, cut = diff_head(word_diff(first, second), SHOWN_TEXT_MAX_CHARS)
    st.markdown(diff_markdown(head) or "_(both texts are empty)_")
    if cut:
        st.caption(
            f"The start of the diff: its first {SHOWN_TEXT_MAX_CHARS:,} characters of words (the texts are long)."
        )
    st.caption(":red-background[~~removed~~] from the input · :green-background[added] in the output")


#: A verdict's status -> its title, the element that shows it, and its icon (Runs page, Demo).
VERDICT_STATUS = {"worse": ("Regression", st.error, ":material/trending_down:"),
                  "better": ("Improved", st.success, ":material/trending_up:"),
                  "same": ("No significant change", st.info, ":material/trending_flat:"),
                  "undecided": ("Not enough rows", st.info, ":material/help:")}  # fmt: skip


def measure_name(scorer: str) -> str:
    """A scorer's or a measure's name for people (its id when the registry does not know it)."""
    info = find_scorer(scorer) or find_measure(scorer)
    return info.label if info is not None else scorer


def show_verdict(verdict: ScorerVerdict) -> None:
    """One scorer's A/B verdict for people: its status, the measure's display name, the paired statistics."""
    title, show, icon = VERDICT_STATUS[verdict.status]
    show(f"**{title}: {measure_name(verdict.scorer)}** · {escape_markdown(verdict.comparison.verdict)}", icon=icon)
