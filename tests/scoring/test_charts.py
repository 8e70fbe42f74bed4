from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import pytest

from scoring import create_tone_scorer
from scoring.charts import LABEL_COLORS, sentence_sentiment_figure, similarity_figure, threshold_tradeoff_figure
from scoring.similarity.explain import similarity_frame
from scoring.similarity.scorer import similarities
from scoring.tone.explain import sentence_frame

DRIFTING = (
    "Hi, thanks for getting in touch, I'm glad to help! Great question about your invoice. "
    "Honestly, this is the third time you have asked. Your complaint is ridiculous and a waste of "
    "our time. Stop wasting my time."
)


def _trace(fig: go.Figure, name: str) -> go.Scatter:
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, [t.name for t in fig.data]
    return matches[0]


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
    frame = sentence_frame(pre["sentences"], pre["engine"])
    assert list(points.marker.color) == [LABEL_COLORS[label] for label in frame["label"]]
    # Each colour drawn has a legend entry (negative points too), and no entry for a colour not drawn.
    legend = [t.name for t in fig.data if t.name in LABEL_COLORS]
    assert legend == [label for label in LABEL_COLORS if label in set(frame["label"])]
    assert all(_trace(fig, label).marker.color == LABEL_COLORS[label] for label in legend)


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
    shifts = _trace(fig, "tone shift")
    expected = frame.loc[frame["tone_shift"], "sentence"].tolist()
    assert shifts.name == "tone shift"
    assert expected  # the drifting reply turns hostile: some sentences are shifts
    assert list(shifts.x) == expected
    assert list(shifts.y) == frame.loc[frame["tone_shift"], "sentiment"].tolist()


def test_comparison_figure_draws_what_the_score_is_made_of() -> None:
    # The score is 1 - |whole reply - reference|: the chart shows those two levels and their difference,
    # not the per-sentence mean (which drew a gap of 0.77 next to a "Difference 0.251").
    reference = "We are happy to help and glad you had a great experience!"
    result = create_tone_scorer(reference).run(output=DRIFTING)
    pre = result.preprocess_step_result
    fig = sentence_sentiment_figure(
        sentence_frame(pre["sentences"]), reference=pre["referenceSentiment"], response=pre["responseSentiment"]
    )
    whole, ref, gap = _shape(fig, "whole reply"), _shape(fig, "reference"), _shape(fig, "difference")
    assert whole.y0 == whole.y1 == pre["responseSentiment"]
    assert ref.y0 == ref.y1 == pre["referenceSentiment"]
    assert (gap.y0, gap.y1) == tuple(sorted((pre["responseSentiment"], pre["referenceSentiment"])))
    assert gap.y1 - gap.y0 == pytest.approx(pre["difference"], abs=1e-12)
    assert f"difference {pre['difference']:.3f}" == gap.label.text
    assert result.score == pytest.approx(1 - (gap.y1 - gap.y0))
    names = [s.name for s in fig.layout.shapes]
    assert "mean" not in names and "±1 std" not in names  # the per-sentence mean is not in this score
    stability = create_tone_scorer().run(output=DRIFTING).preprocess_step_result
    shapes = [s.name for s in sentence_sentiment_figure(sentence_frame(stability["sentences"])).layout.shapes]
    assert "reference" not in shapes and "difference" not in shapes and "mean" in shapes
    with pytest.raises(ValueError, match="reference and response must be given together"):
        sentence_sentiment_figure(sentence_frame(stability["sentences"]), reference=0.5)


def test_sentence_figure_marks_the_sentences_the_engines_disagree_on() -> None:
    text = "Thanks for writing in. You clearly didn't read the terrible instructions. The refund is processed."
    pre = create_tone_scorer().run(output=text).preprocess_step_result
    frame = sentence_frame(pre["sentences"], "vader")
    fig = sentence_sentiment_figure(frame, engine_names=("VADER", "AFINN"))
    marked = _trace(fig, "engines disagree")
    assert list(marked.x) == [2] and marked.y[0] == frame.loc[1, "sentiment"] > 0
    hovers = [row[1] for row in fig.data[0].customdata]
    assert frame.loc[1, "other_sentiment"] < 0
    assert hovers[1] == f"<br>AFINN: {frame.loc[1, 'other_sentiment']:+.3f} — the engines disagree (low confidence)"
    assert hovers[0] == "<br>AFINN: +0.500"
    assert "VADER %{y:+.3f}" in fig.data[0].hovertemplate


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
    assert len(_trace(fig, "tone shift").x) == 0


def test_similarity_figure_has_one_bar_per_algorithm_and_highlights_dice() -> None:
    scores = similarities("the quick brown fox", "a quick brown fox")
    fig = similarity_figure(similarity_frame(scores))
    bar = fig.data[0]
    assert list(bar.y) == list(scores)
    assert list(bar.x) == list(scores.values())
    colors = list(bar.marker.color)
    assert colors[list(scores).index("dice")] != colors[list(scores).index("ratio")]
    # Room for a label past a bar of 1.000, and labels are never cut at the plot's edge.
    assert fig.layout.xaxis.range == (0, 1.2) and bar.cliponaxis is False and bar.textposition == "outside"
    assert fig.layout.yaxis.automargin is True


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


def test_run_trend_figure_has_a_line_per_scorer_with_ci_error_bars() -> None:
    from datetime import UTC, datetime

    from scoring.charts import run_trend_figure

    when = [datetime(2026, 1, d, tzinfo=UTC) for d in (1, 2)]
    trend = pd.DataFrame({
        "run_id": [1, 1, 2, 2], "name": ["<b>nightly</b>"] * 4, "created_at": [when[0], when[0], when[1], when[1]],
        "scorer": ["tone-scorer", "toxicity-scorer"] * 2, "mean": [0.8, 0.1, 0.7, 0.2], "ci_low": [0.7, 0.05, 0.6, 0.1],
        "ci_high": [0.9, 0.15, 0.8, 0.3], "count": [10] * 4, "lower_is_better": [False, True] * 2,
    })  # fmt: skip
    fig = run_trend_figure(trend)
    assert [t.name for t in fig.data] == ["tone-scorer (higher is better)", "toxicity-scorer (lower is better)"]
    tone = fig.data[0]
    assert list(tone.y) == [0.8, 0.7] and list(tone.x) == when
    assert list(tone.error_y.array) == pytest.approx([0.1, 0.1])
    assert list(tone.error_y.arrayminus) == pytest.approx([0.1, 0.1])
    assert "&lt;b&gt;nightly&lt;/b&gt;" in fig.layout.title.text and "2 runs" in fig.layout.title.text
    assert run_trend_figure(trend.iloc[:0]).data == ()


@pytest.mark.parametrize("engine", ["vader", "afinn", "e5", "e5-lite"])
@pytest.mark.parametrize("mode", ["stability", "comparison"])
@pytest.mark.parametrize("text", [DRIFTING, "Fine.", 'Great <b>"work"</b> & more! ' * 30 + "Awful."])
def test_sentence_figure_is_what_plotlys_validation_makes_of_it(engine: str, mode: str, text: str) -> None:
    """The figure is built without plotly's validation (it was most of a dashboard update's time): every value
    must already be in the form validation gives it, so the JSON the browser gets is the same."""
    import json

    reference = "We are happy to help!" if mode == "comparison" else None
    pre = create_tone_scorer(reference, engine=engine).run(output=text).preprocess_step_result
    fig = sentence_sentiment_figure(
        sentence_frame(pre["sentences"], engine),  # type: ignore[arg-type]
        reference=pre.get("referenceSentiment"),  # type: ignore[arg-type]
        response=pre.get("responseSentiment"),  # type: ignore[arg-type]
        title="Tone <i>chart</i>",
        y_label="VADER compound",
        engine_names=("VADER", "AFINN") if engine != "e5" else None,
    )
    validated = go.Figure(fig.to_dict())  # plotly's validators coerce every property they are given
    assert json.loads(fig.to_json()) == json.loads(validated.to_json())


def test_the_similarity_axis_and_e5_note_do_not_call_a_paraphrase_identical() -> None:
    # e5 gives 1.000 to a paraphrase (its rescaled cosine is capped): the axis once read "1 = identical"
    fig = similarity_figure(similarity_frame({"dice": 0.4, "e5": 1.0}))
    assert fig.layout.xaxis.title.text == "similarity (1 = identical characters; e5: 1 = the same meaning)"
    assert similarity_frame({"e5": 1.0}).loc[0, "what it measures"].endswith("1 = the same meaning, not the same text")


def test_sentence_courtesy_figure_draws_courtesy_beside_sentiment_and_the_threshold() -> None:
    from scoring.charts import sentence_courtesy_figure

    frame = pd.DataFrame({"sentence": [1, 2], "text": ["Sorry, it is lost.", "Stop asking."],
                          "sentiment": [-0.5, 0.0], "courtesy": [0.9, 0.02]})  # fmt: skip
    fig = sentence_courtesy_figure(frame, threshold=0.6)
    bars, points = fig.data
    assert list(bars.y) == [0.9, 0.02] and list(points.y) == [-0.5, 0.0]
    assert fig.layout.shapes[0].y0 == 0.6 and "courteous at 0.6" in fig.layout.annotations[0].text
    with pytest.raises(ValueError, match="frame must have a 'courtesy' column"):
        sentence_courtesy_figure(frame.drop(columns="courtesy"))
