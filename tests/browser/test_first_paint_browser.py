"""A new session's Tone page paints its score before the chart exists, then draws the chart by itself."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from bench.load import FIRST_SCORE_PAINTED_JS
from scoring import create_tone_scorer
from tests.browser.conftest import TONE_SCORE
from ui import DEFAULTS

pytestmark = pytest.mark.browser

# The time the chart's element first entered the page (ms since the epoch), as FIRST_SCORE_PAINTED_JS does for
# the score.
CHART_ATTACHED_JS = """(() => {
  const observer = new MutationObserver(() => {
    if (!document.querySelector('[data-testid="stPlotlyChart"]')) return;
    observer.disconnect();
    window.__chartAttached = performance.timeOrigin + performance.now();
  });
  observer.observe(document, {subtree: true, childList: true});
})();"""


def test_the_score_is_painted_before_the_chart_is_sent_and_the_chart_follows(app_url: str, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        context.add_init_script(FIRST_SCORE_PAINTED_JS)
        context.add_init_script(CHART_ATTACHED_JS)
        page = context.new_page()
        page.goto(f"{app_url}/tone")
        expected = f"{create_tone_scorer().run(output=str(DEFAULTS['tone.text'])).score:.3f}"
        expect(page.locator(TONE_SCORE)).to_have_text(expected)
        # No click, no typing: the chart comes once the browser has painted the score.
        expect(page.locator(".js-plotly-plot .main-svg").first).to_be_visible(timeout=60_000)
        painted, chart = page.evaluate("[window.__firstScorePainted, window.__chartAttached]")
        assert painted is not None and chart is not None
        assert painted < chart, "the chart was on the page before the frame with the score was painted"
        expect(page.get_by_role("tab", name="Highlighted text")).to_be_visible()  # the tabs come with the chart
        expect(page.locator(TONE_SCORE)).to_have_text(expected)
    finally:
        context.close()
