"""Demo: curated examples that load into a page with one click, to show the tool in five minutes."""

import streamlit as st

import ui
from ui.demo_examples import EXAMPLES

ui.under_router()  # a link straight to this page on a fresh server runs it under app.py too

st.title("Demo")
st.caption("Pick an example: it opens on its page with the text filled in. Every number is computed live.")

st.subheader("Warm agent vs curt agent")
st.caption("The same 20 support questions answered by version 1 (warm) and version 2 (“It shipped. Stop asking.”): "
           "which measures tell them apart? Scored live with e5, a few seconds the first time.")  # fmt: skip
if st.toggle("Compare the two agents", key="demo.agents"):
    ui.show_agent_comparison()

OPEN_LABELS = {"tone": "Open in Tone", "similarity": "Open in Similarity", "toxicity": "Open in Toxicity"}
groups = dict.fromkeys(e.group for e in EXAMPLES)
for group in groups:
    st.subheader(group)
    examples = [e for e in EXAMPLES if e.group == group]
    columns = [col for _ in range(0, len(examples), 4) for col in st.columns(4)]
    for col, example in zip(columns, examples, strict=False):
        with col, st.container(border=True, height="stretch"):
            st.markdown(f"**{example.title}**")
            st.caption(example.summary)
            if st.button(OPEN_LABELS[example.page], key=f"demo.open.{example.id}", icon=":material/play_arrow:"):
                ui.load_example(example.state, example.page)
