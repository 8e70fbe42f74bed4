"""The payload table of tests/pages/test_markdown_payloads.py in Chromium: no link, no image, no request.

Streamlit's real renderer decides what becomes a link (it links plain URLs, ``www.`` addresses and
e-mails even when their punctuation is backslash-escaped), so this checks the DOM itself: after the
Tone, Toxicity and Batch pages show hostile text, file names, column names and group names, no element
links to or loads from attacker.example, and the browser never asked that host for anything.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Page, Request, expect

from tests.browser.conftest import ConsoleErrors, screenshot
from tests.pages.test_markdown_payloads import PAYLOADS

pytestmark = pytest.mark.browser

HOST = "attacker.example"
EVERYTHING = " ".join(f"{p} ." for p in PAYLOADS.values())
# every attribute that can link or load: <a href>, <img src>, SVG <a xlink:href> (Plotly), <image>, ...
FIND_LINKS = """host => Array.from(document.querySelectorAll('*')).flatMap(e =>
    ['href', 'src', 'xlink:href', 'srcset', 'action', 'formaction', 'poster', 'data']
        .map(name => e.getAttribute(name)).filter(v => v && v.toLowerCase().includes(host))
        .map(v => e.tagName + ' ' + v))"""


def _open(page: Page, label: str, heading: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=label).click()
    expect(page.locator("h1").filter(has_text=re.compile(f"^{heading}$"))).to_be_visible(timeout=60_000)


def _assert_no_link_to_the_host(page: Page, asked: list[str], where: str) -> None:
    found = page.evaluate(FIND_LINKS, HOST)
    assert found == [], f"{where}: {found}"
    assert asked == [], f"{where}: the browser requested {asked}"


def _hostile_file(tmp_path: Path) -> Path:
    groups = list(PAYLOADS.values())[:2]  # A/B: two group names that are payloads
    rows = [(groups[i % 2], f"Question {i // 2}", f"Thanks, that helps. {EVERYTHING}") for i in range(16)]
    table = pd.DataFrame(rows, columns=["model", "input", "output"])
    table["[notes](https://attacker.example/col)"] = "www.attacker.example"
    path = tmp_path / "phish@attacker.example [x].csv"
    table.to_csv(path, index=False)
    return path


def test_hostile_text_names_and_groups_never_become_links_or_images(
    app_url: str, page: tuple[Page, ConsoleErrors], tmp_path: Path
) -> None:
    browser, errors = page
    asked: list[str] = []

    def on_request(request: Request) -> None:
        if HOST in request.url.lower():
            asked.append(request.url)

    browser.on("request", on_request)
    browser.set_viewport_size({"width": 1400, "height": 2400})
    browser.goto(app_url)
    expect(browser.locator("h1").filter(has_text="Tone explorer")).to_be_visible()

    _open(browser, "Tone", "Tone")
    box = browser.locator(".st-key-tone-text textarea")
    expect(box).to_be_editable(timeout=60_000)
    box.fill(f"Great work. {EVERYTHING} Terrible delay.")
    box.press("Control+Enter")
    expect(browser.get_by_text("visit www.attacker.example today", exact=False).first).to_be_visible(timeout=30_000)
    expect(browser.get_by_text("[Session expired](https://attacker.example/login)", exact=False).first).to_be_visible()
    _assert_no_link_to_the_host(browser, asked, "Tone page")
    screenshot(browser, "markdown-payloads-tone")

    _open(browser, "Toxicity", "Toxicity")
    reply = browser.locator(".st-key-toxicity-output textarea")
    expect(reply).to_be_editable(timeout=60_000)
    reply.fill("You are an idiot and " + " ".join(PAYLOADS.values()))
    reply.press("Control+Enter")
    expect(browser.get_by_text("Why:", exact=False).first).to_be_visible(timeout=30_000)
    expect(browser.get_by_text("write to phish@attacker.example", exact=False).first).to_be_visible()
    _assert_no_link_to_the_host(browser, asked, "Toxicity page")

    _open(browser, "Batch", "Batch evaluation")
    browser.locator(".st-key-batch-source").get_by_text("Upload a file", exact=True).click(timeout=60_000)
    browser.locator(".st-key-batch-upload input[type=file]").set_input_files(_hostile_file(tmp_path))
    expect(browser.get_by_text("16 rows", exact=False).first).to_be_visible(timeout=60_000)
    browser.get_by_role("button", name="Score the file").click()
    expect(browser.get_by_text("Tone · mean")).to_be_visible(timeout=60_000)
    browser.get_by_role("tab", name="A/B comparison").click()
    expect(browser.get_by_text("Mean score per group", exact=False)).to_be_visible(timeout=60_000)
    verdict = browser.locator('[data-testid="stAlert"]').filter(has_text="[Session expired](https:")
    expect(verdict.first).to_be_visible()  # a group name, in the A/B verdict, as text
    _assert_no_link_to_the_host(browser, asked, "Batch page")
    screenshot(browser, "markdown-payloads-batch")
    assert errors == []
