"""Labelling a saved run's rows with the keyboard on the Runs page: y/n and Enter save a label and go to the next
row, the arrow keys go back, and the agreement follows the labels."""

from __future__ import annotations

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from scoring.batch.runner import evaluate
from scoring.io.columns import ColumnMap
from scoring.runs import RunStore
from scoring.runs.labels import labels_frame
from tests.browser.conftest import ConsoleErrors, screenshot

pytestmark = pytest.mark.browser

REPLIES = ["Thanks so much, happy to help!", "Read the manual.", "Glad it works now, have a great day!",
           "Not my problem.", "You're welcome, anytime!", "Go away."]  # fmt: skip
ROW_HEIGHT = 35  # the grid's header and rows (Streamlit's data editor)


def test_label_rows_with_the_keyboard(app_url: str, run_store_url: str, page: tuple[Page, ConsoleErrors]) -> None:
    store = RunStore(run_store_url)
    result = evaluate(pd.DataFrame({"reply": REPLIES}), scorers=["tone"], columns=ColumnMap(output="reply"))
    info = store.save(result, name="browser-labels", source_name="replies.csv", source_sha256="7" * 64)
    browser, errors = page
    browser.set_viewport_size({"width": 1400, "height": 1400})
    browser.goto(app_url)
    browser.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Runs", exact=True).click()
    expect(browser.locator("h1").filter(has_text="Run history")).to_be_visible()
    chosen = browser.get_by_role("combobox", name="Run to label")
    expect(chosen).to_have_value(f"{info.label} · replies.csv", timeout=60_000)  # the newest run is chosen
    name = browser.get_by_role("textbox", name="Your name (optional)")
    name.fill("ana")
    name.press("Enter")
    caption = browser.get_by_text("of 6 rows labelled for tone-scorer by ana", exact=False)
    expect(caption).to_be_visible(timeout=30_000)
    grid = browser.locator(f".st-key-runs-labels-editor-{info.id}-tone-scorer-ana")
    expect(grid.locator("canvas").first).to_be_visible(timeout=30_000)  # the grid has loaded (a skeleton before)
    expect(browser.get_by_test_id("stStatusWidget")).to_have_count(0)  # no rerun under way
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    browser.mouse.click(box["x"] + box["width"] - 30, box["y"] + ROW_HEIGHT * 1.5)  # row 1's label cell
    expect(grid.locator(":focus")).to_have_count(1)  # the grid has the keyboard
    for done, key in enumerate(["y", "n", "y"], start=1):  # each Enter saves and selects the next row
        browser.keyboard.type(key)
        expect(browser.locator("textarea.gdg-input")).to_have_value(key)  # the cell's editor is open with the key
        browser.keyboard.press("Enter")
        expect(browser.get_by_text(f"{done} of 6 rows labelled for tone-scorer by ana", exact=False)).to_be_visible()
    expect(browser.get_by_text("ROC AUC needs both yes and no labels")).to_have_count(0)
    browser.keyboard.press("ArrowUp")  # back from row 4 to row 2, which was "no"
    browser.keyboard.press("ArrowUp")
    browser.keyboard.type("y")
    expect(browser.locator("textarea.gdg-input")).to_have_value("y")
    browser.keyboard.press("Enter")
    expect(browser.get_by_text("ROC AUC needs both yes and no labels; all 3 are yes", exact=False).first)\
        .to_be_visible()  # fmt: skip
    labels = labels_frame(store, info.id)
    assert labels[["row", "rater", "value", "source"]].values.tolist() == [
        [1, "ana", 1.0, "page"], [2, "ana", 1.0, "page"], [3, "ana", 1.0, "page"]]  # fmt: skip
    grid.scroll_into_view_if_needed()
    screenshot(browser, "runs-labels")
    store.close()
    assert not errors, errors
