"""The Batch page in a real browser: upload a file, score it, see cards and table, drill down, download."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from scoring.batch.runner import evaluate
from scoring.io.columns import ColumnMap
from scoring.io.loaders import read_table
from tests.browser.conftest import ConsoleErrors, screenshot
from ui import batch_input as batch_ui

pytestmark = pytest.mark.browser

METRIC = '[data-testid="stMetricValue"]'
FORMULA = '=HYPERLINK("http://example.invalid","click")'


def _upload_file(tmp_path: Path) -> Path:
    """The first 40 sample rows (20 questions x 2 versions) plus a reply that looks like a formula."""
    with batch_ui.SAMPLE_PATH.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))[:40]
    rows.append({**rows[0], "id": "r999", "input": "Can you add 1 and 1 in a spreadsheet?", "output": FORMULA})
    path = tmp_path / "replies.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_upload_score_see_cards_table_drill_down_and_download(
    app_url: str, page: tuple[Page, ConsoleErrors], tmp_path: Path
) -> None:
    browser, errors = page
    browser.set_viewport_size({"width": 1400, "height": 2400})
    browser.goto(app_url)
    expect(browser.locator("h1").filter(has_text="Tone explorer")).to_be_visible()  # the router's navigation is up
    browser.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Batch", exact=True).click()
    expect(browser.locator("h1").filter(has_text="Batch evaluation")).to_be_visible()

    browser.locator(".st-key-batch-source").get_by_text("Upload a file", exact=True).click()
    expect(browser.get_by_text("up to 50 MB", exact=False).first).to_be_visible()
    upload = _upload_file(tmp_path)
    browser.locator(".st-key-batch-upload input[type=file]").set_input_files(upload)
    expect(browser.get_by_text("41 rows", exact=False).first).to_be_visible()
    browser.get_by_role("button", name="Score the file").click()

    table = read_table(upload)
    expected = evaluate(table, reference="reference").summary["mean"]
    expect(browser.get_by_text("Tone · mean")).to_be_visible(timeout=60_000)
    expect(browser.locator(METRIC).first).to_have_text(f"{expected['tone-scorer']:.3f}")
    expect(browser.locator(METRIC).nth(1)).to_have_text(f"{expected['content-similarity-scorer']:.3f}")
    expect(browser.get_by_text("All 41 rows were scored by every scorer.")).to_be_visible()
    expect(browser.locator(".js-plotly-plot .main-svg").first).to_be_visible()
    screenshot(browser, "batch")

    browser.get_by_role("tab", name="Rows, worst first").click()
    grid = browser.locator(".st-key-batch-rows [data-testid=stDataFrame]")
    expect(grid).to_be_visible()
    screenshot(browser, "batch-rows")  # the reply text first, then the scores
    # The canvas grid takes clicks once it has drawn its rows (its accessible table then holds the first row).
    expect(grid.locator('[data-testid="glide-cell-1-0"]')).to_be_attached()
    box = grid.bounding_box()
    assert box is not None
    browser.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the first row's selection checkbox
    expect(browser.get_by_role("heading", name="Row ")).to_be_visible()
    expect(browser.get_by_text("sentiment per sentence", exact=False).first).to_be_visible()

    browser.get_by_role("tab", name="A/B comparison").click()
    expect(browser.get_by_text("support-bot-v2 is more on-tone than support-bot-v1", exact=False)).to_be_visible()
    expect(browser.get_by_text("Mean score per group", exact=False)).to_be_visible()
    expect(browser.get_by_text("paired permutation (sign-flip)", exact=False).first).to_be_visible()
    screenshot(browser, "batch_ab")

    browser.get_by_role("tab", name="Downloads").click()
    with browser.expect_download() as got:
        browser.get_by_role("button", name="CSV", exact=True).click()
    rows = list(csv.reader(io.StringIO(Path(got.value.path()).read_text(encoding="utf-8"), newline="")))
    assert rows[0][:7] == ["id", "model", "category", "input", "output", "reference", "tone-scorer"]
    outputs = [row[4] for row in rows[1:]]  # the export quotes text cells; the formula must be neutralised
    assert f"'{FORMULA}" in outputs and FORMULA not in outputs
    assert len(read_table(Path(got.value.path()))) == 41
    with browser.expect_download() as got:
        browser.get_by_role("button", name="HTML report", exact=True).click()
    report = Path(got.value.path()).read_text(encoding="utf-8")
    assert report.startswith("<!DOCTYPE html>") and report.count("plotly.js v") == 1
    assert "Batch evaluation: replies.csv" in report and "more on-tone than" in report
    assert got.value.suggested_filename == "replies-scored-report.html"
    assert not errors, errors


def _tickets(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    """A helpdesk export named as a new user's file would be (issue 9): the replies are in 'Agent Answer'."""
    with batch_ui.SAMPLE_PATH.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["output"].strip()][:60]
    table = pd.DataFrame({
        "Ticket #": [4100 + i for i in range(len(rows))],
        "Prompt": [r["input"] for r in rows],
        "Agent Answer": [r["output"] for r in rows],
        "Expected Reply": [r["reference"] for r in rows],
        "Agent Version": [r["model"].rsplit("-", 1)[-1] for r in rows],
    })  # fmt: skip
    path = tmp_path / "helpdesk export.csv"
    table.to_csv(path, index=False)
    return path, table


def test_an_oddly_named_file_scores_the_answer_column_and_says_so(
    app_url: str, page: tuple[Page, ConsoleErrors], tmp_path: Path
) -> None:
    browser, errors = page
    browser.goto(app_url)
    browser.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Batch", exact=True).click()
    browser.locator(".st-key-batch-source").get_by_text("Upload a file", exact=True).click()
    path, table = _tickets(tmp_path)
    browser.locator(".st-key-batch-upload input[type=file]").set_input_files(path)
    expect(browser.get_by_text("60 rows", exact=False).first).to_be_visible()
    for key, value in (("output", "Agent Answer"), ("input", "Prompt"), ("reference", "Expected Reply")):
        expect(browser.locator(f".st-key-batch-col-{key} input")).to_have_value(value)
    plan = "replies from 'Agent Answer', inputs from 'Prompt', references from 'Expected Reply'"
    expect(browser.get_by_text(f"Will score {plan}", exact=False)).to_be_visible()
    browser.get_by_role("button", name="Score the file").click()
    expected = evaluate(table, columns=ColumnMap("Agent Answer", "Prompt", "Expected Reply")).summary["mean"]
    expect(browser.get_by_text("Tone · mean")).to_be_visible(timeout=60_000)
    expect(browser.locator(METRIC).first).to_have_text(f"{expected['tone-scorer']:.3f}")
    expect(browser.locator(METRIC).nth(1)).to_have_text(f"{expected['content-similarity-scorer']:.3f}")
    expect(browser.get_by_text(f"Scored {plan}", exact=False)).to_be_visible()
    expect(browser.get_by_text("similarity: output vs 'Expected Reply'", exact=False).first).to_be_visible()
    expect(browser.locator(".js-plotly-plot")).to_have_count(3)  # two histograms and the scatter, drawn
    expect(browser.locator(".js-plotly-plot .main-svg").last).to_be_visible()
    screenshot(browser, "batch-columns")
    assert not errors, errors


def test_two_answer_columns_ask_which_one(app_url: str, page: tuple[Page, ConsoleErrors], tmp_path: Path) -> None:
    browser, errors = page
    browser.goto(app_url)
    browser.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Batch", exact=True).click()
    browser.locator(".st-key-batch-source").get_by_text("Upload a file", exact=True).click()
    _, table = _tickets(tmp_path)
    wide = tmp_path / "ab.csv"
    pd.DataFrame({"Prompt": table["Prompt"], "Answer A": table["Agent Answer"],
                  "Answer B": table["Expected Reply"]}).to_csv(wide, index=False)  # fmt: skip
    browser.locator(".st-key-batch-upload input[type=file]").set_input_files(wide)
    expect(browser.get_by_text("Choose the columns before scoring.", exact=False)).to_be_visible()
    expect(browser.get_by_text("'Answer A' or 'Answer B'? Choose one.", exact=False).first).to_be_visible()
    expect(browser.get_by_role("button", name="Score the file")).to_be_disabled()
    screenshot(browser, "batch-columns-ask")
    assert not errors, errors
