"""The Runs page in a real browser: two saved runs compared, the worst regression first, its drill-down."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from scoring.batch.runner import evaluate
from scoring.io.columns import ColumnMap
from scoring.runs import RunStore
from tests.browser.conftest import ConsoleErrors, screenshot
from ui import batch_input as batch_ui

pytestmark = pytest.mark.browser


def test_compare_two_saved_runs(app_url: str, run_store_url: str, page: tuple[Page, ConsoleErrors]) -> None:
    store = RunStore(run_store_url)
    df = pd.read_csv(batch_ui.SAMPLE_PATH)
    start = datetime(2026, 3, 1, tzinfo=UTC)
    saved = []
    for day, (model, name) in enumerate([("support-bot-v2", "browser-good"), ("support-bot-v1", "browser-bad")]):
        part = df[df["model"] == model].reset_index(drop=True)
        result = evaluate(part, scorers=["tone", "similarity"], columns=ColumnMap("output", "input"),
                          reference="reference")  # fmt: skip
        saved.append(store.save(result, name=name, source_name=f"{model}.csv", source_sha256=f"{day}" * 64,
                                created_at=start + timedelta(days=day)))  # fmt: skip
    browser, errors = page
    browser.set_viewport_size({"width": 1400, "height": 2400})
    browser.goto(app_url)
    expect(browser.locator("h1").filter(has_text="Tone explorer")).to_be_visible()
    browser.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Runs", exact=True).click()
    expect(browser.locator("h1").filter(has_text="Run history")).to_be_visible()

    # the newest run (B, v1) against the one before (A, v2): both scorers are significantly worse
    expect(browser.get_by_text(f"{saved[1].label} · ", exact=False).first).to_be_visible()
    expect(browser.get_by_text("Regression: Tone")).to_be_visible(timeout=60_000)
    expect(browser.get_by_text(f"{saved[0].label} is more on-tone than {saved[1].label}: {saved[1].label} minus "
                               f"{saved[0].label} over 72 pairs = 0.674 - 0.920 = -0.246", exact=False))\
        .to_be_visible()  # fmt: skip
    expect(browser.get_by_text("Regression: Content similarity")).to_be_visible()
    expect(browser.get_by_text("68 of 81 rows shown · 53 worse in B · matched on input", exact=False)).to_be_visible()
    # the runs table, the row deltas and the label editor; widgets load their code on first use (skeletons until then)
    expect(browser.locator("[data-testid=stDataFrame]")).to_have_count(3, timeout=90_000)

    # the worst regression is inspected first: both replies, their scores and their sentences
    texts = browser.locator("[data-testid=stText]")  # the drill-down's texts (the grid holds them too)
    expect(texts.filter(has_text="That's your bank's problem, not ours. Call them.")).to_be_visible()
    expect(texts.filter(has_text="Sorry for the hassle! Declines like this")).to_be_visible()
    expect(browser.get_by_text("Sentiment per sentence").first).to_be_visible()
    expect(browser.get_by_text("mean score per run (95% CI)", exact=False)).to_be_visible()  # the trend chart
    expect(browser.locator(".js-plotly-plot .main-svg")).not_to_have_count(0)
    screenshot(browser, "runs")

    browser.locator(".st-key-runs-changed_only").get_by_text("Changed only").click()  # show unchanged rows too
    expect(browser.get_by_text("81 of 81 rows shown", exact=False)).to_be_visible()
    assert not errors, errors
