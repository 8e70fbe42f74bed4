"""Batch figures: histograms, sentiment vs similarity scatter, group means with CI error bars."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scoring.batch.compare import group_summary
from scoring.charts import group_means_figure, score_histogram_figure, sentiment_similarity_figure


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
    assert len(fig.data) == 1 and len(fig.data[0].x) == 5
    assert "n=5" in fig.layout.title.text and tuple(fig.layout.xaxis.range) == (0, 1)


def test_histogram_one_trace_per_group_with_escaped_names(table: pd.DataFrame) -> None:
    fig = score_histogram_figure(table, column="tone-scorer", group="model")
    assert [t.name for t in fig.data] == ["v1", "&lt;b&gt;v2&lt;/b&gt;"]
    assert [len(t.x) for t in fig.data] == [2, 3]


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
