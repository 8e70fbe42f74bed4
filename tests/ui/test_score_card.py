"""ui.score_card draws its number as a markdown heading: only a number this app formatted (or "—") may get there,
and the card needs none of the markdown plugins Streamlit's frontend loads lazily (so it is painted sooner)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.widgets import SCORE_VALUE_PATTERN, SHOWN_NUMBER, score_card

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"
# When Streamlit 1.67's frontend loads a plugin chunk for a markdown element (StreamlitMarkdown.js): rehype-raw for
# allow_html, remark-emoji for a shortcode (this regex), rehype-katex for "$" math (any "$" here counts).
EMOJI_SHORTCODE = re.compile(r":(?!material/|streamlit:)[\w+-][\w_+-]*:")


@pytest.mark.parametrize("value", ["0.693", "1.000", "0.00", "-0.250", "12", "—"])
def test_score_card_accepts_formatted_numbers(value: str) -> None:
    assert SHOWN_NUMBER.fullmatch(value)


@pytest.mark.parametrize("value", ["", "0.5<img src=x>", "<b>1</b>", "1e3", "0.5 ", "nan", "[x](https://a.io)"])
def test_score_card_refuses_anything_else_before_drawing(value: str) -> None:
    with pytest.raises(ValueError, match="value must be a formatted number"):
        score_card("Tone score", value, "help", key="test.score")


def _card_app() -> None:
    from ui.widgets import score_card

    score_card("Tone score: the headline", "-0.693", "1 = perfectly consistent tone; 0 = completely different tones",
               key="test.score")  # fmt: skip


def test_score_card_is_plain_markdown_that_needs_no_lazily_loaded_plugin() -> None:
    at = AppTest.from_function(_card_app).run()
    assert not at.exception
    label, value = at.markdown[0], at.markdown[1]
    assert SCORE_VALUE_PATTERN.fullmatch(value.value)[1] == "-0.693"  # type: ignore[index]
    for element in (label, value):
        assert element.proto.allow_html is False
        for text in (element.value, element.proto.help):
            assert "$" not in text
            assert not EMOJI_SHORTCODE.search(text), text


def test_the_theme_draws_the_card_heading_as_st_metric_draws_its_value() -> None:
    theme = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["theme"]
    # h1-h5: Streamlit's defaults (its theme.headingFontSizes / headingFontWeights docs); h6: st.metric's value
    # (theme.fontSizes.metricValueFontSize, normal weight), which only score cards use.
    assert theme["headingFontSizes"] == ["2.75rem", "2.25rem", "1.75rem", "1.5rem", "1.25rem", "2.25rem"]
    assert theme["headingFontWeights"] == [700, 600, 600, 600, 600, 400]
    assert SCORE_VALUE_PATTERN.pattern.startswith(re.escape("###### "))


def test_the_theme_offers_light_dark_and_the_browsers_choice() -> None:
    # A light and a dark variant and no fixed base: the menu offers System, Light and Dark (System follows the
    # browser's preference); a fixed base = "light" ignored a browser that prefers dark.
    theme = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["theme"]
    assert "base" not in theme
    for variant in ("light", "dark"):
        assert set(theme[variant]) >= {"primaryColor", "backgroundColor", "secondaryBackgroundColor", "textColor"}
    assert theme["dark"]["backgroundColor"] != theme["light"]["backgroundColor"]
