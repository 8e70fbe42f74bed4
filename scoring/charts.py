"""Plotly figures for the dashboard and reports: pure ``DataFrame -> go.Figure``, no Streamlit, no I/O.

Shapes carry a ``name`` ("mean", "±1 std", "reference") so tests and readers can find them.
User text reaches a figure only HTML-escaped (Plotly renders a subset of HTML in hover labels).
"""

from __future__ import annotations

import html
import math
import textwrap

import pandas as pd
import plotly.graph_objects as go

from scoring.tone.explain import sentence_stats

__all__ = [
    "SENTIMENT_COLORSCALE",
    "group_means_figure",
    "score_histogram_figure",
    "sentence_sentiment_figure",
    "sentiment_similarity_figure",
    "similarity_figure",
    "threshold_tradeoff_figure",
]

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


def _sentence_traces(frame: pd.DataFrame) -> list[go.Scatter]:
    """The sentences (points coloured by sentiment, joined in order) and the tone shifts (circled)."""
    size = 14 if len(frame) <= 40 else 8
    y = frame["sentiment"].astype(float).tolist()
    marker = {
        "color": y,
        "colorscale": SENTIMENT_COLORSCALE,
        "cmid": 0,
        "size": size,
        "line": {"width": 1, "color": "#fff"},
    }
    shifts = frame[frame["tone_shift"].astype(bool)]
    return [
        go.Scatter(
            x=frame["sentence"].tolist(),
            y=y,
            mode="lines+markers",
            name="sentence",
            customdata=[[_hover_text(str(t))] for t in frame["text"]],
            line={"color": "#c5cad3", "width": 1.5},
            marker=marker,
            hovertemplate="<b>Sentence %{x}</b> · sentiment %{y:.3f}<br>%{customdata[0]}<extra></extra>",
        ),
        go.Scatter(
            x=shifts["sentence"].tolist(),
            y=shifts["sentiment"].astype(float).tolist(),
            mode="markers",
            name="tone shift",
            marker={"symbol": "circle-open", "size": size + 12, "color": "#e67e22", "line": {"width": 3}},
            hovertemplate="<b>Tone shift</b> at sentence %{x}<extra></extra>",
            visible=True if len(shifts) else "legendonly",
        ),
    ]


def sentence_sentiment_figure(
    frame: pd.DataFrame,
    *,
    reference: float | None = None,
    title: str = "Sentiment per sentence",
    y_label: str = "sentiment",
) -> go.Figure:
    """Return a point per sentence coloured by sentiment, the mean line, a ±1 std band and tone shifts.

    Args:
        frame: :func:`scoring.tone.explain.sentence_frame` output (sentence, text, sentiment, tone_shift).
        reference: the reference tone's polarity (comparison mode), drawn as a dotted line.
        title: the figure title.
        y_label: the y axis title, e.g. "VADER compound".
    """
    mean, std = sentence_stats(frame["sentiment"].astype(float).tolist())
    fig = go.Figure(_sentence_traces(frame))
    fig.add_shape(
        type="rect", xref="paper", x0=0, x1=1, y0=mean - std, y1=mean + std, name="±1 std",
        fillcolor=_BAND_COLOR, line={"width": 0}, layer="below", showlegend=True,
    )  # fmt: skip
    _hline(fig, mean, "mean", _MEAN_COLOR, "dash", f"mean {mean:.3f}")
    if reference is not None:
        _hline(fig, reference, "reference", _REFERENCE_COLOR, "dot", f"reference {reference:.3f}")
    fig.update_layout(
        title=title,
        xaxis={"title": "sentence", "tickmode": "linear" if len(frame) <= 30 else "auto", "dtick": 1},
        yaxis={"title": y_label, "zeroline": True, "zerolinecolor": "#d5d8dc"},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0},  # fits narrow columns
        margin={"t": 50, "b": 40, "l": 50, "r": 20},
        hoverlabel={"align": "left"},
    )
    return fig


def similarity_figure(frame: pd.DataFrame, *, selected: str | None = "dice") -> go.Figure:
    """Return a horizontal bar per algorithm (``frame``: algorithm, similarity in [0, 1]).

    The ``selected`` algorithm (the scorer's) is drawn in a stronger colour.
    """
    algorithms = frame["algorithm"].tolist()
    values = frame["similarity"].astype(float).tolist()
    colors = ["#4F46E5" if a == selected else "#b4b1f0" for a in algorithms]
    fig = go.Figure(
        go.Bar(
            x=values,
            y=algorithms,
            orientation="h",
            marker={"color": colors},
            text=[f"{v:.3f}" if not math.isnan(v) else "n/a (too long)" for v in values],
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


# --- Batch evaluation figures (the Batch page and the HTML report) ---------------------------------

_GROUP_COLORS = ["#1f6feb", "#e67e22", "#16a085", "#8e44ad", "#c0392b", "#7f8c8d"]
_TOP_LEGEND = {"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "right", "x": 1}


def _groups(df: pd.DataFrame, group: str | None) -> list[tuple[str, pd.DataFrame]]:
    if group is None:
        return [("all rows", df)]
    return [(html.escape(str(name)), part) for name, part in df.groupby(group, sort=False, dropna=False)]


def score_histogram_figure(df: pd.DataFrame, *, column: str, group: str | None = None, nbins: int = 20) -> go.Figure:
    """Return a histogram of one score column (rows without a score are left out), overlaid per group."""
    data = df[pd.to_numeric(df[column], errors="coerce").notna()]
    end = max(1.0, float(pd.to_numeric(data[column]).max()) if len(data) else 1.0)
    fig = go.Figure()
    for i, (name, part) in enumerate(_groups(data, group)):
        fig.add_trace(
            go.Histogram(
                x=pd.to_numeric(part[column]).tolist(),
                name=name,
                xbins={"start": 0.0, "end": end + 1e-9, "size": end / nbins},
                marker={"color": _GROUP_COLORS[i % len(_GROUP_COLORS)]},
                opacity=0.7 if group else 1.0,
                hovertemplate=f"{name}<br>score %{{x}}<br>%{{y}} rows<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"{html.escape(column)} (n={len(data)})",
        barmode="overlay",
        xaxis={"title": "score", "range": [0, end]},
        yaxis={"title": "rows"},
        showlegend=group is not None,
        legend=_TOP_LEGEND,
        margin={"t": 70, "b": 40, "l": 50, "r": 10},
    )
    return fig


def sentiment_similarity_figure(
    df: pd.DataFrame, *, x: str, y: str, group: str | None = None, label: str | None = None
) -> go.Figure:
    """Return a scatter of sentiment (``x``) against similarity (``y``), one colour per group.

    ``label`` names a text column (e.g. the output) shown, escaped and wrapped, when hovering a point.
    """
    data = df[pd.to_numeric(df[x], errors="coerce").notna() & pd.to_numeric(df[y], errors="coerce").notna()]
    fig = go.Figure()
    for i, (name, part) in enumerate(_groups(data, group)):
        hover = [[_hover_text(str(t))] for t in part[label]] if label else [[""]] * len(part)
        fig.add_trace(
            go.Scatter(
                x=pd.to_numeric(part[x]).tolist(),
                y=pd.to_numeric(part[y]).tolist(),
                mode="markers",
                name=name,
                customdata=hover,
                marker={"color": _GROUP_COLORS[i % len(_GROUP_COLORS)], "size": 8, "opacity": 0.75},
                hovertemplate="sentiment %{x:.3f} · similarity %{y:.3f}<br>%{customdata[0]}<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"Sentiment vs similarity (n={len(data)})",
        xaxis={"title": html.escape(x), "zeroline": True, "zerolinecolor": "#d5d8dc"},
        yaxis={"title": html.escape(y)},
        showlegend=group is not None,
        legend=_TOP_LEGEND,
        margin={"t": 70, "b": 40, "l": 50, "r": 10},
        hoverlabel={"align": "left"},
    )
    return fig


def group_means_figure(summary: pd.DataFrame) -> go.Figure:
    """Return the mean score per group and scorer with 95% CI error bars.

    Args:
        summary: :func:`scoring.batch.compare.group_summary` output (group, score, n, mean, ci_low, ci_high).
    """
    fig = go.Figure()
    for i, (name, part) in enumerate(summary.groupby("group", sort=False)):
        mean = part["mean"].astype(float)
        fig.add_trace(
            go.Bar(
                x=part["score"].tolist(),
                y=mean.tolist(),
                name=html.escape(str(name)),
                marker={"color": _GROUP_COLORS[i % len(_GROUP_COLORS)]},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": (part["ci_high"].astype(float) - mean).fillna(0).tolist(),
                    "arrayminus": (mean - part["ci_low"].astype(float)).fillna(0).tolist(),
                },
                customdata=part[["n", "ci_low", "ci_high"]].to_numpy().tolist(),
                hovertemplate="%{x}: mean %{y:.3f}<br>95% CI %{customdata[1]:.3f} to %{customdata[2]:.3f}"
                "<br>n=%{customdata[0]}<extra></extra>",
            )
        )
    fig.update_layout(
        title="Mean score per group (95% bootstrap CI)",
        barmode="group",
        yaxis={"title": "mean score", "rangemode": "tozero"},
        legend=_TOP_LEGEND,
        margin={"t": 70, "b": 40, "l": 50, "r": 10},
    )
    return fig


def _vline(fig: go.Figure, x: float, name: str, color: str, dash: str, label: str) -> None:
    fig.add_shape(
        type="line",
        yref="paper",
        x0=x,
        x1=x,
        y0=0,
        y1=1,
        name=name,
        line={"color": color, "width": 2, "dash": dash},
        label={"text": label, "textposition": "end", "font": {"color": color, "size": 11}, "textangle": 0},
    )


def threshold_tradeoff_figure(curve: pd.DataFrame, *, threshold: float, default: float | None = None) -> go.Figure:
    """Precision and recall against the threshold (columns ``threshold``, ``precision``, ``recall``).

    A vertical line marks ``threshold`` (the one in use) and another ``default`` when it differs. Higher is
    better for both: raising the threshold trades recall (toxic sentences caught) for precision (flags right).
    ``curve.attrs["n"]``, when set, names the number of sentences in the title.
    """
    if missing := {"threshold", "precision", "recall"} - set(curve.columns):
        raise ValueError(f"curve needs the columns threshold, precision, recall; missing {sorted(missing)}.")
    fig = go.Figure()
    for column, color in (("precision", "#1e8449"), ("recall", "#2874a6")):
        fig.add_trace(
            go.Scatter(
                x=curve["threshold"],
                y=curve[column],
                name=column,
                mode="lines",
                line={"color": color, "width": 2},
                hovertemplate=f"threshold %{{x:.2f}}<br>{column} %{{y:.2f}}<extra></extra>",
            )
        )
    _vline(fig, threshold, "threshold", _MEAN_COLOR, "solid", f"in use {threshold:g}")
    if default is not None and not math.isclose(default, threshold):
        _vline(fig, default, "default", _REFERENCE_COLOR, "dash", f"default {default:g}")
    n = curve.attrs.get("n")
    fig.update_layout(
        title=f"Precision and recall on fresh text ({n} sentences)" if n else "Precision and recall",
        xaxis={"title": "threshold", "range": [0, 1]},
        yaxis={"title": "rate", "range": [0, 1.05]},
        height=320,
        margin={"t": 50, "b": 40, "l": 50, "r": 20},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig
