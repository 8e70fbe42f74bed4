"""A tone engine is added in one place: a toy engine registered here is offered by the CLI and the Tone page.

Nothing else is told about it: its facts (label, axis label, languages, threshold, driver note) reach every
table that names engines, and its numbers are the ones the page and the CLI show.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import ui
from scoring import create_tone_scorer
from scoring.cli.main import build_parser, main
from scoring.registry import TONE
from scoring.tone.engines import EngineFacts, get_engine, register_engine, unregister_engine
from scoring.tone.explain import SENTIMENT_THRESHOLDS, sentiment_label
from tests.pages.conftest import metrics

SAMPLE = Path(__file__).resolve().parents[2] / "scoring" / "data" / "sample_responses.csv"
TONE_PAGE = "pages/tone.py"


class ToyEngine:
    """Polarity: (words with "!" - words with "?") / words, in [-1, 1]."""

    name = "toy"
    description = "exclamations minus questions, per word"
    facts = EngineFacts(
        label="Toy (punctuation)",
        axis_label="toy polarity",
        languages=frozenset({"en"}),
        threshold=0.2,
        lexicon=True,
        driver_note="Toy: each word with ! counts +1, with ? -1.",
    )

    def polarity(self, text: str) -> float:
        words = text.split()
        return (sum("!" in w for w in words) - sum("?" in w for w in words)) / len(words) if words else 0.0

    def polarities(self, texts: Sequence[str]) -> list[float]:
        return [self.polarity(t) for t in texts]

    def explain(self, text: str) -> list[tuple[str, float]]:
        return [(w, 1.0 if "!" in w else -1.0) for w in text.split() if "!" in w or "?" in w]


@pytest.fixture
def toy() -> Iterator[None]:
    register_engine(ToyEngine)
    yield
    unregister_engine("toy")


@pytest.mark.usefixtures("toy")
def test_the_toy_engine_is_in_every_table() -> None:
    assert list(TONE.engines) == ["vader", "afinn", "e5", "e5-lite", "toy"]
    assert TONE.engines["toy"] == "Toy (punctuation)" and TONE.engine_name("toy") == "Toy"
    assert "toy" not in TONE.slow_engines
    assert ui.Y_LABELS["toy"] == "toy polarity" and ui.DRIVER_NOTES["toy"].startswith("Toy:")
    assert SENTIMENT_THRESHOLDS["toy"] == 0.2 and sentiment_label(0.1, "toy") == "neutral"
    assert isinstance(get_engine("toy"), ToyEngine)
    # Two sentences: "Great! Thanks!" (2 of 2 words) and "Why? Really?" (-2 of 2): mean 0, variance 1.
    result = create_tone_scorer(engine="toy").run(output="Great! Thanks! Why? Really?")
    assert result.score == 0.0 and result.preprocess_step_result["avgSentiment"] == 0.0


def test_the_toy_engine_leaves_no_trace_once_unregistered() -> None:
    register_engine(ToyEngine)
    unregister_engine("toy")
    assert list(TONE.engines) == ["vader", "afinn", "e5", "e5-lite"]
    with pytest.raises(ValueError, match="engine must be one of"):
        create_tone_scorer(engine="toy")


@pytest.mark.usefixtures("toy")
def test_the_cli_offers_and_uses_the_toy_engine(tmp_path: Path) -> None:
    engine_option = next(a for a in build_parser()._subparsers._group_actions[0].choices["evaluate"]._actions  # type: ignore[union-attr]
                         if "--engine" in a.option_strings)  # fmt: skip
    assert "toy" in engine_option.choices
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "scored.csv"
    code = main(["evaluate", str(SAMPLE), "--scorers", "tone", "--engine", "toy", "--no-reference", "--out",
                 str(target), "--no-progress"], out=out, err=err)  # fmt: skip
    assert code == 0, err.getvalue()
    scored = pd.read_csv(target).dropna(subset=["tone-scorer"])  # rows without an output are skipped
    assert len(scored) > 10
    scorer = create_tone_scorer(engine="toy")
    expected = [scorer.run(output=text).score for text in scored["output"]]
    assert scored["tone-scorer"].tolist() == pytest.approx(expected, abs=1e-12)
    assert len(set(expected)) > 1  # the toy engine's numbers, not a constant


@pytest.mark.usefixtures("toy")
def test_the_tone_page_offers_and_uses_the_toy_engine(open_page: Callable[..., AppTest]) -> None:
    text = "Great! Thanks! Why? Really?"
    at = open_page(TONE_PAGE, state={"tone.text": text})
    engine = at.selectbox(key="tone.engine")
    assert "toy" in engine.options or "Toy (punctuation)" in engine.options
    engine.set_value("toy").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = metrics(at)
    expected = create_tone_scorer(engine="toy").run(output=text)
    assert shown["Average sentiment"] == f"{expected.preprocess_step_result['avgSentiment']:.3f}"
    assert ToyEngine.facts.driver_note in [c.value for c in at.caption]
