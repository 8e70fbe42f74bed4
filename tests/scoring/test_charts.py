from __future__ import annotations

import math

import plotly.graph_objects as go
import pytest

from scoring import create_tone_scorer
from scoring.charts import sentence_sentiment_figure, similarity_figure, threshold_tradeoff_figure
from scoring.similarity.explain import similarity_frame
from scoring.similarity.scorer import similarities
from scoring.tone.explain import sentence_frame

DRIFTING = (
    "Hi, thanks for getting in touch, I'm glad to help! Great question about your invoice. "
    "Honestly, this is the third time you have asked. Your complaint is ridiculous and a waste of "
    "our time. Stop wasting my time."
)


def _shape(fig: go.Figure, name: str) -> go.layout.Shape:
    matches = [s for s in fig.layout.shapes if s.name == name]
    assert len(matches) == 1, [s.name for s in fig.layout.shapes]
    return matches[0]


@pytest.fixture(params=["vader", "afinn"])
def stability(request: pytest.FixtureRequest) -> tuple[dict[str, object], go.Figure]:
    pre = dict(create_tone_scorer(engine=request.param).run(output=DRIFTING).preprocess_step_result)
    pre["engine"] = request.param
    return pre, sentence_sentiment_figure(sentence_frame(pre["sentences"], request.param))


def test_sentence_figure_has_one_point_per_sentence_coloured_by_sentiment(stability: tuple[dict, go.Figure]) -> None:
    pre, fig = stability
    points = fig.data[0]
    sentiments = [s["sentiment"] for s in pre["sentences"]]
    assert (points.type, points.name) == ("scatter", "sentence")
    assert "markers" in points.mode
    assert list(points.x) == list(range(1, len(sentiments) + 1))
    assert list(points.y) == sentiments
    assert list(points.marker.color) == sentiments
    assert points.marker.cmid == 0


def test_sentence_figure_mean_line_sits_at_the_scorers_average(stability: tuple[dict, go.Figure]) -> None:
    pre, fig = stability
    mean = _shape(fig, "mean")
    assert mean.type == "line"
    assert mean.y0 == mean.y1 == pytest.approx(pre["avgSentiment"], abs=1e-12)
    assert (mean.xref, mean.x0, mean.x1) == ("paper", 0, 1)


def test_sentence_figure_band_is_one_std_of_the_scorers_variance(stability: tuple[dict, go.Figure]) -> None:
    pre, fig = stability
    band = _shape(fig, "±1 std")
    std = math.sqrt(pre["sentimentVariance"])
    assert band.type == "rect"
    assert band.y0 == pytest.approx(pre["avgSentiment"] - std, abs=1e-12)
    assert band.y1 == pytest.approx(pre["avgSentiment"] + std, abs=1e-12)


def test_sentence_figure_marks_the_tone_shifts(stability: tuple[dict, go.Figure]) -> None:
    pre, fig = stability
    frame = sentence_frame(pre["sentences"], pre["engine"])
    shifts = fig.data[1]
    expected = frame.loc[frame["tone_shift"], "sentence"].tolist()
    assert shifts.name == "tone shift"
    assert expected  # the drifting reply turns hostile: some sentences are shifts
    assert list(shifts.x) == expected
    assert list(shifts.y) == frame.loc[frame["tone_shift"], "sentiment"].tolist()


def test_sentence_figure_reference_line_only_in_comparison_mode() -> None:
    reference = "We are happy to help and glad you had a great experience!"
    pre = create_tone_scorer(reference).run(output=DRIFTING).preprocess_step_result
    fig = sentence_sentiment_figure(sentence_frame(pre["sentences"]), reference=pre["referenceSentiment"])
    line = _shape(fig, "reference")
    assert line.y0 == line.y1 == pre["referenceSentiment"]
    stability = create_tone_scorer().run(output=DRIFTING).preprocess_step_result
    assert "reference" not in [
        s.name for s in sentence_sentiment_figure(sentence_frame(stability["sentences"])).layout.shapes
    ]


def test_sentence_figure_hover_shows_the_sentence_escaped() -> None:
    text = "I <b>love</b> it & more. It is <script>alert(1)</script> bad."
    pre = create_tone_scorer().run(output=text).preprocess_step_result
    fig = sentence_sentiment_figure(sentence_frame(pre["sentences"]))
    hover = [row[0] for row in fig.data[0].customdata]
    assert hover[0] == "I &lt;b&gt;love&lt;/b&gt; it &amp; more."
    assert all("<script>" not in h and "<b>" not in h for h in hover)
    assert "%{customdata[0]}" in fig.data[0].hovertemplate


def test_sentence_figure_single_sentence_has_zero_width_band_and_no_shift() -> None:
    pre = create_tone_scorer().run(output="Great!").preprocess_step_result
    fig = sentence_sentiment_figure(sentence_frame(pre["sentences"]))
    band = _shape(fig, "±1 std")
    assert band.y0 == band.y1 == pre["avgSentiment"]
    assert len(fig.data[1].x) == 0


def test_similarity_figure_has_one_bar_per_algorithm_and_highlights_dice() -> None:
    scores = similarities("the quick brown fox", "a quick brown fox")
    fig = similarity_figure(similarity_frame(scores))
    bar = fig.data[0]
    assert list(bar.y) == list(scores)
    assert list(bar.x) == list(scores.values())
    colors = list(bar.marker.color)
    assert colors[list(scores).index("dice")] != colors[list(scores).index("ratio")]
    assert fig.layout.xaxis.range == (0, 1.12)


def test_similarity_figure_labels_an_algorithm_that_was_not_computed() -> None:
    frame = similarity_frame({"dice": 0.5, "partial_ratio": float("nan")})
    assert "not computed" in frame.loc[1, "what it measures"]
    assert similarity_figure(frame).data[0].text[1] == "n/a (too long)"


def test_threshold_tradeoff_figure_plots_precision_and_recall_and_marks_the_thresholds() -> None:
    from scoring.toxicity.e5 import fresh_curve

    curve = fresh_curve()
    fig = threshold_tradeoff_figure(curve, threshold=0.5, default=0.75)
    assert [t.name for t in fig.data] == ["precision", "recall"]
    assert list(fig.data[0].x) == curve["threshold"].tolist() and list(fig.data[1].y) == curve["recall"].tolist()
    assert {s.name: s.x0 for s in fig.layout.shapes} == {"threshold": 0.5, "default": 0.75}
    assert "512 sentences" in fig.layout.title.text
    same = threshold_tradeoff_figure(curve, threshold=0.75, default=0.75)
    assert [s.name for s in same.layout.shapes] == ["threshold"]  # one line when the default is in use


def test_threshold_tradeoff_figure_names_missing_columns() -> None:
    import pandas as pd

    with pytest.raises(ValueError, match=r"missing \['recall'\]"):
        threshold_tradeoff_figure(pd.DataFrame({"threshold": [0.5], "precision": [1.0]}), threshold=0.5)
