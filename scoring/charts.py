"""Plotly figures for the dashboard and reports: pure ``DataFrame -> go.Figure``, no Streamlit, no I/O.

Shapes carry a ``name`` ("mean", "±1 std", "reference") so tests and readers can find them.
User text reaches a figure only HTML-escaped (Plotly renders a subset of HTML in hover labels).
"""

from __future__ import annotations

import html
import textwrap

import pandas as pd
import plotly.graph_objects as go

from scoring.explain import sentence_stats

__all__ = ["SENTIMENT_COLORSCALE", "sentence_sentiment_figure", "similarity_figure"]

SENTIMENT_COLORSCALE = [[0.0, "#c0392b"], [0.5, "#b8bcc2"], [1.0, "#1e8449"]]
"""Negative red, neutral grey, positive green."""

_MEAN_COLOR = "#2c3e50"
_BAND_COLOR = "rgba(52, 152, 219, 0.15)"
_REFERENCE_COLOR = "#8e44ad"


def _hover_text(text: str, width: int = 70, max_lines: int = 8) -> str:
    """Escape and wrap a sentence for a hover label."""
    lines = textwrap.wrap(text, width=width, max_lines=max_lines, placeholder=" …") or [""]
    return "<br>".join(html.escape(line) for line in lines)


def _hline(fig: go.Figure, y: float, name: str, color: str, dash: str, label: str) -> None:
    fig.add_shape(
        type="line",
        xref="paper",
        x0=0,
        x1=1,
        y0=y,
        y1=y,
        name=name,
        line={"color": color, "width": 2, "dash": dash},
        showlegend=True,
        label={"text": label, "textposition": "end", "font": {"color": color, "size": 11}, "yanchor": "bottom"},
    )


def sentence_sentiment_figure(
    frame: pd.DataFrame,
    *,
    reference: float | None = None,
    title: str = "Sentiment per sentence",
    y_label: str = "sentiment",
) -> go.Figure:
    """Return a bar per sentence coloured by sentiment, the mean line, a ±1 std band and tone shifts.

    Args:
        frame: :func:`scoring.explain.sentence_frame` output (sentence, text, sentiment, tone_shift).
        reference: the reference tone's polarity (comparison mode), drawn as a dotted line.
        title: the figure title.
        y_label: the y axis title, e.g. "VADER compound".
    """
    x = frame["sentence"].tolist()
    y = frame["sentiment"].astype(float).tolist()
    hover = [[_hover_text(str(t))] for t in frame["text"]]
    mean, std = sentence_stats(y)
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=x,
            y=y,
            name="sentence",
            customdata=hover,
            marker={"color": y, "colorscale": SENTIMENT_COLORSCALE, "cmid": 0, "line": {"width": 0}},
            hovertemplate="<b>Sentence %{x}</b> · sentiment %{y:.3f}<br>%{customdata[0]}<extra></extra>",
        )
    )
    shifts = frame[frame["tone_shift"].astype(bool)]
    fig.add_trace(
        go.Scatter(
            x=shifts["sentence"].tolist(),
            y=shifts["sentiment"].astype(float).tolist(),
            mode="markers",
            name="tone shift",
            marker={"symbol": "star", "size": 15, "color": "#f39c12", "line": {"width": 1, "color": "#7e5109"}},
            hovertemplate="<b>Tone shift</b> at sentence %{x}<extra></extra>",
            visible=True if len(shifts) else "legendonly",
        )
    )
    fig.add_shape(
        type="rect",
        xref="paper",
        x0=0,
        x1=1,
        y0=mean - std,
        y1=mean + std,
        name="±1 std",
        fillcolor=_BAND_COLOR,
        line={"width": 0},
        layer="below",
        showlegend=True,
    )
    _hline(fig, mean, "mean", _MEAN_COLOR, "dash", f"mean {mean:.3f}")
    if reference is not None:
        _hline(fig, reference, "reference", _REFERENCE_COLOR, "dot", f"reference {reference:.3f}")
    fig.update_layout(
        title=title,
        xaxis={"title": "sentence", "tickmode": "linear" if len(x) <= 30 else "auto", "dtick": 1},
        yaxis={"title": y_label, "zeroline": True, "zerolinecolor": "#d5d8dc"},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "right", "x": 1},
        margin={"t": 70, "b": 40, "l": 50, "r": 20},
        bargap=0.25,
        hoverlabel={"align": "left"},
    )
    return fig


def similarity_figure(frame: pd.DataFrame, *, selected: str | None = "dice") -> go.Figure:
    """Return a horizontal bar per algorithm (``frame``: algorithm, similarity in [0, 1]).

    The ``selected`` algorithm (the scorer's) is drawn in a stronger colour.
    """
    algorithms = frame["algorithm"].tolist()
    values = frame["similarity"].astype(float).tolist()
    colors = ["#1f6feb" if a == selected else "#9ab6e0" for a in algorithms]
    fig = go.Figure(
        go.Bar(
            x=values,
            y=algorithms,
            orientation="h",
            marker={"color": colors},
            text=[f"{v:.3f}" for v in values],
            textposition="outside",
            hovertemplate="%{y}: %{x:.4f}<extra></extra>",
            name="similarity",
        )
    )
    fig.update_layout(
        title="Every algorithm on the processed texts",
        xaxis={"title": "similarity (1 = identical)", "range": [0, 1.12]},
        yaxis={"autorange": "reversed"},
        margin={"t": 50, "b": 40, "l": 10, "r": 10},
        showlegend=False,
    )
    return fig
