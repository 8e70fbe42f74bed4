"""Similarity: how alike two texts are, by Mastra's Dice score and every rapidfuzz algorithm."""

import streamlit as st

import ui
from scoring.charts import similarity_figure
from scoring.similarity.explain import similarity_frame
from ui.share import read_link, write_link

ui.under_router()  # a link straight to this page on a fresh server runs it under app.py too
ui.init_state()
read_link("similarity")
st.title("Similarity")
st.caption("Content similarity of an output to its input (or to an expected answer), as Mastra scores it.")

left, right = st.columns(2)
first = left.text_area("Input (or expected answer)", key="similarity.input", height=140, persist_state="session")
second = right.text_area("Output (the response)", key="similarity.output", height=140, persist_state="session")
case_col, space_col = st.columns(2)
ignore_case = case_col.toggle(
    "Ignore case",
    key="similarity.ignore_case",
    persist_state="session",
    help="Lower-case both texts first (Mastra's option `ignoreCase`).",
)
ignore_whitespace = space_col.toggle(
    "Ignore extra spaces", key="similarity.ignore_whitespace", persist_state="session",
    help="Trim both texts and fold each run of whitespace into one space (Mastra's option `ignoreWhitespace`).",
)  # fmt: skip

write_link("similarity", {"a": "input", "b": "output"})
if not first.strip() or not second.strip():  # two empty texts are "identical" (1.000): that says nothing
    st.info("Paste both texts (the input or expected answer, and the output) to compare them.",
            icon=":material/edit_note:")  # fmt: skip
    st.stop()

result = ui.attempt(ui.similarity_result, first, second, ignore_case, ignore_whitespace)
if result is None:
    st.stop()
ui.show_warnings(result)
pre = result["preprocessStepResult"]
score_col, text_col = st.columns([1, 3])
with score_col:
    ui.score_card(
        "Dice similarity", f"{result['score']:.3f}", "1 = identical after processing; 0 = nothing shared",
        key="similarity.score",
    )  # fmt: skip
with text_col:
    ui.processed_text("Processed input", pre["processedInput"])
    ui.processed_text("Processed output", pre["processedOutput"])

frame = similarity_frame(result["allAlgorithms"])
st.dataframe(  # full width, rows tall enough for "what it measures" to wrap onto a second line, never clipped
    frame, hide_index=True, key="similarity.table", row_height=54, height=len(frame) * 54 + 38,
    column_config={
        "algorithm": st.column_config.TextColumn("algorithm", width="small"),
        "similarity": st.column_config.ProgressColumn("similarity", min_value=0, max_value=1, format="%.3f",
                                                      width="small"),
        "what it measures": st.column_config.TextColumn("what it measures", width="large"),
    },
)  # fmt: skip
st.plotly_chart(similarity_figure(frame), key="similarity.chart")

st.subheader("Word-level diff")
ui.word_diff_view(pre["processedInput"], pre["processedOutput"])
with st.expander("Result as JSON (Mastra's shape)"):
    ui.json_download({k: v for k, v in result.items() if k != "allAlgorithms"}, "similarity.json", key="sim.json")
