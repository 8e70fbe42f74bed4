"""The rubric patterns searched through their literal index give exactly what searching every pattern gives."""

from __future__ import annotations

import csv
import random
import re
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.toxicity.batch import any_rule_fires
from scoring.toxicity.rules import RULES, Trigger, match_rules, normalise

DATA = Path(__file__).parent.parent / "data"
LABELLED = [r["text"] for r in csv.DictReader((DATA / "toxicity_labelled.csv").open(encoding="utf-8"))]
PLAIN = (DATA / "sentences.txt").read_text(encoding="utf-8").splitlines()
WORDS = sorted({w for r in RULES for w in re.findall(r"[A-Za-z][a-z'-]+", r.pattern.pattern)})
GLUE = "you you're your i i'll we are is was the a this that so such really not to be it me and".split()
THRESHOLDS = (0.5, 0.75, 0.8, 0.9)


def _every_rule(text: str) -> list[Trigger]:
    """match_rules as it was: search every pattern."""
    folded = normalise(text)
    hits = [Trigger(r.kind, r.name, r.confidence, m.group().strip()) for r in RULES if (m := r.pattern.search(folded))]
    return sorted(hits, key=lambda t: -t.confidence)


@cache
def _combined(min_confidence: float) -> re.Pattern[str]:
    """any_rule_fires as it was: one alternation of every pattern at or above the confidence."""
    return re.compile("|".join(f"(?:{r.pattern.pattern})" for r in RULES if r.confidence >= min_confidence), re.I)


def _disguise(text: str, rng: random.Random) -> str:
    """Change case and spell letters the ways IGNORECASE still matches (İ ı K ſ), apostrophes typographically."""
    text = rng.choice([str.lower, str.upper, str.title, str.capitalize])(text)
    for plain, other in (("i", "İ"), ("I", "ı"), ("k", "\u212a"), ("s", "ſ"), ("'", "’"), (" ", "  "), (" ", "\n")):
        if rng.random() < 0.1:
            text = text.replace(plain, other, rng.randint(1, 2))
    return text


def _sentences(n: int, seed: int) -> list[str]:
    """Word salad from the patterns' own words, and labelled sentences with words deleted, inserted or replaced."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if rng.random() < 0.3:
            words = [rng.choice(WORDS if rng.random() < 0.5 else GLUE) for _ in range(rng.randint(2, 9))]
        else:
            words = rng.choice(LABELLED).split()
            for _ in range(rng.randint(1, 3)):
                at, word = rng.randrange(len(words) + 1), rng.choice(WORDS + GLUE)
                edit = rng.choice(["delete", "insert", "replace"])
                words[at:at + (edit != "insert")] = [] if edit == "delete" else [word]  # fmt: skip
        out.append(_disguise(" ".join(words) + rng.choice(["", ".", "!", "?", " ?"]), rng))
    return out


def _assert_same(texts: list[str]) -> int:
    fired = 0
    for text in texts:
        assert match_rules(text) == _every_rule(text), text
        for threshold in THRESHOLDS:
            assert any_rule_fires(text, threshold) == bool(_combined(threshold).search(normalise(text))), text
        fired += bool(_every_rule(text))
    return fired


def test_same_verdicts_as_searching_every_pattern_on_labelled_real_and_generated_text() -> None:
    texts = LABELLED + PLAIN + _sentences(2000, seed=5)
    fired = _assert_same(texts)
    assert fired >= 500, fired  # not vacuous: 575 of them fire some rule


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), noise=st.text(max_size=20))
def test_same_verdicts_on_random_mixtures(seed: int, noise: str) -> None:
    rng = random.Random(seed)
    labelled = rng.choice(LABELLED)
    _assert_same([*_sentences(3, seed), f"{noise} {labelled}", _disguise(labelled, rng), noise])
