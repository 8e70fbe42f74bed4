"""What reading a file that is not UTF-8 costs: the line scan for mixed encodings, and line-by-line decoding.

Run ``python -m bench.encodings [--rows N] [--rounds R]``. The same rows (VADER ground-truth texts with
accented words) are written as UTF-8, as Windows-1252, and mixed (every third line Windows-1252, the
rest UTF-8), then read with ``read_table`` and streamed with ``iter_table_chunks``; each figure is the
best of ``--rounds``, and the ratios are against the UTF-8 file measured in the same run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.throughput import source_texts
from scoring.io.loaders import iter_table_chunks, read_table

ACCENTS = ("café", "naïve", "déjà vu", "über", "señor")


def _lines(rows: int) -> list[str]:
    texts = source_texts()
    return [f'{i},"{texts[i % len(texts)].replace(chr(34), "")} {ACCENTS[i % len(ACCENTS)]}"\n' for i in range(rows)]


def write_files(folder: Path, rows: int) -> dict[str, Path]:
    """Write the three files; return {label: path}."""
    lines = _lines(rows)
    header = b"id,output\n"
    files = {
        "utf-8": header + "".join(lines).encode("utf-8"),
        "windows-1252": header + "".join(lines).encode("cp1252", "replace"),
        "mixed (1 line in 3 cp1252)": header
        + b"".join(line.encode("cp1252", "replace") if i % 3 == 0 else line.encode() for i, line in enumerate(lines)),
    }
    paths = {}
    for label, data in files.items():
        path = folder / (label.split()[0] + ".csv")
        path.write_bytes(data)
        paths[label] = path
    return paths


def best_of(rounds: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.encodings", description=__doc__)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_files(Path(tmp), args.rows)
        print(f"| file ({args.rows:,} rows) | read_table s | vs UTF-8 | streamed (50k chunks) s | vs UTF-8 |")
        print("|---|---|---|---|---|")
        base: tuple[float, float] | None = None
        for label, path in paths.items():
            whole = best_of(args.rounds, lambda p=path: read_table(p))  # type: ignore[misc]
            streamed = best_of(args.rounds, lambda p=path: sum(len(c) for c in iter_table_chunks(p)))  # type: ignore[misc]
            base = base or (whole, streamed)
            print(f"| {label} | {whole:.3f} | {whole / base[0]:.2f}x | {streamed:.3f} | {streamed / base[1]:.2f}x |")


if __name__ == "__main__":
    main()
