from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

import ui
from scoring import create_tone_scorer
from scoring.tone.explain import tone_band
from tests.pages.conftest import metrics, plain

TONE = "pages/tone.py"
Open = Callable[..., AppTest]


def test_tone_page_scores_the_default_text(open_page: Open) -> None:
    at = open_page(TONE)
    expected = create_tone_scorer().run(output=ui.DEFAULTS["tone.text"])
    shown = metrics(at)
    assert shown["Tone score"] == f"{expected.score:.3f}"
    assert shown["Average sentiment"] == f"{expected.analyze_step_result['avgSentiment']:.3f}"
    assert shown["Sentences"] == str(len(expected.preprocess_step_result["sentences"]))
    band = tone_band(expected.score)
    assert f":{band.color}-badge[{band.label}]" in [m.value for m in at.markdown]
    assert band.description.capitalize() in [c.value for c in at.caption]
    assert at.get("plotly_chart")


def test_tone_page_afinn_and_mastra_splitter_give_mastras_number(open_page: Open) -> None:
    at = open_page(TONE)
    at.text_area(key="tone.text").set_value("It was great. Thanks!")
    at.selectbox(key="tone.engine").set_value("afinn")
    at.selectbox(key="tone.splitter").set_value("mastra").run()
    assert not at.exception
    assert metrics(at)["Tone score"] == "0.750"  # the docstring's (and Mastra's) value


def test_tone_page_comparison_mode_shows_the_reference_metrics(open_page: Open) -> None:
    at = open_page(TONE)
    at.radio(key="tone.mode").set_value("comparison").run()
    text, reference = ui.DEFAULTS["tone.text"], ui.DEFAULTS["tone.reference"]
    expected = create_tone_scorer(reference).run(output=text).analyze_step_result  # type: ignore[arg-type]
    shown = metrics(at)
    assert shown["Response sentiment"] == f"{expected['responseSentiment']:.3f}"
    assert shown["Reference sentiment"] == f"{expected['referenceSentiment']:.3f}"
    assert shown["Difference"] == f"{expected['difference']:.3f}"
    assert "Average sentiment" not in shown


def test_tone_page_shows_both_engines_on_request(open_page: Open) -> None:
    at = open_page(TONE)
    at.toggle(key="tone.both_engines").set_value(True).run()
    text = ui.DEFAULTS["tone.text"]
    shown = metrics(at)
    for engine, label in ui.ENGINE_LABELS.items():
        assert shown[label] == f"{create_tone_scorer(engine=engine).run(output=text).score:.3f}"
    assert len(at.get("plotly_chart")) == 3


def test_tone_page_asks_for_text_when_empty(open_page: Open) -> None:
    at = open_page(TONE)
    at.text_area(key="tone.text").set_value("   ").run()
    assert not at.exception and not at.metric
    assert "Paste a response" in at.info[0].value


def test_tone_page_highlights_escaped_text_and_exports_mastras_shape(open_page: Open) -> None:
    at = open_page(TONE, state={"tone.text": "I love it. This is <b>awful</b> [x](javascript:y)."})
    highlight = next(m.value for m in at.markdown if "-background[" in m.value and "love" in m.value)
    assert ":green-background[I love it\\.]" in highlight
    assert "\\<b\\>awful\\<\\/b\\> \\[x\\]\\(javascript\\:y\\)" in highlight
    exported = json.loads(at.json[0].value)
    assert {"runId", "scorerId", "preprocessStepResult", "analyzeStepResult", "score"} <= set(exported)
    assert exported["scorerId"] == "tone-scorer"
    assert exported["preprocessStepResult"]["sentences"][0]["text"] == "I love it."


def test_tone_page_lists_the_word_drivers(open_page: Open) -> None:
    at = open_page(TONE, state={"tone.text": "It was not good. The staff were great!", "tone.engine": "afinn"})
    drivers = at.dataframe[1].value
    assert drivers.values.tolist() == [[1, "good", -3.0], [2, "great", 3.0]]


def test_tone_page_upload_fills_the_text(open_page: Open) -> None:
    at = open_page(TONE)
    at.file_uploader(key="tone.upload").set_value(("reply.md", b"# Hi\nThanks, that is great!", "text/markdown"))
    at.run()
    assert not at.exception
    assert at.text_area(key="tone.text").value == "# Hi\nThanks, that is great!"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe\x00h\x00i", "looks binary"),
        ("café".encode("latin-1"), "is not UTF-8 text"),
        (b"x" * 20_001, "characters long; at most 20,000"),
    ],
)
def test_tone_page_rejects_unusable_uploads_with_a_clear_message(open_page: Open, content: bytes, message: str) -> None:
    at = open_page(TONE)
    at.file_uploader(key="tone.upload").set_value(("reply.txt", content, "text/plain")).run()
    assert not at.exception
    assert any(message in plain(e.value) and "reply.txt" in plain(e.value) for e in at.error)
    assert at.text_area(key="tone.text").value == ui.DEFAULTS["tone.text"]


def test_tone_page_shows_result_warnings(open_page: Open, monkeypatch: pytest.MonkeyPatch) -> None:
    real = ui.tone_result

    def with_warning(*args: object) -> dict[str, object]:
        return {**real(*args), "warnings": ["text looks like German; the engine covers English only."]}

    monkeypatch.setattr(ui, "tone_result", with_warning)
    at = open_page(TONE)
    assert "German" in plain(at.warning[0].value)


def test_tone_page_shows_bad_input_as_an_error_not_a_traceback(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bad(*args: object) -> None:
        raise ValueError("output must be a string; got bytes.")

    monkeypatch.setattr(ui, "tone_result", bad)
    at = open_page(TONE)
    assert not at.exception
    assert plain(at.error[0].value) == "output must be a string; got bytes."
    assert not at.metric


def test_tone_settings_survive_a_trip_to_another_page(open_page: Open) -> None:
    at = open_page(TONE)
    at.text_area(key="tone.text").set_value("Kept across pages. Really!")
    at.radio(key="tone.mode").set_value("comparison")
    at.selectbox(key="tone.engine").set_value("afinn").run()
    at.switch_page("pages/similarity.py").run()
    at.switch_page(TONE).run()
    assert at.text_area(key="tone.text").value == "Kept across pages. Really!"
    assert at.radio(key="tone.mode").value == "comparison"
    assert at.selectbox(key="tone.engine").value == "afinn"
