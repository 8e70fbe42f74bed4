"""Batch figures: histograms, sentiment vs similarity scatter, group means with CI error bars."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.batch.compare import group_summary
from scoring.charts import group_means_figure, histogram_bins, score_histogram_figure, sentiment_similarity_figure


@pytest.fixture
def table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["v1", "v1", "v1", "<b>v2</b>", "<b>v2</b>", "<b>v2</b>"],
            "output": ["ok", "<script>x</script>", "fine", "great", "good", "nice"],
            "tone-scorer": [0.2, np.nan, 0.4, 0.9, 0.8, 1.0],
            "tone-scorer.avgSentiment": [0.1, np.nan, 0.2, 0.7, 0.6, 0.8],
            "content-similarity-scorer": [0.3, 0.2, 0.1, 0.5, 0.4, 0.6],
        }
    )


def test_histogram_leaves_out_rows_without_a_score(table: pd.DataFrame) -> None:
    fig = score_histogram_figure(table, column="tone-scorer")
    assert len(fig.data) == 1 and sum(fig.data[0].y) == 5
    assert "n=5" in fig.layout.title.text and tuple(fig.layout.xaxis.range) == (0, 1)


def test_histogram_one_trace_per_group_with_escaped_names(table: pd.DataFrame) -> None:
    fig = score_histogram_figure(table, column="tone-scorer", group="model")
    assert [t.name for t in fig.data] == ["v1", "&lt;b&gt;v2&lt;/b&gt;"]
    assert [sum(t.y) for t in fig.data] == [2, 3]
    assert list(fig.data[0].x) == list(fig.data[1].x)  # the same bins for every group
    # side by side in each bin (they were drawn see-through on top of each other, overlaps turning brown)
    one, two = fig.data
    assert one.width == two.width == pytest.approx(0.025) and (one.offset, two.offset) == (0, pytest.approx(0.025))
    assert one.opacity is None and two.opacity is None


def test_histogram_bins_span_zero_to_the_scale_whatever_the_data() -> None:
    fig = score_histogram_figure(pd.DataFrame({"s": [0.2, 0.35, 0.6]}), column="s")  # no 1.0, no 0.0
    assert tuple(fig.layout.xaxis.range) == (0, 1) and list(fig.data[0].x)[:2] == [0.0, 0.05]
    counts, edges = histogram_bins([0.2, 0.35, 0.6], nbins=4)
    assert edges.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0] and counts.tolist() == [1, 1, 1, 0]


def test_histogram_keeps_scores_of_exactly_one_and_zero() -> None:
    # The tone histogram of the sample was titled n=160 but drew 94 rows: every 1.0 fell outside the last bin.
    fig = score_histogram_figure(pd.DataFrame({"s": [1.0] * 66 + [0.0] * 4 + [0.5] * 90}), column="s")
    bars = fig.data[0]
    assert sum(bars.y) == 160 and "n=160" in fig.layout.title.text
    assert (bars.y[0], bars.y[-1]) == (4, 66)
    assert bars.x[-1] + bars.offset < 1.0 <= bars.x[-1] + bars.offset + bars.width + 1e-12  # the last bar ends at 1
    assert fig.layout.xaxis.range[1] == 1.0
    only_ones = score_histogram_figure(pd.DataFrame({"s": [1.0] * 7}), column="s").data[0]
    assert list(only_ones.y) == [0] * 19 + [7]  # all 1.0: one full bar, not an empty chart


_SCORES = st.lists(
    st.one_of(st.sampled_from([0.0, 1.0, 0.05, 0.95, 0.5]), st.floats(0.0, 1.0, allow_nan=False)), max_size=200
)


@settings(max_examples=200, deadline=None)
@given(scores=_SCORES, groups=st.lists(st.sampled_from(["a", "b", "c"]), max_size=200), nbins=st.integers(1, 40))
def test_histogram_bars_add_up_to_n(scores: list[float], groups: list[str], nbins: int) -> None:
    scores = [*scores, 0.0, 1.0]  # both ends present, always
    frame = pd.DataFrame({"s": scores, "g": (groups + ["a"] * len(scores))[: len(scores)]})
    counts, edges = histogram_bins(scores, nbins=nbins)
    assert counts.sum() == len(scores) and (edges[0], edges[-1]) == (0.0, 1.0) and len(counts) == nbins
    assert (counts[0] >= 1) and (counts[-1] >= 1)
    grouped = score_histogram_figure(frame, column="s", group="g", nbins=nbins)
    assert sum(sum(t.y) for t in grouped.data) == len(scores)
    for trace in grouped.data:
        assert sum(trace.y) == int((frame["g"].map(html.escape) == trace.name).sum())


def test_histogram_bins_reach_a_scale_above_one() -> None:
    counts, edges = histogram_bins([0.0, 7.5, 10.0], nbins=10)
    assert (edges[0], edges[-1]) == (0.0, 10.0) and counts.tolist() == [1, 0, 0, 0, 0, 0, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="values must be finite"):
        histogram_bins([0.5, float("nan")])


def test_scatter_points_and_escaped_hover(table: pd.DataFrame) -> None:
    fig = sentiment_similarity_figure(
        table, x="tone-scorer.avgSentiment", y="content-similarity-scorer", group="model", label="output"
    )
    assert sum(len(t.x) for t in fig.data) == 5
    hovers = [c[0] for t in fig.data for c in t.customdata]
    assert "<script>" not in " ".join(hovers)
    assert list(fig.data[1].y) == [0.5, 0.4, 0.6]


def test_group_means_error_bars_reach_the_ci(table: pd.DataFrame) -> None:
    summary = group_summary(table, ["tone-scorer", "content-similarity-scorer"], "model")
    fig = group_means_figure(summary)
    assert len(fig.data) == 2 and list(fig.data[0].x) == ["tone-scorer", "content-similarity-scorer"]
    first = summary.iloc[0]
    assert fig.data[0].y[0] == pytest.approx(first["mean"])
    assert fig.data[0].y[0] + fig.data[0].error_y.array[0] == pytest.approx(first["ci_high"])
    assert fig.data[0].y[0] - fig.data[0].error_y.arrayminus[0] == pytest.approx(first["ci_low"])
