"""Concurrent browser sessions against one ``streamlit run`` server: latency and per-session correctness.

Run ``python -m bench.load`` (``--sessions 10 --rounds 3``). It starts the dashboard on a free port,
then drives it with Playwright in Debian's headless Chromium: each session is its own browser context
(its own Streamlit session) that pastes its own text into the Tone page and waits for the score the
library gives that text. Latency is from pressing Ctrl+Enter to the score on screen; a page load's, from
opening the page to the first painted frame that shows its score (:data:`FIRST_SCORE_PAINTED_JS`). The same flow is
first measured with one session alone (the baseline of this run), then with all sessions at once,
while a probe times the server's health endpoint. Every session must see its own score, never another's.
Then browserless sessions speak the websocket protocol to the same server: the server-side time of a score
update. ``--baseline REF`` first measures the dashboard at git revision REF (exported to a temporary folder,
same packages), so before and after come from one run; a last table gives issue 14's targets for both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from playwright.async_api import Browser, Page, async_playwright, expect

from bench.revision import exported
from bench.server import Server, health_latency, streamlit_server
from bench.ws_session import score_texts
from scoring import create_tone_scorer
from ui.widgets import score_card_selector

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
# Debian's Chromium (full browser, new headless mode) opens a browser window per Playwright context, and each
# window starts its omnibox (address bar) popup, a WebUI renderer ("chrome://omnibox-popup.top-chrome/") that
# burned 0.75-1.3 s of CPU during every measured page load on 2 CPUs: a viewer's browser already has its
# window. It is turned off with its three features. A second --disable-features replaces Playwright's own list,
# so that list (Playwright 1.5x, read from a renderer's command line) is repeated first.
_PLAYWRIGHT_DISABLED = ("AimEnabled,AvoidCorsURLLoaderRestartOnRedirect,AvoidUnnecessaryBeforeUnloadCheckSync,"
                        "DestroyProfileOnBrowserClose,HttpsFirstBalancedModeAutoEnable,HttpsUpgrades,LensOverlay,"
                        "MediaRouter,NetworkTimeServiceQuerying,OptimizationHints,PaintHolding,PreconnectToSearch,"
                        "TcpPortRandomizationWin,ThirdPartyStoragePartitioning")  # fmt: skip
_OMNIBOX_POPUP = "WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync",
                 f"--disable-features={_PLAYWRIGHT_DISABLED},{_OMNIBOX_POPUP}"]  # fmt: skip
BOX = ".st-key-tone-text textarea"
# The Tone page's headline score: the number of ui.score_card's card "tone.score" (a markdown heading, drawn as soon
# as the page's first message arrives). The other selectors find the same score on the trees a `--baseline` may
# name, and nothing else: the card's HTML number (d64c0be and before, back to 114b1ab), and before any card the
# page's first st.metric, only where the page has no card (querySelector returns the first element present in
# document order, so a plain st.metric fallback would pick the metric row beside a card whose number is late).
METRIC = ", ".join(
    (
        score_card_selector("tone.score"),
        ".st-key-tone-score .score-card-value",
        'body:not(:has(.st-key-tone-score)) [data-testid="stMetricValue"]',
    )
)
POSITIVE = ["Thank you so much, this is wonderful!", "Great job, really helpful.", "I love how fast this was.",
            "Your team is kind and brilliant.", "Happy to help, have a lovely day!"]  # fmt: skip
NEGATIVE = ["This is awful and slow.", "I hate waiting this long.", "Terrible service, very disappointing.",
            "The delay is frustrating and sad.", "Sadly the order was lost."]  # fmt: skip
NEUTRAL = ["Your order number is {n}.", "The parcel left the depot on day {n}.", "Ticket {n} was updated."]
# When the first score is on screen: the page records the time (ms since the epoch) once the first frame showing
# a visible, non-empty score has been painted (a task queued from that frame's animation callback runs after its
# paint). Playwright's own visibility check polls from the page's main thread: when the browser goes on to
# evaluate plotly.js right after painting the score, the poll saw it up to ~0.7 s late.
FIRST_SCORE_PAINTED_JS = """(() => {
  const observer = new MutationObserver(() => {
    const score = document.querySelector(METRIC);
    if (!score || !score.textContent.trim() || !score.checkVisibility({opacityProperty: true})) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => {
      window.__firstScorePainted = performance.timeOrigin + performance.now();
    }, 0));
  });
  observer.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
})();""".replace("METRIC", json.dumps(METRIC))


@dataclass
class Session:
    """One browser session's texts, the scores the library gives them, and what it measured."""

    texts: list[str]
    expected: list[str]
    latencies: list[float] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    page_load: float = 0.0  # from opening the page to the first painted frame that shows its score
    page_load_polled: float = 0.0  # the same, to when Playwright's visibility check saw the score


def plan(sessions: int, rounds: int, seed: int = 7) -> list[Session]:
    """Return texts of two or more sentences whose tone scores (3 decimals, as shown) all differ.

    All different, so a mixed-up result cannot pass; two or more sentences, so the page shows a score (a
    single sentence has no stability to measure and shows "—").
    """
    rng, scorer, used = random.Random(seed), create_tone_scorer(), set[str]()
    out: list[Session] = []
    for s in range(sessions):
        texts: list[str] = []
        expected: list[str] = []
        while len(texts) < rounds:
            positive = rng.randint(0, 3)  # at least two sentences: one alone has no stability score to show
            parts = rng.sample(POSITIVE, positive) + rng.sample(NEGATIVE, rng.randint(0 if positive else 1, 3))
            parts.append(rng.choice(NEUTRAL).format(n=f"{s}-{len(texts)}-{rng.randint(0, 999)}"))
            rng.shuffle(parts)
            text = " ".join(parts)
            score = f"{scorer.run(output=text).score:.3f}"
            if score not in used:
                used.add(score)
                texts.append(text)
                expected.append(score)
        out.append(Session(texts, expected))
    return out


def cpu_seconds(root: psutil.Process, exclude: int | None = None) -> float:
    """User + system CPU seconds of ``root`` and its live descendants (skipping the tree of pid ``exclude``)."""
    skip = set()
    if exclude is not None:
        with_children = psutil.Process(exclude)
        skip = {exclude, *(c.pid for c in with_children.children(recursive=True))}
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        if proc.pid in skip:
            continue
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


async def _drive(browser: Browser, url: str, session: Session) -> None:
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    await context.add_init_script(FIRST_SCORE_PAINTED_JS)
    try:
        page = await context.new_page()
        page.set_default_timeout(120_000)  # fill/press wait for the text area while 10 sessions rerun at once
        session.page_load, session.page_load_polled = await _first_score(page, url)
        box, metric = page.locator(BOX), page.locator(METRIC).first
        for text, want in zip(session.texts, session.expected, strict=True):
            if await metric.inner_text() == want:
                raise RuntimeError(f"the page already shows {want}: the update could not be told apart")
            await box.fill(text)
            start = time.perf_counter()
            await box.press("Control+Enter")
            await expect(metric).to_have_text(want, timeout=120_000)
            session.latencies.append(time.perf_counter() - start)
            session.shown.append(await metric.inner_text())
        assert await box.input_value() == session.texts[-1], "another session's text appeared in this one"
    finally:
        await context.close()


async def _first_score(page: Page, url: str) -> tuple[float, float]:
    """Open the Tone page in ``page`` (its context runs :data:`FIRST_SCORE_PAINTED_JS`); return the seconds
    until the first frame showing its score was painted, and until Playwright's visibility check saw it."""
    start, wall = time.perf_counter(), time.time()
    await page.goto(f"{url}/tone")
    await page.locator(METRIC).first.wait_for(timeout=120_000)
    polled = time.perf_counter() - start
    await page.wait_for_function("window.__firstScorePainted !== undefined", timeout=120_000)
    painted: float = await page.evaluate("window.__firstScorePainted")
    return painted / 1000 - wall, polled


async def _returning_viewer(browser: Browser, url: str) -> float:
    """Seconds from opening the Tone page to its first score for a viewer whose browser has the app cached.

    A first tab loads the app (its scripts are then in the browser's cache, as for anyone who opened it
    before); a second tab, a new Streamlit session, is timed.
    """
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    await context.add_init_script(FIRST_SCORE_PAINTED_JS)
    try:
        for _ in range(2):
            page = await context.new_page()
            seconds, _polled = await _first_score(page, url)
            await page.close()
        return seconds
    finally:
        await context.close()


async def _probe(url: str, stop: asyncio.Event, samples: list[float]) -> None:
    while not stop.is_set():
        samples.append(await asyncio.to_thread(health_latency, url))
        await asyncio.sleep(0.2)


async def measure(server: Server, sessions: int, rounds: int) -> dict[str, object]:
    """Return baseline (one session alone) and concurrent latencies, health-probe latencies and the sessions."""
    url, work = server.url, plan(sessions + 1, rounds)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            first = plan(1, 1, seed=99)[0]
            await _drive(browser, url, first)  # warm-up: first run of app.py, caches, plotly.js
            await _drive(browser, url, work[0])  # the baseline: one session alone
            returning = await _returning_viewer(browser, url)
            stop, health = asyncio.Event(), list[float]()
            me, streamlit = psutil.Process(), psutil.Process(server.pid)
            cpu_before = cpu_seconds(streamlit), cpu_seconds(me, exclude=server.pid)
            probe = asyncio.create_task(_probe(url, stop, health))
            start = time.perf_counter()
            await asyncio.gather(*(_drive(browser, url, s) for s in work[1:]))
            wall = time.perf_counter() - start
            cpu = cpu_seconds(streamlit) - cpu_before[0], cpu_seconds(me, exclude=server.pid) - cpu_before[1]
            stop.set()
            await probe
        finally:
            await browser.close()
    return {
        "first": first,
        "returning": returning,
        "baseline": work[0],
        "sessions": work[1:],
        "health": health,
        "wall": wall,
        "cpu": cpu,
    }


async def measure_protocol(url: str, sessions: int, rounds: int) -> tuple[list[float], list[float]]:
    """Browserless sessions (the websocket protocol): one alone, then ``sessions`` at once; check every score."""
    work = plan(sessions + 1, rounds, seed=11)

    async def one(session: Session) -> list[float]:
        shown, latencies = await score_texts(url, session.texts)
        if shown != session.expected:
            raise AssertionError(f"a session saw {shown}, not its own scores {session.expected}")
        return latencies

    base = await one(work[0])
    loaded = await asyncio.gather(*(one(s) for s in work[1:]))
    return base, [x for latencies in loaded for x in latencies]


def run_measure(server: Server, sessions: int, rounds: int) -> dict[str, object]:
    """:func:`measure` in a thread of its own: callable even where an event loop already runs (pytest-playwright)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, measure(server, sessions, rounds)).result()


def run_protocol(url: str, sessions: int, rounds: int) -> tuple[list[float], list[float]]:
    """:func:`measure_protocol` in a thread of its own (see :func:`run_measure`)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, measure_protocol(url, sessions, rounds)).result()


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), linear between closest ranks."""
    ordered = sorted(values)
    return statistics.quantiles(ordered, n=100, method="inclusive")[int(q) - 1] if len(ordered) > 1 else ordered[0]


def _row(label: str, values: list[float], base: list[float]) -> str:
    p50, p95 = percentile(values, 50), percentile(values, 95)
    return (
        f"| {label} | {len(values)} | {p50:.2f} | {p95:.2f} | {max(values):.2f} | {p50 / percentile(base, 50):.1f}x |"
    )


def report(result: dict[str, object], sessions: int, rounds: int) -> str:
    """Return the measurements as a markdown table and two lines of context."""
    baseline: Session = result["baseline"]  # type: ignore[assignment]
    runs: list[Session] = result["sessions"]  # type: ignore[assignment]
    health: list[float] = result["health"]  # type: ignore[assignment]
    cpu: tuple[float, float] = result["cpu"]  # type: ignore[assignment]
    base, loaded = baseline.latencies, [x for s in runs for x in s.latencies]
    lines = [
        "| Run | Measurements | p50 (s) | p95 (s) | max (s) | p50 vs baseline |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        _row("score update, 1 session alone (baseline)", base, base),
        _row(f"score update, {sessions} sessions at once", loaded, base),
        _row("page load to first score, 1 session alone", [baseline.page_load], [baseline.page_load]),
        _row(f"page load to first score, {sessions} at once", [s.page_load for s in runs], [baseline.page_load]),
        "",
        f"Health endpoint during the concurrent run: p50 {percentile(health, 50) * 1000:.0f} ms, "
        f"p95 {percentile(health, 95) * 1000:.0f} ms over {len(health)} probes. Wall time {result['wall']:.1f} s "
        f"for {sessions} sessions x {rounds} updates; every session saw exactly its own scores. CPU time meanwhile: "
        f"server {cpu[0]:.1f} s, browser (Chromium + Playwright) {cpu[1]:.1f} s.",
        f"Machine: {os.cpu_count()} CPUs, load average after the run {', '.join(f'{x:.1f}' for x in os.getloadavg())}.",
    ]
    return "\n".join(lines)


def measure_tree(root: Path, sessions: int, rounds: int, counts: list[int]) -> dict[str, object]:
    """Start the dashboard in ``root``; measure browser sessions, then browserless ones; return everything."""
    with streamlit_server(root=root) as server:
        result = run_measure(server, sessions, rounds)
        result["protocol"] = {n: run_protocol(server.url, n, rounds) for n in counts}
    return result


def targets(results: dict[str, dict[str, object]], sessions: int) -> str:
    """Issue 14's two dashboard targets for each measured tree, as a markdown table."""
    labels = list(results)
    lines = [
        "| Target | " + " | ".join(labels) + " |",
        "| --- | " + " | ".join("---:" for _ in labels) + " |",
    ]

    def row(label: str, value: Callable[[dict[str, object]], float]) -> str:
        return f"| {label} | " + " | ".join(f"{value(results[k]):.2f} s" for k in labels) + " |"

    def server_p95(r: dict[str, object]) -> float:
        protocol: dict[int, tuple[list[float], list[float]]] = r["protocol"]  # type: ignore[assignment]
        return percentile(protocol[sessions][1], 95)

    def browser_p95(r: dict[str, object]) -> float:
        runs: list[Session] = r["sessions"]  # type: ignore[assignment]
        return percentile([x for s in runs for x in s.latencies], 95)

    def page_load(key: str) -> Callable[[dict[str, object]], float]:
        def value(r: dict[str, object]) -> float:
            session: Session = r[key]  # type: ignore[assignment]
            return session.page_load

        return value

    def polled(r: dict[str, object]) -> float:
        session: Session = r["baseline"]  # type: ignore[assignment]
        return session.page_load_polled

    def returning(r: dict[str, object]) -> float:
        return float(r["returning"])  # type: ignore[arg-type]

    lines += [
        row(f"server-side p95 of a score update, {sessions} sessions at once (target < 1 s)", server_p95),
        row(f"in the browser, p95 of a score update, {sessions} sessions at once", browser_p95),
        row("first score on a new page, 1 viewer, empty browser cache (target < 2 s)", page_load("baseline")),
        row("the same, as Playwright's visibility check saw it", polled),
        row("first score on a new page, 1 viewer with the app in the browser cache", returning),
        row("first score on the first page after the server starts", page_load("first")),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10, help="concurrent browser sessions (10)")
    parser.add_argument("--rounds", type=int, default=3, help="score updates per session (3)")
    parser.add_argument("--protocol-sessions", default="10,50", help="browserless session counts (10,50)")
    parser.add_argument("--baseline", metavar="REF", help="also measure the dashboard at this git revision, first")
    args = parser.parse_args()
    counts = sorted({args.sessions, *(int(n) for n in args.protocol_sessions.split(",") if n)})
    results: dict[str, dict[str, object]] = {}
    if args.baseline:
        with exported(args.baseline, prefix="load_baseline_") as folder:
            results[f"before ({args.baseline})"] = measure_tree(folder, args.sessions, args.rounds, counts)
    results["after (this tree)" if args.baseline else "this tree"] = measure_tree(
        ROOT, args.sessions, args.rounds, counts
    )
    for label, result in results.items():
        print(f"\n## {label}\n")
        print(report(result, args.sessions, args.rounds))
        print("\nThe server alone, without browsers (the websocket protocol; the same flow and checks):\n")
        print("| Run | Measurements | p50 (s) | p95 (s) | max (s) | p50 vs baseline |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        protocol: dict[int, tuple[list[float], list[float]]] = result["protocol"]  # type: ignore[assignment]
        for n, (base, loaded) in protocol.items():
            print(_row(f"score update, 1 session alone (baseline of the {n} below)", base, base))
            print(_row(f"score update, {n} sessions at once", loaded, base))
    print("\n## Targets\n")
    print(targets(results, args.sessions))


if __name__ == "__main__":
    main()
