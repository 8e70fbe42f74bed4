"""Start the dashboard on a free localhost port and drive it with Playwright in Debian's headless Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright

from bench.server import streamlit_server
from ui.widgets import score_card_selector

ROOT = Path(__file__).resolve().parents[2]
# The README's screenshots are refreshed only on request (UPDATE_SCREENSHOTS=1); ordinary runs write to
# artifacts/ (git-ignored), so a test run never leaves the work tree changed.
SCREENSHOTS = ROOT / ("docs/screenshots" if os.environ.get("UPDATE_SCREENSHOTS") == "1" else "artifacts/screenshots")
CHROMIUM = "/usr/bin/chromium"

TONE_SCORE, SIMILARITY_SCORE, TOXICITY_SCORE = (
    score_card_selector(key) for key in ("tone.score", "similarity.score", "toxicity.score")
)
expect.set_options(timeout=20_000)  # the first chart of a fresh context loads and parses plotly.js (seconds here)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def _warm_up(browser: Browser, url: str) -> None:
    """Run app.py once. Until its st.navigation first runs, Streamlit treats `pages/` as a v1 pages folder
    (file-name links "app", "batch", ...), which a fast click or a deep link to a fresh server would hit."""
    page = browser.new_page()
    page.goto(url)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Score one text").wait_for(timeout=30_000)
    page.close()


@pytest.fixture(scope="session")
def run_store_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The run store of the dashboard under test (a temporary SQLite file, never the user's)."""
    return f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.sqlite'}"


@pytest.fixture(scope="session")
def app_url(browser: Browser, run_store_url: str) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TONE_EXPLORER_DB", run_store_url)  # the server's environment
        with streamlit_server(timeout=60) as server:
            _warm_up(browser, server.url)
            yield server.url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make setup` (it installs Debian's chromium).")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class ConsoleErrors(list[str]):
    """Console errors and uncaught page errors seen by a page."""


@pytest.fixture
def page(browser: Browser) -> Iterator[tuple[Page, ConsoleErrors]]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors = ConsoleErrors()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"console: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    yield page, errors
    context.close()


def screenshot(page: Page, name: str) -> None:
    """Save a screenshot of the whole app to SCREENSHOTS/<name>.png.

    Streamlit scrolls inside its main container, so the viewport is grown to the content's height.
    """
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size or {"width": 1400, "height": 1000}
    page.set_viewport_size({"width": size["width"], "height": 800})
    page.wait_for_timeout(200)
    height = page.evaluate("document.querySelector('[data-testid=stMainBlockContainer]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 4000)})
    page.wait_for_timeout(600)  # lazy charts render and finish their transition
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    page.set_viewport_size(size)
