"""``python -m bench.ab REV``: the CLI as committed (HEAD) against the CLI of git revision REV, same rows, same run.

Before/after numbers for a speed change: both trees (exported with ``git archive``, so uncommitted work in the
working tree counts in neither) score the same CSV (VADER-text rows, as ``python -m bench``
builds them) with the same Python, alternating, ``--rounds`` times each; each keeps its best time. The two
output files must be byte-identical (a speed change must not change a score); the run fails if they differ.
``--files`` names paths to take from REV while the rest comes from this tree (e.g. only the files a change
touched, so that other work since REV does not count); without it the whole of REV is used. ``--source`` scores
a file of your own instead (e.g. ``scoring/data/sample_responses.csv``), ``--cli`` adds CLI options
(``--cli "--reference-column reference --engine afinn"``) and ``--out-suffix`` picks the output format. The
summaries the two CLIs print must be the same too.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.throughput import ROOT, build_rows


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__)
    parser.add_argument("rev", help="git revision to compare with (e.g. HEAD~3)")
    parser.add_argument("--rows", type=int, default=100_000, help="rows to score (100000)")
    parser.add_argument("--scorers", default="tone,similarity,toxicity", help="scorers (tone,similarity,toxicity)")
    parser.add_argument("--workers", type=int, default=2, help="CLI --workers (2)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each tree; the best counts (3)")
    parser.add_argument("--files", nargs="*", help="take only these paths from REV (files missing there are removed)")
    parser.add_argument("--source", type=Path, help="score this file instead of --rows built rows")
    parser.add_argument("--cli", default="", help='more CLI options, e.g. "--engine afinn --splitter mastra"')
    parser.add_argument("--out-suffix", default=".csv", choices=[".csv", ".jsonl", ".parquet"], help="output format")
    return parser.parse_args()


def _tree(rev: str, files: list[str] | None, folder: Path) -> Path:
    """Write REV (or HEAD with ``files`` as they were at REV) into ``folder``; return it."""
    folder.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD" if files else rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    if files:
        for path in files:
            shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, check=False)
            (folder / path).unlink(missing_ok=True)
            if shown.returncode == 0:
                (folder / path).parent.mkdir(parents=True, exist_ok=True)
                (folder / path).write_bytes(shown.stdout)
    return folder


def _run(tree: Path, source: Path, out: Path, args: argparse.Namespace) -> tuple[float, str]:
    """Run the CLI of ``tree``; return its time and its summary (stdout without the "wrote ... to PATH" line)."""
    command = [sys.executable, "-m", "scoring", "evaluate", str(source), "--scorers", args.scorers,
               "--workers", str(args.workers), "--out", str(out), "--no-progress", *shlex.split(args.cli)]  # fmt: skip
    if "toxicity" in args.scorers:  # one engine on both sides: revisions before e5 know only the classifier
        command += ["--toxicity-engine", "classifier"]
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=tree, capture_output=True, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"CLI failed in {tree}: {proc.stderr.decode()[-2000:]}")
    seconds = time.perf_counter() - start
    return seconds, "".join(line for line in proc.stdout.decode().splitlines(True) if not line.startswith("wrote "))


def main() -> None:
    args = _args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trees = {
            "before": _tree(args.rev, args.files, folder / "before"),
            "after": _tree("HEAD", None, folder / "after"),
        }
        source = args.source.resolve() if args.source else folder / "rows.csv"
        if args.source is None:
            build_rows(args.rows, seed=args.rows).to_csv(source, index=False)
        best = dict.fromkeys(trees, float("inf"))
        summaries = dict.fromkeys(trees, "")
        loads = [os.getloadavg()[0]]
        for _ in range(args.rounds):
            for name, tree in trees.items():
                seconds, summaries[name] = _run(tree, source, folder / f"{name}{args.out_suffix}", args)
                best[name] = min(best[name], seconds)
                loads.append(os.getloadavg()[0])
        same = filecmp.cmp(folder / f"before{args.out_suffix}", folder / f"after{args.out_suffix}", shallow=False)
    what = f"{args.rev} ({' '.join(args.files)})" if args.files else args.rev
    rows = str(args.source) if args.source else f"{args.rows:,} rows"
    print(f"{rows}, --scorers {args.scorers} {args.cli}, --workers {args.workers}, {args.out_suffix}, best of "
          f"{args.rounds}; 1-min load average {min(loads):.1f}-{max(loads):.1f}")  # fmt: skip
    print(f"before ({what}): {best['before']:.1f} s; after (HEAD): {best['after']:.1f} s; "
          f"{best['before'] / best['after']:.2f}x; outputs byte-identical: {same}; "
          f"summaries identical: {summaries['before'] == summaries['after']}")  # fmt: skip
    if not same or summaries["before"] != summaries["after"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
