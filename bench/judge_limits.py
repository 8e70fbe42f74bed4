"""How the LLM judge's limits hold against a hostile endpoint, in seconds and megabytes (issue 10).

``python -m bench.judge_limits`` runs ``python -m scoring evaluate --toxicity-engine judge`` against a
local fake judge (``tests/scoring/fake_openai.py``) three ways and prints one markdown table:

- **Ctrl-C**: every request hangs (``TONE_EXPLORER_JUDGE_TIMEOUT_S=600``); SIGINT is sent once the first
  request has arrived; the time from SIGINT until the judge's requests have all stopped (in this
  process: ``judge_many`` raised and no judge thread is left), and until the CLI has exited, next to the
  CLI's exit time when Ctrl-C stops a run without the judge (the interpreter's own teardown);
- **one byte a second**: the judge sends its reply one byte every 0.2 s, for ever; the time until a row
  fails, with ``TONE_EXPLORER_JUDGE_TIMEOUT_S=2`` (before the fix: never);
- **100 MB replies**: 8 rows, each reply 100 MB of JSON whitespace before the verdicts; the CLI's peak
  resident memory (before the fix: 1.3 GB).

Times are wall-clock on this machine, under whatever else runs on it; the tests check the same
behaviours without timing them (``tests/scoring/toxicity/test_judge_hostile.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pandas as pd

from tests.scoring.fake_openai import Reply, serve

ROOT = Path(__file__).resolve().parent.parent
GOOD = '{"verdicts": [{"verdict": "no", "reason": "polite"}]}'


def _cli(data: Path, url: str) -> list[str]:
    return [sys.executable, "-m", "scoring", "evaluate", str(data), "--scorers", "toxicity", "--toxicity-engine",
            "judge", "--judge-base-url", url, "--no-progress"]  # fmt: skip


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": "sk-bench", "PYTHONPATH": str(ROOT), **extra}


def interrupt_seconds(data: Path) -> float:
    """Seconds from SIGINT to exit, with every judge request hanging."""
    with serve([Reply(GOOD, hang=True)]) as fake:
        proc = subprocess.Popen(_cli(data, fake.base_url), env=_env(TONE_EXPLORER_JUDGE_TIMEOUT_S="600"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        if not fake.wait_for(1, 120):
            proc.kill()
            raise RuntimeError("the CLI never asked the judge")
        start = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=900)
        took = time.perf_counter() - start
    if code != 130:
        raise RuntimeError(f"exit code {code}, expected 130")
    return took


def stop_seconds(rows: int = 8) -> float:
    """Seconds from SIGINT until ``judge_many`` has raised and its threads are gone, every request hanging."""
    from scoring.toxicity.judge.batch import judge_many
    from scoring.toxicity.scorer import create_toxicity_scorer

    with serve([Reply(GOOD, hang=True)]) as fake:
        scorer = create_toxicity_scorer(engine="judge", model="m", base_url=fake.base_url, api_key="k", timeout=600)
        fired: list[float] = []

        def interrupt() -> None:
            fake.wait_for(1, 120)
            fired.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)

        threading.Thread(target=interrupt, daemon=True).start()
        with contextlib.suppress(KeyboardInterrupt):
            judge_many(scorer.judge, [f"Polite answer {i}." for i in range(rows)])
        while any(t.name.startswith("judge") for t in threading.enumerate()):
            time.sleep(0.001)
        return time.perf_counter() - fired[0]


def baseline_interrupt_seconds(data: Path, wait: float) -> float:
    """Seconds from SIGINT to exit for a CLI run without the judge (tone), ``wait`` s after its start."""
    proc = subprocess.Popen([sys.executable, "-m", "scoring", "evaluate", str(data), "--scorers", "tone",
                             "--no-progress", "--chunksize", "2000"], env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(wait)  # a benchmark, not a test: long enough for the imports, short of the file's end
    if proc.poll() is not None:
        raise RuntimeError("the run ended before it was interrupted: use a longer file or a shorter --baseline")
    start = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=900)
    return time.perf_counter() - start


def drip_seconds(data: Path, timeout: float) -> float:
    """Seconds until the CLI is done, when every reply arrives one byte at a time for ever (one row)."""
    with serve([Reply(GOOD, drip=0.2, endless=True)]) as fake:
        start = time.perf_counter()
        done = subprocess.run(_cli(data, fake.base_url), env=_env(TONE_EXPLORER_JUDGE_TIMEOUT_S=f"{timeout:g}"),
                              capture_output=True, text=True, timeout=900)  # fmt: skip
        took = time.perf_counter() - start
    if "did not answer within" not in done.stderr:
        raise RuntimeError(f"no timeout reported: {done.stderr[-300:]}")
    return took


def huge_peak_mb(data: Path) -> float:
    """The CLI's peak resident memory (MB) while every reply is 100 MB."""
    with serve([Reply(GOOD, padding=100 << 20)]) as fake:
        subprocess.run(_cli(data, fake.base_url), env=_env(), capture_output=True, timeout=900, check=False)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KB on Linux


def _spread(values: list[float]) -> str:
    return (
        f"(median of {len(values)}, min-max) | {statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.judge_limits", description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="Ctrl-C measurements (5)")
    parser.add_argument("--baseline", type=float, default=0, metavar="S",
                        help="also time Ctrl-C of a tone run without the judge, S seconds after its start")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one, eight = Path(tmp) / "one.csv", Path(tmp) / "eight.csv"
        pd.DataFrame({"output": ["A polite answer."]}).to_csv(one, index=False)
        pd.DataFrame({"output": [f"Polite answer {i}." for i in range(8)]}).to_csv(eight, index=False)
        peak = huge_peak_mb(eight)  # first: ru_maxrss of children is the largest child so far
        stops = [stop_seconds() for _ in range(args.rounds)]
        interrupts = [interrupt_seconds(eight) for _ in range(args.rounds)]
        drip = drip_seconds(one, 2.0)
        if args.baseline:
            big = Path(tmp) / "big.csv"
            texts = [f"Polite answer {i}. It is great!" for i in range(1_000_000)]  # distinct: no cache hits
            pd.DataFrame({"output": texts}).to_csv(big, index=False)
            baseline: list[float] = [baseline_interrupt_seconds(big, args.baseline) for _ in range(args.rounds)]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load}; {os.cpu_count()} CPUs\n")
    print("| Hostile judge | Measured | Before the fix |")
    print("| --- | ---: | ---: |")
    print(f"| Ctrl-C, every request hanging (timeout 600 s): SIGINT until the requests stopped, in process "
          f"{_spread(stops)} | 600 s (the deadline) |")  # fmt: skip
    print(f"| the same, CLI: SIGINT to exit {_spread(interrupts)} | 61 s (timeout 30 s) |")
    if args.baseline:
        print(f"| Ctrl-C of a CLI run without the judge (tone), for comparison: SIGINT to exit {_spread(baseline)} | |")
    print(f"| one byte every 0.2 s, for ever (timeout 2 s, 2 retries): CLI run, 1 row | {drip:.1f} s | never ends |")
    print(f"| 8 replies of 100 MB: CLI peak memory | {peak:.0f} MB | 1,300 MB |")


if __name__ == "__main__":
    main()
