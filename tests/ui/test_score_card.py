"""ui.score_card draws its number as HTML: only a number this app formatted (or "—") may get there."""

from __future__ import annotations

import pytest

from ui.widgets import SHOWN_NUMBER, score_card


@pytest.mark.parametrize("value", ["0.693", "1.000", "0.00", "-0.250", "12", "—"])
def test_score_card_accepts_formatted_numbers(value: str) -> None:
    assert SHOWN_NUMBER.fullmatch(value)


@pytest.mark.parametrize("value", ["", "0.5<img src=x>", "<b>1</b>", "1e3", "0.5 ", "nan", "[x](https://a.io)"])
def test_score_card_refuses_anything_else_before_drawing(value: str) -> None:
    with pytest.raises(ValueError, match="value must be a formatted number"):
        score_card("Tone score", value, "help", key="test.score")
