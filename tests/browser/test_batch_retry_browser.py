"""The Batch page in a real browser with the LLM judge: rows fail, 'Retry failed rows' completes the run.

The judge is a local fake Chat Completions server (tests/scoring/fake_openai.py) that answers HTTP 503
for two questions until the test makes it healthy. The file also holds a reply in German, whose tone
score gets the not-English notice and, in the drill-down, its warning.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ConsoleErrors, screenshot
from tests.scoring.fake_openai import Reply, error_body, serve
from ui import batch_input as batch_ui

pytestmark = pytest.mark.browser

KEY = "sk-browser-not-a-real-key-42"
GERMAN = "Es tut mir sehr leid! Die doppelte Zahlung wurde erstattet und ist in fünf Werktagen auf Ihrer Karte."
MARKER = "Opinions (a JSON list of strings from the assistant's reply):\n"


class Judge:
    """Dismissive sentences are toxic; the price question and a curt reply fail with 503 until ``healthy``."""

    def __init__(self) -> None:
        self.healthy = False

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = body["messages"][-1]["content"]
        if not self.healthy and ("price go up" in prompt or "Send documents" in prompt):
            return Reply(status=503, body=error_body("the upstream model is overloaded"))
        opinions = json.loads(prompt.split(MARKER, 1)[1])
        rude = ("newsletter", "Send documents", "Nobody")
        verdicts = [{"verdict": "yes" if any(r in o for r in rude) else "no", "reason": "r"} for o in opinions]
        return Reply(json.dumps({"verdicts": verdicts}))


def _file(tmp_path: Path) -> Path:
    rows = pd.read_csv(batch_ui.SAMPLE_PATH, dtype=str).head(12)
    german = rows.iloc[[1]].assign(id="r901", input="Wurde ich doppelt belastet?", output=GERMAN)
    path = tmp_path / "replies.csv"
    pd.concat([rows.iloc[:4], german, rows.iloc[4:]], ignore_index=True).to_csv(path, index=False)
    return path


def _judge_settings(browser: Page, base_url: str) -> None:
    for key, value in (("toxicity-base_url", base_url), ("toxicity-model", "judge-model"), ("toxicity-api_key", KEY)):
        box = browser.locator(f".st-key-{key} input")
        box.fill(value)
        box.press("Enter")
        expect(box).to_have_value(value)


def _rendered(browser: Page) -> None:
    """Wait until the cards and the first chart are drawn (not their loading skeletons)."""
    expect(browser.locator('[data-testid="stMetricValue"]').last).to_be_visible()
    expect(browser.locator(".js-plotly-plot .main-svg").first).to_be_visible()


def test_judge_rows_fail_then_retry_completes_and_german_row_is_flagged(
    app_url: str, page: tuple[Page, ConsoleErrors], tmp_path: Path
) -> None:
    browser, errors = page
    judge = Judge()
    with serve(judge) as fake:
        browser.goto(app_url)
        browser.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Batch", exact=True).click()
        browser.locator(".st-key-batch-source").get_by_text("Upload a file", exact=True).click()
        browser.locator(".st-key-batch-upload input[type=file]").set_input_files(_file(tmp_path))
        expect(browser.get_by_text("13 rows", exact=False).first).to_be_visible()
        browser.locator(".st-key-batch-scorers").get_by_text("Toxicity", exact=True).click()
        browser.get_by_text("LLM judge (sends the texts to the endpoint)").click()
        _judge_settings(browser, fake.base_url)
        browser.get_by_role("button", name="Score the file").click()

        retry = browser.get_by_role("button", name="Retry failed rows (3)")
        expect(retry).to_be_visible(timeout=60_000)
        expect(browser.get_by_text("toxicity-scorer: 3 of 13 rows failed: row 6, 7, 12", exact=False)).to_be_visible()
        expect(browser.get_by_text("1 of 13 rows is not English", exact=False)).to_be_visible()
        _rendered(browser)
        screenshot(browser, "batch-retry")
        judge.healthy = True
        retry.click()
        done = "All 13 rows were scored by every scorer; read the notes below"  # one row is not English: no green
        expect(browser.get_by_text(done)).to_be_visible(timeout=60_000)
        expect(browser.get_by_role("button", name="Retry failed rows", exact=False)).to_have_count(0)
        _rendered(browser)
        screenshot(browser, "batch-retried")

    browser.get_by_role("tab", name="Rows, worst first").click()
    query = browser.locator(".st-key-batch-query input")
    query.fill("tut mir")
    query.press("Enter")
    # the rows tab's count (the notes also say "1 of 13 rows is not English": that one must not match)
    expect(browser.get_by_text("1 of 13 rows · click a column header", exact=False)).to_be_visible()
    grid = browser.locator(".st-key-batch-rows [data-testid=stDataFrame]")
    # The canvas grid takes clicks once it has drawn its rows (its accessible table then holds the first row).
    expect(grid.locator('[data-testid="glide-cell-1-0"]')).to_be_attached()
    box = grid.bounding_box()
    assert box is not None
    browser.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the first row's selection checkbox
    expect(browser.get_by_text("output looks like German", exact=False).last).to_be_visible()
    screenshot(browser, "batch-not-english")
    field = browser.locator('input[aria-label="Judge API key"]')
    expect(field).to_have_attribute("type", "password")
    expect(field).to_have_value(KEY)
    assert browser.content().count(KEY) == 1  # only in the password field it was typed into
    assert {r["headers"]["authorization"] for r in fake.requests} == {f"Bearer {KEY}"}
    assert not errors, errors
