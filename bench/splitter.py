"""Sentence splitters on the labelled set: accuracy and speed, ours against pysbd and Mastra's regex.

Run ``python -m bench.splitter`` (add ``--failures`` to print the texts a splitter gets wrong).
Accuracy: a text counts as exact when the splitter's stripped sentences equal the gold list; a
boundary is where a sentence ends inside the text, counted in non-whitespace characters so that
splitters disagreeing only about whitespace agree. Speed: sentences (gold count) per second over
the whole set, best of several rounds, and the time relative to Mastra's regex in the same run.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring.text.splitters import split_mastra, split_smart

DATA = Path(__file__).resolve().parent.parent / "tests" / "scoring" / "data"
GOLD_PATH = DATA / "sentences.txt"  # the rules were developed on this set
HELDOUT_PATH = DATA / "sentences_heldout.txt"  # written after the rules were frozen
MARK = "⟂"

Splitter = Callable[[str], list[tuple[int, int]]]


@dataclass(frozen=True, slots=True)
class GoldItem:
    """One labelled text and its gold sentences."""

    id: str
    category: str
    text: str
    sentences: tuple[str, ...]


def load_gold(path: Path = GOLD_PATH) -> list[GoldItem]:
    """Parse the labelled set (format described in the file's header)."""
    items: list[GoldItem] = []
    head: list[str] | None = None
    lines: list[str] = []
    for line in [*path.read_text(encoding="utf-8").splitlines(), "==== end"]:
        if not line.startswith("==== "):
            if head is not None:
                lines.append(line)
            continue
        if head is not None:
            marked = "\n".join(lines)
            pieces = tuple(p.strip() for p in marked.split(MARK) if p.strip())
            items.append(GoldItem(head[0], head[1], marked.replace(MARK, ""), pieces))
        head, lines = line.split()[1:3], []
    return items


def _find_spans(text: str, pieces: Sequence[str]) -> list[tuple[int, int]]:
    """Locate stripped pieces in order; a piece not found verbatim is placed by length."""
    spans, cursor = [], 0
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        at = text.find(piece, cursor)
        at = cursor if at < 0 else at
        spans.append((at, at + len(piece)))
        cursor = at + len(piece)
    return spans


def _nonspace_prefix(text: str) -> list[int]:
    counts, n = [0], 0
    for ch in text:
        n += not ch.isspace()
        counts.append(n)
    return counts


def boundaries(text: str, spans: Sequence[tuple[int, int]]) -> set[int]:
    """Sentence ends inside the text, as counts of non-whitespace characters before them."""
    prefix = _nonspace_prefix(text)
    return {prefix[end] for _, end in spans if 0 < prefix[end] < prefix[-1]}


def _ours(split: Callable[[str], list[object]]) -> Splitter:
    return lambda text: [(s.start, s.end) for s in split(text)]  # type: ignore[attr-defined]


def _pysbd() -> Splitter | None:
    try:
        import pysbd
    except ImportError:
        return None
    seg = pysbd.Segmenter(language="en", clean=False)
    return lambda text: _find_spans(text, seg.segment(text))


def splitters() -> dict[str, Splitter]:
    """The splitters compared: ours, Mastra's regex, and pysbd when installed."""
    found: dict[str, Splitter] = {"smart (ours)": _ours(split_smart), "mastra regex": _ours(split_mastra)}
    if (sbd := _pysbd()) is not None:
        found["pysbd 0.3.4"] = sbd
    return found


@dataclass(frozen=True, slots=True)
class Accuracy:
    exact: int
    total: int
    precision: float
    recall: float
    f1: float
    failures: tuple[tuple[GoldItem, list[str]], ...]


def accuracy(split: Splitter, items: Sequence[GoldItem]) -> Accuracy:
    """Exact-match count and boundary precision/recall/F1 of ``split`` on ``items``."""
    tp = fp = fn = exact = 0
    failures = []
    for item in items:
        spans = split(item.text)
        got = [item.text[a:b].strip() for a, b in spans if item.text[a:b].strip()]
        if got == list(item.sentences):
            exact += 1
        else:
            failures.append((item, got))
        pred = boundaries(item.text, spans)
        gold = boundaries(item.text, _find_spans(item.text, item.sentences))
        tp, fp, fn = tp + len(pred & gold), fp + len(pred - gold), fn + len(gold - pred)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return Accuracy(exact, len(items), p, r, f1, tuple(failures))


def seconds(split: Splitter, texts: Sequence[str], rounds: int) -> float:
    """Best wall time of ``rounds`` passes over ``texts``."""
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for text in texts:
            split(text)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--failures", action="store_true", help="print the texts each splitter gets wrong")
    parser.add_argument("--rounds", type=int, default=5, help="timing rounds (best is kept)")
    args = parser.parse_args(argv)
    dev, heldout = load_gold(GOLD_PATH), load_gold(HELDOUT_PATH)
    found = splitters()
    if "pysbd 0.3.4" not in found:
        print("pysbd is not installed (pip install -r requirements-dev.txt): its row is missing.\n")
    texts = [i.text for i in dev + heldout] * 10
    n_sent = sum(len(i.sentences) for i in dev + heldout) * 10
    base = seconds(found["mastra regex"], texts, args.rounds)
    times = {
        name: base if name == "mastra regex" else seconds(split, texts, args.rounds) for name, split in found.items()
    }
    results: dict[str, dict[str, Accuracy]] = {}
    for label, items in (("development set", dev), ("held-out set", heldout)):
        n = sum(len(i.sentences) for i in items)
        print(f"\n{label.capitalize()}: {len(items)} texts, {n} gold sentences.\n")
        print("| splitter | exact texts | boundary precision | recall | F1 |")
        print("| --- | --- | --- | --- | --- |")
        for name, split in found.items():
            acc = results.setdefault(name, {})[label] = accuracy(split, items)
            print(
                f"| {name} | {acc.exact}/{acc.total} ({acc.exact / acc.total:.1%}) | {acc.precision:.3f} "
                f"| {acc.recall:.3f} | {acc.f1:.3f} |"
            )
    print(f"\nSpeed: {len(texts)} texts ({n_sent} gold sentences), best of {args.rounds} rounds.\n")
    print("| splitter | sentences/s | time vs Mastra regex |")
    print("| --- | --- | --- |")
    for name, t in times.items():
        print(f"| {name} | {n_sent / t:,.0f} | {t / base:.1f}x |")
    _print_categories(
        dev + heldout, {name: r["development set"].failures + r["held-out set"].failures for name, r in results.items()}
    )
    if args.failures:
        for name, r in results.items():
            fails = r["development set"].failures + r["held-out set"].failures
            print(f"\n## {name}: {len(fails)} texts wrong")
            for item, got in fails:
                print(f"- {item.id}: gold {list(item.sentences)!r}\n  got  {got!r}")


def _print_categories(items: Sequence[GoldItem], failures: dict[str, tuple[tuple[GoldItem, list[str]], ...]]) -> None:
    cats = sorted({i.category for i in items})
    names = list(failures)
    print("\nExact texts per category (both sets):\n")
    print("| category | texts | " + " | ".join(names) + " |")
    print("| --- | --- |" + " --- |" * len(names))
    for cat in cats:
        n = sum(i.category == cat for i in items)
        wrong = {name: sum(it.category == cat for it, _ in fails) for name, fails in failures.items()}
        print(f"| {cat} | {n} | " + " | ".join(f"{n - wrong[name]}" for name in names) + " |")


if __name__ == "__main__":
    main()
