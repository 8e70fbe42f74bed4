"""Tone: how consistent one response's sentiment is, sentence by sentence, and why."""

import streamlit as st

import ui
from scoring.registry import TONE
from scoring.tone.explain import comparison_direction, describe_shifts, honest_band
from ui.share import read_link, write_link

ui.under_router()  # a link straight to this page on a fresh server runs it under app.py too
ui.init_state()
read_link("tone")
st.title("Tone")
st.caption("Sentiment consistency of one response: against a reference tone, or across its own sentences.")

mode = st.radio(
    "Mode", ["stability", "comparison"], key="tone.mode", horizontal=True, persist_state="session",
    format_func={"stability": "Stability", "comparison": "Compare to a reference"}.get,
)  # fmt: skip
engine_col, splitter_col, compare_col = st.columns([5, 3, 4], vertical_alignment="bottom")
engine = engine_col.selectbox(
    "Engine", list(TONE.engines), key="tone.engine", format_func=TONE.engines.get, persist_state="session"
)
splitter = splitter_col.selectbox(
    "Sentences", list(ui.SPLITTER_LABELS), key="tone.splitter", format_func=ui.SPLITTER_LABELS.get,
    persist_state="session",
)  # fmt: skip
compare = compare_col.toggle(
    "Compare engines", key="tone.compare_engines", persist_state="session",
    help="Score the text with every engine, side by side, sentence by sentence.",
)  # fmt: skip

text = ui.text_source("tone", "Response text")
reference = None
if mode == "comparison":
    reference = st.text_area("Reference tone", key="tone.reference", height=80, persist_state="session")
write_link("tone", {"text": "response text", "ref": "reference tone"})
if text is None:  # the last upload was refused: its error is shown, nothing else is scored
    st.stop()
if not text.strip() or (mode == "comparison" and not (reference or "").strip()):
    st.info("Paste a response (and, to compare, a reference tone) to score it.", icon=":material/edit_note:")
    st.stop()

if engine == "e5":  # a long new text: say what is happening, show progress, and how to stop
    ui.attempt(ui.e5_progress, text, splitter)
result = ui.attempt(ui.tone_result, text, reference, engine, splitter)
if result is None:
    st.stop()
ui.show_warnings(result)
pre = result["preprocessStepResult"]
frame = ui.tone_frame(text, reference, engine, splitter)
score_col, metrics_col = st.columns([1, 3])
with score_col:
    ui.tone_score_card(result, frame=frame)
with metrics_col:
    if reference:
        ui.metric_row({k: pre[k] for k in ("responseSentiment", "referenceSentiment", "difference")})
        st.caption(comparison_direction(pre["responseSentiment"], pre["referenceSentiment"], engine))
    else:
        ui.metric_row({"avgSentiment": pre["avgSentiment"], "sentimentVariance": pre["sentimentVariance"]})
    counts = {"Sentences": len(frame), "Tone shifts": int(frame["tone_shift"].sum())}
    if "engines_disagree" in frame:  # the lexicon engines cross-check each other (e5 is not cross-checked)
        counts["Engines disagree"] = int(frame["engines_disagree"].sum())
    ui.metric_row(counts)
    if (said := describe_shifts(frame)) and (reference or honest_band(result["score"], frame).label != "Turns"):
        st.caption(said)  # where the tone turns, unless the score's band already says it
if not ui.painted("tone"):  # a browser's first run of the page: the score first, the rest once it is on screen
    st.stop()
ui.tone_chart(text, reference, engine, splitter, key="tone.chart")
st.caption(ui.CHART_NOTES["comparison" if reference else "stability"])

highlighted, sentences, raw = st.tabs(["Highlighted text", "Sentences and word drivers", "JSON"])
with highlighted:
    markdown, shown, total = ui.tone_highlight(text, reference, engine, splitter)
    if shown < total:
        st.caption(f"The first {shown:,} of {total:,} sentences (a long text); the chart and the sentence table "
                   "show all of them.")  # fmt: skip
    st.markdown(markdown)
    st.caption(ui.HIGHLIGHT_LEGEND)
with sentences:
    st.dataframe(frame.drop(columns=["start", "end"]).rename(columns=ui.SENTENCE_LABELS), hide_index=True,
                 key="tone.sentences")  # fmt: skip
    # A slow engine (e5) explains by re-scoring each sentence once per word (~0.6 s for 5): on request, remembered.
    # e5-lite's occlusion is fast per sentence, but a 100,000-character text has ~20,000 words (~2 s): on request too.
    if (engine not in TONE.slow_engines and engine != "e5-lite") or st.toggle(
        "Explain the words", key="tone.e5_drivers", persist_state="session",
        help=f"{engine} scores each sentence again with each word blanked out "
        + ("(about 0.1 s per sentence)." if engine == "e5" else "(about 0.1 s per 100 sentences)."),
    ):  # fmt: skip
        st.dataframe(ui.drivers(tuple(frame["text"]), engine), hide_index=True, key="tone.drivers")
    st.caption(ui.DRIVER_NOTES[engine])
with raw:
    ui.json_download(result, "tone-result.json", key="tone.download")

if st.toggle(
    "Courtesy per sentence", key="tone.courtesy", persist_state="session",
    help="How courteous each sentence is toward the reader, beside its sentiment (e5: about 0.1 s per sentence).",
):  # fmt: skip
    ui.show_courtesy(text, reference, engine, splitter)

if compare:
    ui.engine_comparison(text, reference, splitter)
