"""Where a new viewer's first Tone score goes: when the score and the chart are attached and painted.

Run ``python -m bench.first_paint`` (``--loads 4``, ``--baseline REF``, ``--baseline-python PATH``). It starts the
dashboard (and, with ``--baseline``, the dashboard at git revision REF, in the same run, served by
``--baseline-python``: by default this interpreter), warms it with one page load, then opens
the Tone page ``--loads`` times, each in a new browser context (an empty cache, a new Streamlit session), in
Debian's headless Chromium. The page records, in milliseconds from the start of navigation: when the first
visible score and the chart entered the page and when the frame showing each was painted, when Streamlit's
plotly.js chunk had been fetched, and its main-thread tasks over 200 ms (Long Tasks API). The machine's load
average is printed with each load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from playwright.async_api import Browser, async_playwright

from bench.load import CHROMIUM, CHROMIUM_ARGS, METRIC
from bench.revision import exported
from bench.server import streamlit_server

ROOT = Path(__file__).resolve().parent.parent
CHART = ".js-plotly-plot .main-svg"
MARKS_JS = """(() => {
  const marks = window.__marks = {longTasks: []};
  const now = () => Math.round(performance.now());
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) marks.longTasks.push([Math.round(e.startTime), Math.round(e.duration)]);
  }).observe({type: "longtask", buffered: true});
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.name.split("/").pop().startsWith("PlotlyChart")) marks.plotlyFetched = Math.round(e.responseEnd);
  }).observe({type: "resource", buffered: true});
  const watch = (name, selector) => {
    if (marks[name + "Attached"] !== undefined) return;
    const el = document.querySelector(selector);
    if (!el || (name === "score" && !el.textContent.trim()) || !el.checkVisibility({opacityProperty: true})) return;
    marks[name + "Attached"] = now();
    requestAnimationFrame(() => setTimeout(() => { marks[name + "Painted"] = now(); }, 0));
  };
  new MutationObserver(() => {
    watch("score", SCORE);
    watch("chart", ".js-plotly-plot .main-svg");
  }).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
})();""".replace("SCORE", json.dumps(METRIC))


async def _load(browser: Browser, url: str) -> dict[str, object]:
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        await context.add_init_script(MARKS_JS)
        page = await context.new_page()
        await page.goto(f"{url}/tone")
        await page.locator(METRIC).first.wait_for(timeout=120_000)
        await page.locator(CHART).first.wait_for(timeout=120_000)
        await page.wait_for_function("window.__marks.chartPainted !== undefined", timeout=120_000)
        marks: dict[str, object] = await page.evaluate("window.__marks")
        return marks
    finally:
        await context.close()


async def measure(url: str, loads: int) -> list[dict[str, object]]:
    """Warm the server with one page load, then return the marks of ``loads`` page loads."""
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            await _load(browser, url)
            out = []
            for _ in range(loads):
                marks = await _load(browser, url)
                marks["load"] = os.getloadavg()[0]
                out.append(marks)
            return out
        finally:
            await browser.close()


def _line(marks: dict[str, object]) -> str:
    tasks: list[list[int]] = marks["longTasks"]  # type: ignore[assignment]
    keys = ("scoreAttached", "scorePainted", "plotlyFetched", "chartAttached", "chartPainted")
    return (
        f"| {marks['load']:.1f} | "
        + " | ".join(f"{int(marks[k]) / 1000:.2f}" if k in marks else "" for k in keys)  # type: ignore[call-overload]
        + " | "
        + ", ".join(f"{start / 1000:.1f}+{length / 1000:.2f}" for start, length in tasks if length > 200)
        + " |"
    )


def measure_tree(root: Path, loads: int, python: str = sys.executable) -> list[dict[str, object]]:
    with streamlit_server(root=root, python=python) as server:
        return asyncio.run(measure(server.url, loads))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.first_paint", description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=4, help="timed page loads per tree (4)")
    parser.add_argument("--baseline", metavar="REF", help="also measure the dashboard at this git revision, first")
    parser.add_argument(
        "--baseline-python", metavar="PATH", default=sys.executable,
        help="the interpreter that runs the baseline's server (default: this one); to measure a dependency change, "
        "one whose environment does not have it",
    )  # fmt: skip
    args = parser.parse_args()
    results: dict[str, list[dict[str, object]]] = {}
    if args.baseline:
        with exported(args.baseline, prefix="first_paint_baseline_") as folder:
            results[f"before ({args.baseline})"] = measure_tree(folder, args.loads, args.baseline_python)
    results["after (this tree)" if args.baseline else "this tree"] = measure_tree(ROOT, args.loads)
    for label, rows in results.items():
        print(f"\n## {label}\n")
        print("| load avg | score attached (s) | score painted | plotly.js fetched | chart attached | chart painted "
              "| main-thread tasks > 0.2 s (start+length, s) |")  # fmt: skip
        print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
        for marks in rows:
            print(_line(marks))


if __name__ == "__main__":
    main()
