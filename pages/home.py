"""Home: what the tool does, and a way into each page."""

import streamlit as st

import ui

ui.under_router()  # a link straight to this page on a fresh server runs it under app.py too

st.title("Tone explorer")
st.markdown(
    "Score the **tone** of an agent's reply: is it stable across its sentences, or does it match a reference tone?  \n"
    "See **why**: the sentiment of every sentence, the words that drove it, and where the tone shifts.  \n"
    "Also compare texts for **similarity**, check replies for **toxicity**, score whole files in **batch** and "
    "keep their **runs** to compare and trend."
)
st.caption("The numbers follow Mastra's @mastra/evals scorers; the AFINN engine reproduces them exactly.")

PAGES = [
    ("pages/tone.py", "Tone", ":material/graphic_eq:", "Per-sentence sentiment, score band, word drivers, JSON."),
    ("pages/similarity.py", "Similarity", ":material/compare_arrows:", "Dice and every rapidfuzz algorithm, a diff."),
    ("pages/toxicity.py", "Toxicity", ":material/shield:", "Per-opinion verdicts, offline or with an LLM judge."),
    ("pages/batch.py", "Batch", ":material/table_view:", "Score a file of responses; compare two versions."),
    ("pages/runs.py", "Runs", ":material/history:", "Saved runs: trends over time, two runs compared."),
    ("pages/demo.py", "Demo", ":material/slideshow:", "Curated examples, loaded with one click."),
]
for col, (page, label, icon, blurb) in zip(st.columns(len(PAGES)), PAGES, strict=True):
    with col, st.container(border=True, height="stretch"):
        st.page_link(page, label=label, icon=icon)
        st.caption(blurb)
