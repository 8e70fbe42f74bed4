"""Batch: score a file of responses, see where they fall short, compare two versions, download everything."""

import streamlit as st

import ui
from scoring.text.display import one_line
from ui import batch_input as batch_ui
from ui import batch_results as results_ui
from ui import labels as labels_ui
from ui import runs as runs_ui
from ui.markdown import escape_markdown

ui.under_router()  # a link straight to this page on a fresh server runs it under app.py too
ui.init_state()  # the judge settings share the Toxicity page's keys
st.title("Batch evaluation")
st.caption(
    "Score every response in a file with the tone, similarity, toxicity and courtesy scorers; compare versions A and B."
)

loaded = ui.attempt(batch_ui.pick_data)
if loaded is None:
    st.info("Upload a file of responses, or pick the bundled sample, to start.", icon=":material/upload_file:")
    st.stop()
columns = escape_markdown(", ".join(map(str, loaded.table.columns)))
st.caption(f"**{escape_markdown(one_line(loaded.name))}** · {len(loaded.table):,} rows · columns: {columns}")
for warning in loaded.warnings:
    st.warning(escape_markdown(warning), icon=":material/text_format:")

with st.container(border=True):
    options = batch_ui.run_options(loaded, batch_ui.scorer_names() + labels_ui.taught_choices())
    spec = batch_ui.plan(loaded, options)  # which column is used for what, or what to choose first
    if st.button("Score the file", type="primary", icon=":material/play_arrow:", key="batch.run_button",
                 disabled=spec is None):  # fmt: skip
        st.session_state["batch.run"] = (loaded.digest, options, spec)  # the spec shown is the spec run
        st.session_state.pop(batch_ui.STOPPED, None)  # pressed again after a stop: run it

if st.session_state.get("batch.run") is None or st.session_state["batch.run"][0] != loaded.digest:
    st.info("Check the columns and options, then press **Score the file**.", icon=":material/tune:")
    st.stop()
_, run_options, run_spec = st.session_state["batch.run"]
if run_options != options:
    st.caption("The results below are for the options of the last run; press **Score the file** to apply changes.")
result = ui.attempt(batch_ui.scored, loaded, run_options, run_spec)
if result is None:
    st.stop()

problems = results_ui.show_status(result)
runs_ui.cache_note(result)
ui.attempt(batch_ui.retry_button, loaded, run_options, result)
results_ui.show_cards(result)
with st.expander("Save this run", icon=":material/bookmark_add:", expanded=True):
    saved_key = f"{loaded.digest}:{run_options!r}:{len(result.errors)}"
    runs_ui.save_box(result, loaded.name, loaded.digest, saved_key)
    if (saved_id := st.session_state.get("batch.saved_ids", {}).get(saved_key)) is not None:
        st.markdown("**Label the rows** (kept with the saved run; the **Runs** page shows the agreement)")
        labels_ui.label_editor(saved_id, key="batch.labels")
group, a, b, pair_on = results_ui.ab_settings(result.table, loaded, run_spec)
figs = results_ui.figures(result.table, run_spec, group)
found: list = []
charts, rows, ab, downloads = st.tabs(["Charts", "Rows, worst first", "A/B comparison", "Downloads"], key="batch.tabs")
with charts:
    results_ui.show_figures(figs, len(result.table))
with rows:
    results_ui.show_rows(result.table, group, run_spec)
with ab:
    if group is None or a == b:
        st.info("Choose a column whose values name the versions (e.g. model), and two different groups A and B.")
    else:
        run_key = f"{loaded.digest}:{run_options!r}"
        found, summary = results_ui.comparisons(run_key, group, a, b, pair_on, result.table)
        figs = [*figs, results_ui.show_comparisons(found, summary)]
with downloads:
    results_ui.show_downloads(result, loaded, figs, found, problems, saved_id)
