"""Plotly figures for the dashboard and reports: pure ``DataFrame -> go.Figure``, no Streamlit, no I/O.

Shapes carry a ``name`` ("mean", "±1 std", "reference") so tests and readers can find them.
User text reaches a figure only HTML-escaped (Plotly renders a subset of HTML in hover labels).
"""

from __future__ import annotations

import html
import itertools
import math
import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from scoring.errors import InputError
from scoring.tone.explain import sentence_stats

__all__ = [
    "LABEL_COLORS",
    "agreement_figure",
    "group_means_figure",
    "histogram_bins",
    "run_trend_figure",
    "score_histogram_figure",
    "sentence_courtesy_figure",
    "sentence_sentiment_figure",
    "sentiment_similarity_figure",
    "similarity_figure",
    "threshold_tradeoff_figure",
]

LABEL_COLORS = {"positive": "#1e8449", "neutral": "#95a5a6", "negative": "#c0392b"}
"""A sentence's colour by its sentiment label: positive green, neutral grey, negative red."""

_MEAN_COLOR = "#2c3e50"
_BAND_COLOR = "rgba(52, 152, 219, 0.15)"
_REFERENCE_COLOR = "#8e44ad"
_DIFFERENCE_COLOR = "rgba(142, 68, 173, 0.14)"


def _hover_text(text: str, width: int = 70, max_lines: int = 8) -> str:
    """Escape and wrap a sentence for a hover label."""
    if len(text) <= width and text.isprintable() and text == text.strip():  # nothing to wrap: textwrap is slow
        return html.escape(text)
    lines = textwrap.wrap(text, width=width, max_lines=max_lines, placeholder=" …") or [""]
    return "<br>".join(html.escape(line) for line in lines)


def _hline(y: float, name: str, color: str, dash: str, label: str, where: str = "end") -> dict[str, object]:
    return {
        "type": "line",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "y0": y,
        "y1": y,
        "name": name,
        "line": {"color": color, "width": 2, "dash": dash},
        "showlegend": True,
        "label": {"text": label, "textposition": where, "font": {"color": color, "size": 11}, "yanchor": "bottom"},
    }


_DISAGREE_COLOR = "#7f8c8d"


def _sentence_traces(frame: pd.DataFrame, engine_names: tuple[str, str] | None) -> list[dict[str, object]]:
    """Plotly trace dicts: the sentences (points coloured by their label, joined in order), a legend entry per
    label, the sentences the two engines read with opposite signs (a grey diamond) and the tone shifts (circled)."""
    size = 14 if len(frame) <= 40 else 8
    y = frame["sentiment"].astype(float).tolist()
    labels = frame["label"].astype(str).tolist()
    disagree = frame["engines_disagree"].astype(bool) if "engines_disagree" in frame else None
    if engine_names is not None and disagree is not None:
        ours, other = engine_names
        note = " — the engines disagree (low confidence)"
        cross = [
            f"<br>{html.escape(other)}: {v:+.3f}" + (note if d else "")
            for v, d in zip(frame["other_sentiment"].astype(float), disagree, strict=True)
        ]
        hover_head = f"<b>Sentence %{{x}}</b> · {html.escape(ours)} %{{y:+.3f}}"
    else:
        cross = [""] * len(frame)
        hover_head = "<b>Sentence %{x}</b> · sentiment %{y:.3f}"
    traces: list[dict[str, object]] = [
        {
            "type": "scatter",
            "x": frame["sentence"].tolist(),
            "y": y,
            "mode": "lines+markers",
            "name": "sentence",
            # numpy arrays: plotly validates them in one step (lists of lists element by element)
            "customdata": np.array(
                [[_hover_text(str(t)), c] for t, c in zip(frame["text"], cross, strict=True)], dtype=object
            ).reshape(-1, 2),
            "line": {"color": "#c5cad3", "width": 1.5},
            "marker": {
                "color": np.array([LABEL_COLORS[lab] for lab in labels], dtype=object),
                "size": size,
                "line": {"width": 1, "color": "#fff"},
            },
            "hovertemplate": hover_head + "%{customdata[1]}<br>%{customdata[0]}<extra></extra>",
            "showlegend": False,
        }
    ]
    for label, color in LABEL_COLORS.items():  # the legend of the point colours: one entry per label shown
        if label in labels:
            traces.append(
                {"type": "scatter", "x": [None], "y": [None], "mode": "markers", "name": label,
                 "marker": {"color": color, "size": 10}, "hoverinfo": "skip"}
            )  # fmt: skip
    if disagree is not None:
        part = frame[disagree]
        traces.append(
            {
                "type": "scatter",
                "x": part["sentence"].tolist(),
                "y": part["sentiment"].astype(float).tolist(),
                "mode": "markers",
                "name": "engines disagree",
                "marker": {"symbol": "diamond-open", "size": size + 10, "color": _DISAGREE_COLOR, "line": {"width": 2}},
                "hovertemplate": "<b>The engines disagree</b> on sentence %{x}: low confidence<extra></extra>",
                "visible": True if len(part) else "legendonly",
            }
        )
    shifts = frame[frame["tone_shift"].astype(bool)]
    traces.append(
        {
            "type": "scatter",
            "x": shifts["sentence"].tolist(),
            "y": shifts["sentiment"].astype(float).tolist(),
            "mode": "markers",
            "name": "tone shift",
            "marker": {"symbol": "circle-open", "size": size + 12, "color": "#e67e22", "line": {"width": 3}},
            "hovertemplate": "<b>Tone shift</b> at sentence %{x}<extra></extra>",
            "visible": True if len(shifts) else "legendonly",
        }
    )
    return traces


def sentence_sentiment_figure(
    frame: pd.DataFrame,
    *,
    reference: float | None = None,
    response: float | None = None,
    title: str = "Sentiment per sentence",
    y_label: str = "sentiment",
    engine_names: tuple[str, str] | None = None,
) -> go.Figure:
    """Return a point per sentence coloured by its label, tone shifts circled, and what the score is made of.

    Stability mode (``reference`` None): the mean line and the ±1 std band (the score is 1 - variance).
    Comparison mode (``reference`` and ``response`` given): the whole reply's sentiment, the reference's,
    and the difference between them shaded (the score is 1 - difference); the sentences are context.

    Args:
        frame: :func:`scoring.tone.explain.sentence_frame` output (sentence, text, sentiment, label,
            tone_shift; with other_sentiment and engines_disagree, those sentences get a grey diamond).
        reference: the reference tone's polarity (``referenceSentiment``).
        response: the whole output's polarity (``responseSentiment``).
        title: the figure title.
        y_label: the y axis title, e.g. "VADER compound".
        engine_names: (this engine, the cross-checking engine) as shown in hover labels.
    """
    if (reference is None) != (response is None):
        raise InputError("reference and response must be given together (comparison mode) or not at all.")
    # One go.Figure call with every trace and shape, in the form plotly's validators give them, and without
    # validation: the dashboard builds this figure for every text it scores, and validating it was most of a
    # score update's server time. test_sentence_figure_is_what_plotlys_validation_makes_of_it checks the JSON.
    if reference is None or response is None:
        mean, std = sentence_stats(frame["sentiment"].astype(float).tolist())
        shapes = [
            {"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "y0": mean - std, "y1": mean + std, "name": "±1 std",
             "fillcolor": _BAND_COLOR, "line": {"width": 0}, "layer": "below", "showlegend": True},
            _hline(mean, "mean", _MEAN_COLOR, "dash", f"mean {mean:.3f}"),
        ]  # fmt: skip
    else:
        low, high = sorted((response, reference))
        shapes = [
            {"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "y0": low, "y1": high, "name": "difference",
             "fillcolor": _DIFFERENCE_COLOR, "line": {"width": 0}, "layer": "below", "showlegend": True,
             "label": {"text": f"difference {high - low:.3f}", "textposition": "middle center",
                       "font": {"color": _REFERENCE_COLOR, "size": 12}}},
            _hline(response, "whole reply", _MEAN_COLOR, "solid", f"whole reply {response:.3f}", "start"),
            _hline(reference, "reference", _REFERENCE_COLOR, "dot", f"reference {reference:.3f}"),
        ]  # fmt: skip
    levels = [*frame["sentiment"].astype(float), *(v for v in (reference, response) if v is not None)]
    low, high = (min(levels), max(levels)) if levels else (0.0, 0.0)
    pad = 0.15 * ((high - low) or 1.0)  # room for the line labels above the top line
    layout = {
        "shapes": shapes,
        "title": {"text": title},
        "xaxis": {"title": {"text": "sentence"}, "tickmode": "linear" if len(frame) <= 30 else "auto", "dtick": 1},
        "yaxis": {
            "title": {"text": y_label},
            "zeroline": True,
            "zerolinecolor": "#d5d8dc",
            "range": [low - pad, high + pad],
        },
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0},  # fits narrow columns
        "margin": {"t": 50, "b": 40, "l": 50, "r": 20},
        "hoverlabel": {"align": "left"},
    }
    return go.Figure(data=_sentence_traces(frame, engine_names), layout=layout, _validate=False)


def sentence_courtesy_figure(frame: pd.DataFrame, *, threshold: float = 0.5) -> go.Figure:
    """Return courtesy (0..1, bars) and sentiment (-1..1, points) per sentence, with the courtesy threshold.

    Polite bad news shows a tall bar under a low point; a neutral but dismissive sentence a short bar at 0.

    Args:
        frame: one row per sentence with ``sentence`` (its number), ``text``, ``sentiment`` and ``courtesy``
            (NaN where a sentence has no words and was not scored).
        threshold: where a sentence counts as courteous (drawn as a dotted line).
    """
    for column in ("sentence", "text", "sentiment", "courtesy"):
        if column not in frame.columns:
            raise ValueError(f"frame must have a {column!r} column; found {list(frame.columns)}.")
    hover = [_hover_text(str(t)) for t in frame["text"]]
    fig = go.Figure()
    fig.add_bar(
        x=frame["sentence"],
        y=frame["courtesy"],
        name="courtesy (0..1)",
        marker_color=_MEAN_COLOR,
        customdata=hover,
        hovertemplate="sentence %{x}: courtesy %{y:.2f}<br>%{customdata}<extra></extra>",
    )
    fig.add_scatter(x=frame["sentence"], y=frame["sentiment"], mode="markers", name="sentiment (-1..1)",
                    marker={"size": 11, "color": _REFERENCE_COLOR, "symbol": "diamond"}, customdata=hover,
                    hovertemplate="sentence %{x}: sentiment %{y:.2f}<br>%{customdata}<extra></extra>")  # fmt: skip
    fig.add_hline(y=threshold, line_dash="dot", line_color="#7f8c8d", annotation_text=f"courteous at {threshold:g}")
    fig.update_layout(
        title={"text": "Courtesy and sentiment per sentence"},
        xaxis={"title": {"text": "sentence"}, "tickmode": "linear" if len(frame) <= 30 else "auto", "dtick": 1},
        yaxis={"title": {"text": "courtesy / sentiment"}, "range": [-1.05, 1.05], "zeroline": True},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "xanchor": "left", "x": 0},
        margin={"t": 50, "b": 40, "l": 50, "r": 20},
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
            x=[0.0 if math.isnan(v) else v for v in values],
            y=algorithms,
            orientation="h",
            marker={"color": colors},
            text=[f"{v:.3f}" if not math.isnan(v) else "n/a (too long)" for v in values],
            textposition="outside",
            cliponaxis=False,  # a label past the axis end (a bar of 1.000) is drawn, not cut off
            hovertemplate="%{y}: %{text}<extra></extra>",
            name="similarity",
        )
    )
    fig.update_layout(
        title="Every algorithm on the processed texts",
        xaxis={
            "title": "similarity (1 = identical characters; e5: 1 = the same meaning)",
            "range": [0, 1.2],
            "tickvals": [0, 0.25, 0.5, 0.75, 1],
        },
        yaxis={"autorange": "reversed", "automargin": True},
        margin={"t": 50, "b": 40, "l": 10, "r": 50},
        uniformtext={"minsize": 11, "mode": "show"},
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


def histogram_bins(values: Sequence[float], *, nbins: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Return (counts, edges) of ``nbins`` equal bins over [0, top], the last bin closed on both sides.

    ``top`` is the scale: 1, or the largest value if that is larger (a scorer with ``scale`` > 1); the bins
    start below 0 only for a value below 0. Every value lands in exactly one bin, so the counts add up to
    ``len(values)``: a score of exactly 0.0 is in the first bin and one of exactly ``top`` in the last.

    >>> counts, edges = histogram_bins([0.0, 0.5, 1.0, 1.0], nbins=4)
    >>> counts.tolist(), edges.tolist()
    ([1, 0, 1, 2], [0.0, 0.25, 0.5, 0.75, 1.0])
    """
    data = np.asarray(values, dtype=float)
    if not np.isfinite(data).all():
        raise InputError("values must be finite numbers; got NaN or infinity (leave rows without a score out).")
    low = min(0.0, float(data.min()) if data.size else 0.0)
    top = max(1.0, float(data.max()) if data.size else 1.0)
    counts, edges = np.histogram(data, bins=nbins, range=(low, top))  # numpy's last bin is [a, b]: top is in it
    return counts, edges


def score_histogram_figure(
    df: pd.DataFrame, *, column: str, group: str | None = None, nbins: int = 20, title: str | None = None
) -> go.Figure:
    """Return a histogram of one score column (rows without a score are left out), groups side by side in each bin.

    The bars are counted here (:func:`histogram_bins`, the same bins for every group), not by plotly.js,
    so what is drawn is what is tested: the bars of each group add up to its rows.
    """
    scores = pd.to_numeric(df[column], errors="coerce")
    data = df[scores.notna()]
    _, edges = histogram_bins(scores.dropna().tolist(), nbins=nbins)
    width = float(edges[1] - edges[0])
    fig = go.Figure()
    parts = list(_groups(data, group))
    slot = width / len(parts) if parts else width  # groups side by side within each bin, never drawn over each other
    for i, (name, part) in enumerate(parts):
        counts, _ = np.histogram(pd.to_numeric(part[column]).to_numpy(dtype=float), bins=edges)
        ranges = [f"{a:.2f}–{b:.2f}" for a, b in itertools.pairwise(edges)]
        fig.add_trace(
            go.Bar(
                x=edges[:-1].tolist(),
                y=counts.tolist(),
                width=slot,
                offset=i * slot,
                name=name,
                customdata=ranges,
                marker={"color": _GROUP_COLORS[i % len(_GROUP_COLORS)], "line": {"width": 0}},
                hovertemplate=f"{name}<br>score %{{customdata}}<br>%{{y}} rows<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"{html.escape(title or column)} (n={len(data)})",
        barmode="overlay",
        bargap=0,
        xaxis={"title": "score", "range": [float(edges[0]), float(edges[-1])]},
        yaxis={"title": "rows"},
        showlegend=group is not None,
        legend=_TOP_LEGEND,
        margin={"t": 70, "b": 40, "l": 50, "r": 10},
    )
    return fig


def sentiment_similarity_figure(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    group: str | None = None,
    label: str | None = None,
    titles: tuple[str, str] | None = None,
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
        xaxis={"title": html.escape(titles[0] if titles else x), "zeroline": True, "zerolinecolor": "#d5d8dc"},
        yaxis={"title": html.escape(titles[1] if titles else y)},
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
        raise InputError(f"curve needs the columns threshold, precision, recall; missing {sorted(missing)}.")
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


def run_trend_figure(trend: pd.DataFrame) -> go.Figure:
    """Return each scorer's mean over a name's runs, with its 95% CI as error bars, oldest run first.

    Args:
        trend: :meth:`scoring.runs.RunStore.trend` output (run_id, name, created_at, scorer, mean, ci_low,
            ci_high, count, lower_is_better).
    """
    fig = go.Figure()
    name = html.escape(str(trend["name"].iloc[0])) if len(trend) else ""
    for i, (scorer, part) in enumerate(trend.groupby("scorer", sort=False)):
        mean = part["mean"].astype(float)
        better = "lower" if bool(part["lower_is_better"].iloc[0]) else "higher"
        fig.add_trace(
            go.Scatter(
                x=part["created_at"].tolist(),
                y=mean.tolist(),
                mode="lines+markers",
                name=f"{html.escape(str(scorer))} ({better} is better)",
                marker={"color": _GROUP_COLORS[i % len(_GROUP_COLORS)], "size": 9},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": (part["ci_high"].astype(float) - mean).fillna(0).tolist(),
                    "arrayminus": (mean - part["ci_low"].astype(float)).fillna(0).tolist(),
                },
                customdata=part[["run_id", "ci_low", "ci_high", "count"]].to_numpy().tolist(),
                hovertemplate="run %{customdata[0]} · %{x|%Y-%m-%d %H:%M} UTC<br>mean %{y:.3f} (95% CI "
                "%{customdata[1]:.3f} to %{customdata[2]:.3f})<br>n=%{customdata[3]}<extra></extra>",
            )
        )
    runs = trend["run_id"].nunique() if len(trend) else 0
    if runs == 1:  # one point: a day either side, not an axis of milliseconds
        when = pd.Timestamp(trend["created_at"].iloc[0])
        fig.update_xaxes(range=[when - pd.Timedelta(days=1), when + pd.Timedelta(days=1)])
    fig.update_layout(
        title=f"{name}: mean score per run (95% CI), {runs} run{'s' if runs != 1 else ''}",
        xaxis={"title": "run time (UTC)"},
        yaxis={"title": "mean score", "rangemode": "tozero"},
        legend=_TOP_LEGEND,
        margin={"t": 70, "b": 40, "l": 50, "r": 10},
    )
    return fig


def _roc(labels: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """False- and true-positive rates at every distinct score, from calling every row "yes" down to none."""
    order = np.argsort(-scores, kind="stable")
    y = labels[order]
    last = np.r_[np.flatnonzero(np.diff(scores[order]) != 0), y.size - 1]
    tp, fp = np.cumsum(y)[last], np.cumsum(1 - y)[last]
    positives, negatives = max(y.sum(), 1), max(y.size - y.sum(), 1)
    return np.r_[0.0, fp / negatives], np.r_[0.0, tp / positives]


def agreement_figure(points: pd.DataFrame, *, kind: str, title: str = "") -> go.Figure:
    """Scores against people's labels: ROC curves for yes/no labels, a scatter of score by rating for ratings.

    ``points`` has one row per labelled row and scorer: ``scorer``, ``label`` (1/0 or a rating), ``score``.
    """
    fig = go.Figure()
    for scorer, part in points.groupby("scorer", sort=False):
        labels = part["label"].to_numpy(float)
        scores = part["score"].to_numpy(float)
        if kind == "yes/no":
            fpr, tpr = _roc(labels, scores)
            fig.add_trace(go.Scatter(x=fpr, y=tpr, mode="lines+markers", name=html.escape(str(scorer)),
                                     hovertemplate="false-positive rate %{x:.2f}<br>true-positive rate %{y:.2f}"
                                     "<extra></extra>"))  # fmt: skip
        else:
            fig.add_trace(go.Scatter(x=labels, y=scores, mode="markers", name=html.escape(str(scorer)),
                                     customdata=part["row"], opacity=0.7,
                                     hovertemplate="row %{customdata}<br>rating %{x:g}<br>score %{y:.3f}"
                                     "<extra></extra>"))  # fmt: skip
    if kind == "yes/no":
        fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance", hoverinfo="skip",
                                 line={"dash": "dot", "color": "#95a5a6"}))  # fmt: skip
        fig.update_layout(xaxis_title='false-positive rate (people said "no", score said "yes")',
                          yaxis_title='true-positive rate (people said "yes", score said "yes")',
                          xaxis_range=[0, 1], yaxis_range=[0, 1.02])  # fmt: skip
    else:
        fig.update_layout(xaxis_title="people's rating", yaxis_title="score")
    margin = {"l": 60, "r": 20, "t": 50 if title else 20, "b": 50}
    fig.update_layout(title=html.escape(title), height=380, margin=margin, legend={"orientation": "h", "y": -0.25})
    return fig
