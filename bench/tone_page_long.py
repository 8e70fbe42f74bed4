"""Seconds for the Tone page to show a long text: the script's time (AppTest) and the browser's (Playwright).

Run ``python -m bench.tone_page_long`` (``--chars 300000``; ``--no-browser`` for the AppTest part only).
The text is :func:`bench.long_text.text_of` prose (a period after ~8% of the words: 4,697 sentences at
300,000 characters). AppTest: the page's first run with the text (cold caches) and a rerun. Browser: the
dashboard on a free port (``bench.server``), Debian's headless Chromium uploads the text as a .txt file on
the Tone page; times from the upload to the score on screen, and to the highlighted text and every chart
point drawn.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench.load import METRIC
from bench.long_text import text_of
from scoring import create_tone_scorer

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"


def script_seconds(text: str, engine: str = "vader") -> tuple[float, float]:
    """The Tone page's first run with ``text`` (caches cleared) and a rerun, in AppTest."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from ui import page_cache

    st.cache_data.clear()
    st.cache_resource.clear()
    page_cache.clear()
    if engine == "e5-lite":  # its polarities and word segmentations too: the page sees a new text
        from scoring.text.e5_lite import model
        from scoring.tone.engines import get_engine

        get_engine(engine).cache_clear()  # type: ignore[attr-defined]
        model().cache_clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.session_state["tone.text"] = text
    at.session_state["tone.engine"] = engine
    start = time.perf_counter()
    at.switch_page("pages/tone.py").run()
    cold = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(f"the page failed: {[e.value for e in at.exception]}")
    start = time.perf_counter()
    at.run()
    return cold, time.perf_counter() - start


def browser_seconds(text: str, sentences: int, score: str) -> tuple[float, float]:
    """Upload ``text`` on the Tone page: seconds to the score shown, and to the highlight and chart drawn."""
    from playwright.sync_api import expect, sync_playwright

    from bench.server import streamlit_server

    with tempfile.TemporaryDirectory() as tmp, streamlit_server(timeout=120) as server, sync_playwright() as p:
        path = Path(tmp) / "report.txt"
        path.write_text(text, encoding="utf-8")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        page.goto(server.url)
        nav = page.locator('[data-testid="stSidebarNav"]')
        nav.get_by_text("Score one text").wait_for(timeout=120_000)
        nav.get_by_role("link", name="Tone").click()
        page.locator(METRIC).first.wait_for(timeout=120_000)
        page.get_by_text("Upload a .txt or .md file instead").click()
        start = time.perf_counter()
        page.locator(".st-key-tone-upload input[type=file]").set_input_files(str(path))
        expect(page.locator(METRIC).first).to_have_text(score, timeout=300_000)
        shown = time.perf_counter() - start
        page.wait_for_function(
            "n => document.querySelectorAll('.js-plotly-plot g.scatterlayer path.point').length >= n",
            arg=sentences,
            timeout=300_000,
        )
        page.get_by_text("Highlighted text").wait_for(timeout=300_000)
        drawn = time.perf_counter() - start
        browser.close()
    return shown, drawn


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.tone_page_long", description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=300_000, help="length of the text")
    parser.add_argument("--no-browser", action="store_true", help="measure the script only")
    parser.add_argument("--engine", default="vader", help="the tone engine (another than vader: the script only)")
    args = parser.parse_args()
    text = text_of(args.chars, kind="prose")
    result = create_tone_scorer(engine=args.engine).run(output=text)
    sentences = len(result.preprocess_step_result["sentences"])  # type: ignore[arg-type]
    cold, warm = script_seconds(text, args.engine)
    print(f"{args.chars:,} characters, {sentences:,} sentences, {args.engine} tone score {result.score:.3f}")
    print(f"script (AppTest): first run {cold:.2f} s, rerun {warm:.2f} s")
    if not args.no_browser and args.engine == "vader":
        shown, drawn = browser_seconds(text, sentences, f"{result.score:.3f}")
        print(f"browser: score shown {shown:.1f} s after the upload, highlight and all chart points {drawn:.1f} s")


if __name__ == "__main__":
    main()
