"""Courtesy beside sentiment on the Tone page, and the Demo page's warm agent against a curt one."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from scoring.courtesy import CURT_AGENT_EXAMPLE
from scoring.registry import COURTESY, WARMTH
from scoring.runs.diff import ScorerVerdict
from ui.cached import courtesy_figure, courtesy_frame, courtesy_result
from ui.markdown import escape_markdown
from ui.widgets import attempt, show_verdict

__all__ = ["AGENT_FILES", "agent_comparison", "show_agent_comparison", "show_courtesy", "show_courtesy_sentences"]

AGENT_FILES = tuple(CURT_AGENT_EXAMPLE / f"{v}.csv" for v in ("v1", "v2"))
AGENT_LABELS = ("warm agent", "curt agent")


def show_courtesy(text: str, reference: str | None, engine: str, splitter: str) -> None:
    """The reply's courtesy, its reason, and courtesy beside sentiment for each sentence."""
    result = attempt(courtesy_result, text, splitter)
    if result is None:
        return
    analyzed = result["analyzeStepResult"]
    verdict = "Courteous" if analyzed["courteous"] else "Not courteous"
    st.metric(f"Courtesy: {verdict}", f"{result['score']:.2f}", help="0 curt or dismissive .. 1 courteous "
              f"(threshold {analyzed['threshold']:g}); the mean of the whole reply's and its least courteous "
              "sentence's (docs/courtesy.md).")  # fmt: skip
    st.caption(escape_markdown(result["reason"]))
    st.plotly_chart(courtesy_figure(text, reference, engine, splitter), key="tone.courtesy_chart")
    st.dataframe(courtesy_frame(text, reference, engine, splitter), hide_index=True, key="tone.courtesy_table")
    st.caption("Courtesy is not sentiment: polite bad news is courteous and negative; “Stop asking.” is neutral "
               "and dismissive. Courtesy: a learned head on multilingual-e5-small (TyDiP politeness ratings and "
               "written support replies).")  # fmt: skip


def show_courtesy_sentences(text: str, reference: str | None, engine: str, splitter: str, *, key: str) -> None:
    """A scored reply's courtesy reason and its courtesy beside sentiment per sentence (a batch row's drill-down)."""
    result = attempt(courtesy_result, text, splitter)
    if result is None:
        return
    st.caption(escape_markdown(result["reason"]))
    st.plotly_chart(courtesy_figure(text, reference, engine, splitter), key=key)


@st.cache_data(max_entries=2, show_spinner="Scoring both agents (e5 embeds each reply and sentence)…")
def agent_comparison() -> tuple[pd.DataFrame, list[ScorerVerdict]]:
    """Both agents' replies scored (tone, warmth, courtesy) side by side, and the paired verdicts of each measure."""
    from scoring.batch import evaluate
    from scoring.io.columns import ColumnMap
    from scoring.runs import compare_runs, rows_frame

    rows = []
    for path in AGENT_FILES:
        table = pd.read_csv(path, keep_default_na=False)
        result = evaluate(table, scorers=("tone", "courtesy"), columns=ColumnMap("reply", "question", None))
        rows.append(rows_frame(result))
    comparison = compare_runs(rows[0], rows[1], labels=AGENT_LABELS)
    side = pd.DataFrame({"question": rows[0]["input"]})
    for label, frame in zip(AGENT_LABELS, rows, strict=True):  # each agent's reply, then its measures
        for name in ("reply", "courtesy", "warmth"):
            side[f"{label}: {name}"] = _agent_column(frame, name)
    return side, list(comparison.verdicts)


def _agent_column(rows: pd.DataFrame, name: str) -> pd.Series:
    """One agent's replies, courtesy or warmth (:meth:`scoring.registry.Measure.values`), for the side-by-side."""
    if name == "reply":
        return rows["output"]
    return (rows[COURTESY.id] if name == "courtesy" else WARMTH.values(rows)).round(2)


def show_agent_comparison() -> None:
    """The same questions answered by a warm agent and a curt one: the verdicts, then the replies side by side."""
    found = attempt(agent_comparison)
    if found is None:
        return
    side, verdicts = found
    for verdict in verdicts:
        show_verdict(verdict)
    st.caption("Tone stability (Mastra's measure) calls the curt agent better: short, flat replies are stable. "
               "Courtesy and warmth say what changed. The same files fail `python -m scoring evaluate "
               "scoring/data/curt_agent/v2.csv --baseline v1 --fail-on-regression` (README).")  # fmt: skip
    st.caption(escape_markdown("Courtesy: how courteous each reply is toward the person it answers, 0 curt .. 1 "
                               f"courteous. Warmth: {WARMTH.about}."))  # fmt: skip
    # each agent's reply, then its two measures, narrow and headed by the measure alone (the help names the agent)
    config: dict[str, Any] = {c: st.column_config.TextColumn(c, width="medium") for c in side.columns
                              if c == "question" or c.endswith(": reply")}  # fmt: skip
    config |= {c: st.column_config.NumberColumn(c.split(": ")[1], help=c, format="%.2f", width="small")
               for c in side.columns if c.endswith((": courtesy", ": warmth"))}  # fmt: skip
    st.dataframe(side, hide_index=True, column_config=config, key="demo.agents.table")
