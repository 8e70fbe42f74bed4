"""Start the dashboard on a free localhost port and drive it with Playwright in Debian's headless Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
# The README's screenshots are refreshed only on request (UPDATE_SCREENSHOTS=1); ordinary runs write to
# artifacts/ (git-ignored), so a test run never leaves the work tree changed.
SCREENSHOTS = ROOT / ("docs/screenshots" if os.environ.get("UPDATE_SCREENSHOTS") == "1" else "artifacts/screenshots")
CHROMIUM = "/usr/bin/chromium"
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"streamlit exited with {proc.returncode}: {proc.stdout.read().decode() if proc.stdout else ''}"
            )
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().decode().strip() == "ok":
                    return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"{url} was not healthy after {timeout} s")


def _warm_up(browser: Browser, url: str) -> None:
    """Run app.py once. Until its st.navigation first runs, Streamlit treats `pages/` as a v1 pages folder
    (file-name links "app", "batch", ...), which a fast click or a deep link to a fresh server would hit."""
    page = browser.new_page()
    page.goto(url)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Score one text").wait_for(timeout=30_000)
    page.close()


@pytest.fixture(scope="session")
def app_url(browser: Browser) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "OPENAI_API_KEY": "", "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    cmd += ["--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        _warm_up(browser, url)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


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
