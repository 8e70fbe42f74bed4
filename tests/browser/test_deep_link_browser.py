"""A share link opened on a freshly started server is the first thing it serves: it opens under app.py.

Until app.py's ``st.navigation`` has run once on a server, Streamlit runs a link straight to a page in
its old pages-folder mode (the page alone: raw file names as navigation, no wide layout). The session
fixture's server is warmed up at its root; this test starts its own server and opens a link first.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, expect

from bench.server import streamlit_server
from scoring import create_tone_scorer
from tests.browser.conftest import TONE_SCORE

pytestmark = pytest.mark.browser
TEXT = "Thanks so much for waiting. Sadly the parcel was lost. We are sending a new one today!"


def test_a_share_link_to_a_fresh_server_opens_its_page_under_the_router(browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        with streamlit_server(timeout=60) as server:
            page = context.new_page()
            page.goto(f"{server.url}/tone?{urlencode({'text': TEXT, 'mode': 'stability'})}")
            nav = page.locator('[data-testid="stSidebarNav"]')
            expect(nav.get_by_text("Score one text")).to_be_visible(timeout=60_000)  # app.py's sections
            expect(nav.get_by_role("link", name="app", exact=True)).to_have_count(0)  # not the pages folder
            expect(page.locator("h1").filter(has_text="Tone")).to_be_visible()
            expect(page.locator(".st-key-tone-text textarea")).to_have_value(TEXT)  # the link's text
            score = f"{create_tone_scorer().run(output=TEXT).score:.3f}"
            expect(page.locator(TONE_SCORE)).to_have_text(score)
            assert "text=" in page.url and "/tone" in page.url  # the address still holds the link
    finally:
        context.close()
