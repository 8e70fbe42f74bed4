"""The per-item path a Python user calls first: ``scorer.run`` and ``run_evals``, against ``@mastra/evals``.

Run ``python -m bench.per_item [--rounds 3] [--rows N] [--baseline REF]``. Every VADER ground-truth text
(23,703 with the shared data) is one item: its output is the text, its input the next text. ``@mastra/evals``'
``scorer.run`` (Node.js) and ours score the same items in the same run, one process each, best of
``--rounds`` passes with our per-text caches cleared before each pass. ``--baseline REF`` also times the
library as it is at git revision REF (exported to a temporary folder): each tree runs in a worker process of
its own with this same harness, and the two take turns pass by pass (the first to go alternating), so a change
in the machine's load falls on both. Prints a markdown table of
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
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

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


def passes(inputs: list[str], outputs: list[str]) -> dict[str, Callable[[], None]]:
    """{"label|how": one pass over every item}: ``scorer.run`` in a loop and ``run_evals``, per scorer."""
    from scoring import create_content_similarity_scorer, create_tone_scorer, run_evals

    data = [{"input": i, "output": o} for i, o in zip(inputs, outputs, strict=True)]
    scorers: dict[str, Any] = dict(
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
    out: dict[str, Callable[[], None]] = {}
    for label, scorer in scorers.items():
        scorer.run(input=inputs[0], output=outputs[0])  # load lexicons and models once

        def loop(s: Any = scorer) -> None:
            run = s.run
            for i, o in zip(inputs, outputs, strict=True):
                run(input=i, output=o)

        def evals(s: Any = scorer) -> None:
            run_evals(data, [s])

        def evals_lean(s: Any = scorer) -> None:
            run_evals(data, [s], keep_items=False)

        out[f"{label}|scorer.run"], out[f"{label}|run_evals"] = loop, evals
        if "keep_items" in inspect.signature(run_evals).parameters:  # a baseline may predate it
            out[f"{label}|run_evals(keep_items=False)"] = evals_lean
    return out


def serve(items: Path) -> None:
    """The worker: print the pass names (JSON), then time one pass per name read from stdin, as JSON [wall, cpu]."""
    data = json.loads(items.read_text(encoding="utf-8"))
    timed = passes(data["inputs"], data["outputs"])
    print(json.dumps(list(timed)), flush=True)
    for line in sys.stdin:
        print(json.dumps(_best_of(1, timed[line.strip()])), flush=True)


def interleaved(
    trees: dict[str, Path], inputs: list[str], outputs: list[str], rounds: int
) -> dict[str, dict[str, tuple[float, float]]]:
    """Time each tree's library in a worker of its own, pass by pass, alternating which tree goes first.

    Returns {tree name: {"label|how": (best wall seconds, best CPU seconds)}}: the trees ran their passes
    side by side in time, so a change in the machine's load falls on both (the harness is this file in both).
    """
    with tempfile.TemporaryDirectory(prefix="per_item_") as folder:
        items = Path(folder) / "items.json"
        items.write_text(json.dumps({"inputs": inputs, "outputs": outputs}), encoding="utf-8")
        workers = {
            name: subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--serve-items", str(items)],
                cwd=root,
                env={**os.environ, "PYTHONPATH": str(root)},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for name, root in trees.items()
        }
        try:
            names = {name: json.loads(_line(worker, name)) for name, worker in workers.items()}
            best: dict[str, dict[str, tuple[float, float]]] = {name: {} for name in workers}
            order = list(dict.fromkeys(key for keys in names.values() for key in keys))
            for r in range(rounds):
                for key in order:
                    for name in list(workers)[:: 1 if r % 2 == 0 else -1]:
                        if key not in names[name]:
                            continue
                        workers[name].stdin.write(key + "\n")  # type: ignore[union-attr]
                        workers[name].stdin.flush()  # type: ignore[union-attr]
                        wall, cpu = json.loads(_line(workers[name], name))
                        seen = best[name].get(key, (wall, cpu))
                        best[name][key] = (min(seen[0], wall), min(seen[1], cpu))
            return {name: {key: best[name][key] for key in names[name]} for name in workers}  # each tree's order
        finally:
            for worker in workers.values():
                worker.kill()
                worker.wait()


def _line(worker: subprocess.Popen[str], name: str) -> str:
    line = worker.stdout.readline() if worker.stdout else ""
    if not line:
        raise SystemExit(f"timing {name} failed: its worker exited (code {worker.poll()}).")
    return line


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.per_item", description=__doc__)
    parser.add_argument("--rows", type=int, default=None, help="first N texts only (default: all)")
    parser.add_argument("--rounds", type=int, default=3, help="passes per measurement; the best is kept (3)")
    parser.add_argument("--baseline", metavar="REF", help="also time the library at this git revision (e.g. main)")
    parser.add_argument("--serve-items", type=Path, help=argparse.SUPPRESS)  # a worker (see interleaved)
    args = parser.parse_args()
    if args.serve_items:
        serve(args.serve_items)
        return
    import pandas as pd

    from bench.revision import exported  # here, not at the top: a worker runs this file with another tree's bench
    from bench.throughput import node_timings, source_texts

    texts = source_texts()[: args.rows]
    inputs, outputs = texts[1:] + texts[:1], texts
    n = len(texts)
    print(f"{n:,} items, {os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.1f}")
    node = node_timings(pd.DataFrame({"input": inputs, "output": outputs}), n, args.rounds)
    with ExitStack() as stack:
        trees = {"after": ROOT}
        if args.baseline:
            trees = {"before": stack.enter_context(exported(args.baseline, prefix="per_item_baseline_")), **trees}
        timings = interleaved(trees, inputs, outputs, args.rounds)
    before, after = timings.get("before", {}), timings["after"]
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
