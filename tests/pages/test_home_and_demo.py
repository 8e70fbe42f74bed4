from __future__ import annotations

from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from ui.demo_examples import EXAMPLES

Open = Callable[..., AppTest]
TITLES = {"tone": "Tone", "similarity": "Similarity", "toxicity": "Toxicity"}


def test_home_says_what_the_tool_does_and_links_every_page(open_page: Open) -> None:
    at = open_page()
    assert at.title[0].value == "Tone explorer"
    assert "tone" in at.markdown[0].value
    links = at.get("page_link")
    assert [link.proto.page for link in links] == ["tone", "similarity", "toxicity", "batch", "runs", "demo"]


@pytest.mark.parametrize("page", ["pages/batch.py", "pages/demo.py"])
def test_other_pages_render(open_page: Open, page: str) -> None:
    assert open_page(page).title


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_demo_example_opens_its_page_with_its_text(open_page: Open, example) -> None:  # type: ignore[no-untyped-def]
    at = open_page("pages/demo.py")
    at.button(key=f"demo.open.{example.id}").click().run()
    assert not at.exception
    assert at.title[0].value == TITLES[example.page]
    for key, value in example.state.items():
        assert at.session_state[key] == value
        widget = next(
            (w for w in (*at.text_area, *at.text_input, *at.radio, *at.selectbox, *at.toggle) if w.key == key), None
        )
        assert widget is not None and widget.value == value, key
