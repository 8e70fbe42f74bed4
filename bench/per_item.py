"""The per-item path a Python user calls first: ``scorer.run`` and ``run_evals``, against ``@mastra/evals``.

Run ``python -m bench.per_item [--rounds 3] [--rows N] [--baseline REF]``. Every VADER ground-truth text
(23,703 with the shared data) is one item: its output is the text, its input the next text. ``@mastra/evals``'
``scorer.run`` (Node.js) and ours score the same items in the same run, one process each, best of
``--rounds`` passes with our per-text caches cleared before each pass. ``--baseline REF`` also times the
library as it is at git revision REF (exported to a temporary folder, timed by this same harness in a
subprocess), so a change is measured before and after under the same load. Prints a markdown table of
items/s and the ratio to Mastra's ``scorer.run`` for tone (VADER, AFINN) and content similarity, by wall clock
and by CPU time (user + system of each process: on a machine shared with other jobs, the load moves it less;
Node.js's count includes its JIT and GC threads). ``run_evals(keep_items=False)`` is Mastra's ``runEvals`` shape
(the means and the summary, no records kept).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABELS = ("tone, VADER (default)", "tone, AFINN as Mastra", "content similarity")


def _clear_caches() -> None:
    """Forget every per-text result this library keeps (looked up by name: a baseline may lack some)."""
    from scoring.text import language
    from scoring.tone.engines import get_engine

    for name in ("vader", "afinn"):
        get_engine(name).polarity.cache_clear()  # type: ignore[attr-defined]
    for name in ("detect_language", "coverage_warning"):
        clear = getattr(getattr(language, name, None), "cache_clear", None)
        if clear is not None:
            clear()


def _best_of(rounds: int, fn: Callable[[], object]) -> tuple[float, float]:
    """Return the fastest wall-clock and the smallest CPU time (seconds) of ``rounds`` calls, caches cleared."""
    wall, cpu = [], []
    for _ in range(rounds):
        _clear_caches()
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return min(wall), min(cpu)


def ours(inputs: list[str], outputs: list[str], rounds: int) -> dict[str, tuple[float, float]]:
    """Return {"label|how": (wall seconds, CPU seconds)} for scorer.run in a loop and for run_evals, per scorer."""
    from scoring import create_content_similarity_scorer, create_tone_scorer, run_evals

    data = [{"input": i, "output": o} for i, o in zip(inputs, outputs, strict=True)]
    scorers = dict(
        zip(
            LABELS,
            (
                create_tone_scorer(),
                create_tone_scorer(engine="afinn", splitter="mastra"),
                create_content_similarity_scorer(),
            ),
            strict=True,
        )
    )
    out: dict[str, tuple[float, float]] = {}
    for label, scorer in scorers.items():
        scorer.run(input=inputs[0], output=outputs[0])  # load lexicons and models once

        def loop(s: object = scorer) -> None:
            run = s.run  # type: ignore[attr-defined]
            for i, o in zip(inputs, outputs, strict=True):
                run(input=i, output=o)

        def evals(s: object = scorer) -> None:
            run_evals(data, [s])  # type: ignore[list-item]

        def evals_lean(s: object = scorer) -> None:
            run_evals(data, [s], keep_items=False)  # type: ignore[list-item, call-arg]

        timed: dict[str, Callable[[], None]] = {"scorer.run": loop, "run_evals": evals}
        if "keep_items" in inspect.signature(run_evals).parameters:  # a baseline may predate it
            timed["run_evals(keep_items=False)"] = evals_lean
        for how, fn in timed.items():
            out[f"{label}|{how}"] = _best_of(rounds, fn)
    return out


def baseline(ref: str, inputs: list[str], outputs: list[str], rounds: int) -> dict[str, tuple[float, float]]:
    """Time the library at git revision ``ref`` with this harness, in a subprocess; return what ``ours`` returns."""
    from bench.revision import exported  # here: the subprocess runs this file against the old tree's packages

    with exported(ref, prefix="per_item_baseline_") as folder:
        items = folder / "items.json"
        items.write_text(json.dumps({"inputs": inputs, "outputs": outputs}), encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--time-items", str(items), "--rounds", str(rounds)],
            cwd=folder, env={**os.environ, "PYTHONPATH": str(folder)}, capture_output=True, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            raise SystemExit(f"timing {ref} failed:\n{proc.stderr.decode()[-2000:]}")
        return {key: (wall, cpu) for key, (wall, cpu) in json.loads(proc.stdout).items()}


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.per_item", description=__doc__)
    parser.add_argument("--rows", type=int, default=None, help="first N texts only (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="passes per measurement; the best is kept (3)")
    parser.add_argument("--baseline", metavar="REF", help="also time the library at this git revision (e.g. main)")
    parser.add_argument("--time-items", type=Path, help=argparse.SUPPRESS)  # the baseline's subprocess
    args = parser.parse_args()
    if args.time_items:  # print {label: seconds} as JSON for the scoring package on PYTHONPATH
        items = json.loads(args.time_items.read_text(encoding="utf-8"))
        print(json.dumps(ours(items["inputs"], items["outputs"], args.rounds)))
        return
    import pandas as pd

    from bench.throughput import node_timings, source_texts

    texts = source_texts()[: args.rows]
    inputs, outputs = texts[1:] + texts[:1], texts
    n = len(texts)
    print(f"{n:,} items, {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.1f}")
    node = node_timings(pd.DataFrame({"input": inputs, "output": outputs}), n, args.rounds)
    before = baseline(args.baseline, inputs, outputs, args.rounds) if args.baseline else {}
    after = ours(inputs, outputs, args.rounds)
    print(f"load average at end {os.getloadavg()[0]:.1f}")
    print(table(n, node, before, after, args.baseline))


def table(
    n: int,
    node: dict[str, dict[str, float]],
    before: dict[str, tuple[float, float]],
    after: dict[str, tuple[float, float]],
    ref: str | None,
) -> str:
    """The markdown table: items/s (wall clock) and the ratios to Mastra by wall clock and by CPU time."""
    mastra = {"tone": node["mastraTone"], "content similarity": node["mastraSimilarity"]}
    head = ["Scorer", "Path"]
    if before:
        head += [f"`{ref}` items/s", "vs Mastra", "vs Mastra (CPU)"]
    head += ["Items/s", "vs `@mastra/evals` `scorer.run`", "vs Mastra (CPU)"]
    lines = ["| " + " | ".join(head) + " |", "| --- | --- |" + " ---: |" * (len(head) - 2)]
    for kind, what in (("tone", "createToneScorer"), ("content similarity", "createContentSimilarityScorer")):
        rate = mastra[kind]["rows"] / mastra[kind]["seconds"]
        cells = ["", "", ""] if before else []
        lines.append(
            f"| {kind} | `@mastra/evals` `{what}().run` | "
            + " | ".join([*cells, f"{rate:,.0f}", "1.0x", "1.0x"])
            + " |"
        )
    for key, (wall, cpu) in after.items():
        label, how = key.split("|")
        base = mastra["tone" if label.startswith("tone") else "content similarity"]
        per_item_wall, per_item_cpu = base["seconds"] / base["rows"], base["cpuSeconds"] / base["rows"]
        cells = []
        if before and key not in before:  # a path the baseline does not have
            cells += ["", "", ""]
        for seconds, cpu_seconds in ([before[key]] if key in before else []) + [(wall, cpu)]:
            cells += [
                f"{n / seconds:,.0f}",
                f"{per_item_wall * n / seconds:,.1f}x",
                f"{per_item_cpu * n / cpu_seconds:,.1f}x",
            ]
        lines.append(f"| {label} | ours, `{how}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
