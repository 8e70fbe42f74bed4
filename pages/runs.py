"""Runs: every saved batch run, each name's trend over time, and two runs compared row by row."""

import streamlit as st

import ui
from ui import labels as labels_ui
from ui import runs as runs_ui

ui.under_router()  # a link straight to this page on a fresh server runs it under app.py too
ui.init_state()
st.title("Run history")
st.caption(
    "Batch runs saved from the Batch page (**Save this run**) or the command line "
    "(`python -m scoring evaluate FILE --save`), kept in " + runs_ui.store_url_label() + "."
)

with st.container(border=True):
    st.subheader("Runs")
    infos = runs_ui.runs_table()
if infos is None:  # the store cannot be read: the error above says why
    st.stop()
if not infos:
    st.info("No saved runs match yet. Score a file on the **Batch** page and press **Save this run**.",
            icon=":material/bookmark_add:")  # fmt: skip
    st.stop()

with st.container(border=True):
    st.subheader("Trend")
    st.caption("Each scorer's mean per run with its 95% CI, for the runs saved under one name.")
    runs_ui.trend_section()

with st.container(border=True):
    st.subheader("Rename or delete a run")
    runs_ui.manage_section(infos)

with st.container(border=True):
    st.subheader("Compare two runs")
    st.caption("Per scorer, the A/B statistics of the Batch page (paired on inputs when both runs answered the same "
               "ones); then each row's change, worst regressions first.")  # fmt: skip
    runs_ui.compare_section(infos)

with st.container(border=True):
    st.subheader("Labels and agreement")
    st.caption("Label a run's rows (your judgement of each reply), see how its scores agree with people, and teach "
               "a scorer on the labels.")  # fmt: skip
    by_id = {i.id: i for i in infos}
    label_run = st.selectbox("Run to label", list(by_id), key="runs.label_run",
                             format_func=lambda i: runs_ui.run_choice(by_id[i]))  # fmt: skip
    labels_ui.label_editor(label_run, key="runs.labels")
    st.markdown("**Agreement with people's labels**")
    labels_ui.agreement_section(label_run)
    labels_ui.downloads(label_run)
    with st.expander("Teach a scorer on these labels", icon=":material/school:"):
        labels_ui.teach_section(label_run)
