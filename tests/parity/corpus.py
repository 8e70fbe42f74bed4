"""A varied, seeded corpus of parity cases: edge cases, real review/tweet text, and random text."""

from __future__ import annotations

import csv
import random
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "vader_sample.csv"

EDGE_TEXTS = [
    "", " ", "\t", "\n\n", "   \t  ", "a", ".", "!!!", "...", "?!", "Hello", "GOOD", "good,bad",
    "good!bad?ok.", "It was great. Thanks!", "I love it", "I hate it", "not bad", "not good at all.",
    "I don't like it.", "I don’t like it.", "I dont like it. I can't stand it! Isn't it awful?",
    "constructor good", "the constructor is bad", "hasOwnProperty good", "__proto__ good", "toString happy",
    "😂😂", "😂 😍 😭", "I ❤ you", "❤️ love", "Good job 👍👍", "😊 😊 😊", "great😂 fun",
    "İstanbul is GREAT", "ΣΟΦΟΣ ΛΟΓΟΣ. Ꟍ GOOD", "我很高兴。今天天气很好！", "هذا رائع جدا. شكرا!",
    "यह बहुत अच्छा है।", "정말 좋아요! 감사합니다.", "Привет! Это ужасно.", "good\tbad", "good \t bad",
    "good\u00a0bad. fine", "\ufeffgood day", "love\u2028hate", "\x1cgood\x1d", "\x85 good", "good\u3000bad!",
    "Dr. Smith is great. Really!", "3.14 is pi! 2.71 is e.", "$4.99 is cheap. $5 is fine", "Visit http://x.com/a?b=c!",
    "Wait... what?! No way.", "ok ok ok", "bad bad bad. good good good. meh.", "\n\nfine.\n\nawful.\n",
    "The food was excellent, the service terrible, and the price fair.", "A" * 500 + ". good.",
    "Yes!!! YES!!! :) :( ;)", "no... not happy. not sad.", "won't fail. doesn't hurt. isn't bad.",
    "cool stuff", "does not work", "can't stand", "{good} [bad] (nice) <ok> \"great\" 'fine' `awful`",
    "good#bad/ugly^nice&mean*kind=cruel~sweet", "a-b good-bad well-being self-confident",
    "\ud83d good", "emoji🙂only🙂here", "Hvala! Това е добре. Ça va très bien! Ñandú feliz.",
]  # fmt: skip

REFERENCES = [
    "We are happy to help and glad you had a great experience!",
    "This is a neutral statement.",
    "I am very disappointed and angry.",
    "",
    "😍",
    "not bad",
]

WORDS = (
    "good bad great awful love hate not don't isn't can't won't happy sad fine okay terrible excellent "
    "the a service product support help thanks sorry wrong right amazing worst best meh"
).split()
SEPARATORS = [" ", " ", " ", "  ", "\t", "\n", ". ", "! ", "? ", ", ", "...", "\u00a0", "\u2009", " 😂 ", " ❤ "]


def _real_texts(rng: random.Random, n: int) -> list[str]:
    with SAMPLE.open(encoding="utf-8", newline="") as f:
        rows = [r["text"] for r in csv.DictReader(f)]
    picked = rng.sample(rows, n * 2)
    # Half single snippets, half paragraphs of several snippets (multi-sentence replies).
    return picked[:n] + [" ".join(picked[n + i : n + i + 4]) for i in range(0, n, 4)]


def _random_texts(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        parts = [
            rng.choice(WORDS).upper() if rng.random() < 0.1 else rng.choice(WORDS) for _ in range(rng.randint(1, 25))
        ]
        out.append("".join(p + rng.choice(SEPARATORS) for p in parts).rstrip(" ") + rng.choice(["", ".", "!", "?!"]))
    return out


def build_cases(seed: int = 20261130) -> list[dict[str, object]]:
    """Return parity cases for tone (both modes) and similarity (all flag combinations)."""
    rng = random.Random(seed)
    texts = EDGE_TEXTS + _real_texts(rng, 80) + _random_texts(rng, 60)
    cases: list[dict[str, object]] = []
    for i, text in enumerate(texts):
        cases.append({"kind": "tone", "output": [text]})
        cases.append({"kind": "tone", "output": [text], "referenceTone": REFERENCES[i % len(REFERENCES)]})
        other = texts[(i * 7 + 3) % len(texts)]
        flags = [(True, True), (True, False), (False, True), (False, False)][i % 4]
        cases.append(
            {
                "kind": "similarity",
                "input": [other],
                "output": [text],
                "ignoreCase": flags[0],
                "ignoreWhitespace": flags[1],
            }
        )
        cases.append(
            {
                "kind": "similarity",
                "input": [text.upper()],
                "output": [text],
                "ignoreCase": True,
                "ignoreWhitespace": True,
            }
        )
    for i in range(0, 30, 3):  # several messages, joined with ", "
        cases.append({"kind": "tone", "output": texts[i : i + 3]})
        cases.append(
            {
                "kind": "similarity",
                "input": texts[i + 1 : i + 3],
                "output": texts[i : i + 2],
                "ignoreCase": True,
                "ignoreWhitespace": True,
            }
        )
    return cases
