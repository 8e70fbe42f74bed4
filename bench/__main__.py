"""``python -m bench``: the speed benchmarks of issue 5, printed as markdown tables for docs/benchmarks.md."""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import tempfile
from pathlib import Path

from bench.throughput import _rate, build_rows, cli_run, e5_timing, node_timings, python_timings


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000, help="rows for the throughput tables (20000)")
    parser.add_argument("--mastra-rows", type=int, default=2_000, help="rows for @mastra/evals scorer.run (2000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of all measurements; each best is kept (5)")
    parser.add_argument("--scale-rows", type=int, default=100_000, help="rows for the all-scorers CLI run (100000)")
    parser.add_argument("--memory-rows", default="100000,400000", help="two sizes for the peak-memory check")
    parser.add_argument("--e5-rows", type=int, default=200, help="rows for the e5 tone engine, one cold pass (200)")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run, not the published numbers")
    parser.add_argument("--skip-throughput", action="store_true", help="only the CLI scale runs")
    parser.add_argument("--skip-scale", action="store_true", help="only the throughput tables")
    return parser.parse_args()


def _machine() -> str:
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs, Python {platform.python_version()}, Node {node}, load average at start {load}"


def _throughput_table(node: dict[str, dict[str, float]], ours: dict[str, tuple[int, float]]) -> list[str]:
    tone = _rate(node["mastraTone"]["rows"], node["mastraTone"]["seconds"])
    sim = _rate(node["mastraSimilarity"]["rows"], node["mastraSimilarity"]["seconds"])
    lines = [
        "| Scorer | Implementation | Rows | Rows/s | vs `@mastra/evals` `scorer.run` |",
        "| --- | --- | ---: | ---: | ---: |",
        f"| tone | `@mastra/evals` `createToneScorer().run` (Node.js) | {node['mastraTone']['rows']:,.0f} | "
        f"{tone:,.0f} | 1.0x |",
    ]  # fmt: skip
    for key, (rows, seconds) in ours.items():
        label, workers = key.split("|")
        if label.startswith("tone"):
            rate = _rate(rows, seconds)
            shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:.1f}"
            ratio = _ratio(rate / tone)
            lines.append(f"| tone | ours, `{label}`, {workers} process(es) | {rows:,} | {shown} | {ratio} |")
    lines.append(f"| similarity | `@mastra/evals` `createContentSimilarityScorer().run` (Node.js) | "
                 f"{node['mastraSimilarity']['rows']:,.0f} | {sim:,.0f} | 1.0x |")  # fmt: skip
    for key, (rows, seconds) in ours.items():
        label, workers = key.split("|")
        if label.startswith("similarity"):
            rate = _rate(rows, seconds)
            lines.append(
                f"| similarity | ours, `{label}`, {workers} process(es) | {rows:,} | {rate:,.0f} | {rate / sim:,.1f}x |"
            )
    return lines


def _ratio(ratio: float) -> str:
    """``12.3x``; a ratio under 1 with three decimals (the e5 engine is thousands of times slower)."""
    return f"{ratio:,.1f}x" if ratio >= 1 else f"{ratio:.3f}x"


def _raw_table(node: dict[str, dict[str, float]], ours: dict[str, tuple[int, float]]) -> list[str]:
    lines = [
        "| Library | Node.js npm package (rows/s) | Ours, 1 process (rows/s) | Ours / npm |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, npm, key in (
        ("AFINN sentiment", "npmSentiment", "raw afinn|1"),
        ("Dice similarity", "npmStringSimilarity", "raw dice|1"),
    ):
        theirs = _rate(node[npm]["rows"], node[npm]["seconds"])
        mine = _rate(*ours[key])
        package = "`sentiment` `analyze`" if npm == "npmSentiment" else "`string-similarity` `compareTwoStrings`"
        lines.append(f"| {name} | {package}: {theirs:,.0f} | {mine:,.0f} | {mine / theirs:.2f}x |")
    return lines


def main() -> None:
    args = _args()
    if args.quick:
        args.rows, args.mastra_rows, args.rounds, args.scale_rows, args.memory_rows = 2000, 300, 1, 5000, "5000,20000"
        args.e5_rows = min(args.e5_rows, 20)
    print(f"Machine: {_machine()}\n")
    if not args.skip_throughput:
        _throughput(args)
    if not args.skip_scale:
        _scale(args)
    print(f"\nLoad average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def _throughput(args: argparse.Namespace) -> None:
    df = build_rows(args.rows)
    unique = build_rows(args.rows, unique=True)
    node: dict[str, dict[str, float]] = {}
    ours: dict[str, tuple[int, float]] = {}
    for _ in range(args.rounds):  # alternate Node and Python so both see the same machine load; keep each best
        for name, timing in node_timings(df, args.mastra_rows, 1).items():
            if name not in node or timing["seconds"] < node[name]["seconds"]:
                node[name] = timing
        for label, (rows, seconds) in python_timings(df, unique, 1).items():
            if label not in ours or seconds < ours[label][1]:
                ours[label] = (rows, seconds)
    if args.e5_rows and (e5 := e5_timing(df.head(args.e5_rows))) is not None:
        ours["tone e5/smart (cold: every sentence embedded), first rows only|1"] = e5
    print(
        f"### Throughput ({args.rows:,} rows; @mastra/evals on the first {args.mastra_rows:,}; best of {args.rounds})\n"
    )
    print("\n".join(_throughput_table(node, ours)) + "\n")
    print("### Against the raw npm libraries (same rows)\n")
    print("\n".join(_raw_table(node, ours)) + "\n")


def _scale(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        seconds, peak = cli_run(args.scale_rows, "tone,similarity,toxicity", 2, Path(folder))
        print("### Scale (CLI, `--workers 2`, CSV in and out)\n\n| Run | Rows | Seconds | Rows/s | Peak RSS (MB) |")
        print("| --- | ---: | ---: | ---: | ---: |")
        rate = args.scale_rows / seconds
        print(f"| tone + similarity + toxicity | {args.scale_rows:,} | {seconds:,.1f} | {rate:,.0f} | {peak:,.0f} |")
        for rows in (int(x) for x in args.memory_rows.split(",")):
            seconds, peak = cli_run(rows, "tone,similarity", 2, Path(folder))
            print(f"| tone + similarity | {rows:,} | {seconds:,.1f} | {rows / seconds:,.0f} | {peak:,.0f} |")


if __name__ == "__main__":
    main()
