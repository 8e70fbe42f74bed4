"""A new session's Tone page paints its score before the chart exists, then draws the chart by itself."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, expect

from bench.load import FIRST_SCORE_PAINTED_JS
from scoring import create_tone_scorer
from tests.browser.conftest import SCREENSHOTS, TONE_SCORE
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


# The markdown plugin chunks Streamlit's frontend fetches when an element needs them (rehype-raw for HTML,
# remark-emoji, rehype-katex), as the page had fetched them when the score first entered it.
PLUGINS_AT_SCORE_JS = """(() => {
  const observer = new MutationObserver(() => {
    if (!document.querySelector(SCORE)) return;
    observer.disconnect();
    window.__pluginsAtScore = performance.getEntriesByType("resource").map((e) => e.name.split("/").pop())
      .filter((name) => /^(rehype-raw|remark-emoji|rehype-katex)\\./.test(name));
  });
  observer.observe(document, {subtree: true, childList: true});
})();""".replace("SCORE", json.dumps(TONE_SCORE))


def test_a_new_viewers_score_waits_for_no_markdown_plugin_and_looks_like_the_metrics_beside_it(
    app_url: str, browser: Browser
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        context.add_init_script(PLUGINS_AT_SCORE_JS)
        page = context.new_page()
        page.goto(f"{app_url}/tone")
        expected = f"{create_tone_scorer().run(output=str(DEFAULTS['tone.text'])).score:.3f}"
        expect(page.locator(TONE_SCORE)).to_have_text(expected)
        assert page.evaluate("window.__pluginsAtScore") == []
        metric = page.locator('[data-testid="stMetricValue"]').first
        expect(metric).to_be_visible()
        style = "(e) => ['fontSize', 'fontWeight', 'fontFamily', 'color'].map((k) => getComputedStyle(e)[k])"
        assert page.locator(TONE_SCORE).evaluate(style) == metric.evaluate(style)
        card = page.locator(".st-key-tone-score")
        assert card.get_by_role("link").count() == 0  # no heading anchor
        row = page.get_by_test_id("stHorizontalBlock").filter(has=card).first
        row.screenshot(path=str(SCREENSHOTS / "tone-score-card.png"))
    finally:
        context.close()
