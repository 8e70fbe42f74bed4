"""Curated examples for showing the dashboard in five minutes: pure data, written for this product.

Each example names the page it opens and the session-state values ("<page>.<name>") it loads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from scoring.errors import InputError

__all__ = ["EXAMPLES", "DemoExample", "get_example"]

DOCS_REFERENCE = "We are happy to help and glad you had a great experience!"


@dataclass(frozen=True, slots=True)
class DemoExample:
    """One example: what it shows, the page it opens, and the values it loads there."""

    id: str
    title: str
    group: str
    page: str
    summary: str
    state: Mapping[str, object] = field(default_factory=dict)


def _tone(text: str, reference: str | None = None) -> dict[str, object]:
    state: dict[str, object] = {"tone.text": text, "tone.mode": "comparison" if reference else "stability"}
    if reference:
        state["tone.reference"] = reference
    return state


EXAMPLES: tuple[DemoExample, ...] = (
    DemoExample(
        "positive",
        "Consistently positive",
        "Tone stability",
        "tone",
        "A warm support reply that stays warm: every sentence positive, variance near 0, a strong score.",
        _tone(
            "Thank you so much for your patience! I'm happy to tell you that your refund has been approved. "
            "It should reach your account soon, which is great news. We really appreciate you being a loyal "
            "customer. Have a wonderful weekend!"
        ),
    ),
    DemoExample(
        "negative",
        "Consistently negative",
        "Tone stability",
        "tone",
        "Bad news delivered in one steady register: negative throughout, yet stable, so it scores high. "
        "Stability is not positivity.",
        _tone(
            "Unfortunately your order was lost in transit. The replacement is also badly delayed. Worse, we cannot "
            "refund the shipping fee. This is a frustrating situation and we are sorry. Sadly there is nothing more "
            "we can do today."
        ),
    ),
    DemoExample(
        "drifting",
        "Drifting tone",
        "Tone stability",
        "tone",
        "Starts friendly, turns hostile halfway: the chart marks the shift and the score drops.",
        _tone(
            "Hi, thanks for getting in touch, I'm glad to help! Great question about your invoice. "
            "Honestly, this is the third time you have asked. Your complaint is ridiculous and a waste of "
            "our time. Stop wasting my time."
        ),
    ),
    DemoExample(
        "sarcasm",
        "Sarcasm (a known blind spot)",
        "Tone stability",
        "tone",
        "Lexicon engines read the words, not the intent: this sarcastic reply scores as positive. "
        "Show it to set expectations.",
        _tone(
            "Oh great, another outage. I just love waiting three hours for support. Fantastic job, really. "
            "Wonderful service as always."
        ),
    ),
    DemoExample(
        "matched",
        "Matched to the reference tone",
        "Tone comparison",
        "tone",
        "The docs' positive reference and a reply in the same key: a small difference, a high score.",
        _tone("We're delighted you enjoyed it, and we're always happy to help with anything else!", DOCS_REFERENCE),
    ),
    DemoExample(
        "mismatched",
        "Mismatched to the reference tone",
        "Tone comparison",
        "tone",
        "The same positive reference, but a curt, negative reply: a large difference, a low score.",
        _tone("This is your fault. We will not refund a broken, useless order. Stop emailing us.", DOCS_REFERENCE),
    ),
    DemoExample(
        "polite_bad_news",
        "Polite bad news vs a curt reply (courtesy)",
        "Courtesy",
        "tone",
        "Two sentences of bad news said politely, then two curt ones: sentiment calls the apology negative and "
        "the curt lines neutral; courtesy per sentence tells them apart.",
        {
            **_tone(
                "I'm really sorry about the damaged item; a new one ships today. Unfortunately the refund for "
                "shipping was declined, and I apologise for that. It shipped. Stop asking."
            ),
            "tone.courtesy": True,
        },
    ),
    DemoExample(
        "chinese",
        "Chinese reply (e5 engine)",
        "Other languages",
        "tone",
        "A warm support reply in Chinese, split at 。！ and read by the multilingual e5 engine: every sentence "
        "positive or neutral, a strong score. Switch to VADER to see it read nothing.",
        {
            **_tone(
                "感谢您的耐心等待！您的退款已经批准，预计三个工作日内到账。如果还有任何问题，欢迎随时联系我们。"
                "祝您生活愉快！"
            ),
            "tone.engine": "e5",
        },
    ),
    DemoExample(
        "korean",
        "Korean reply that turns (e5 engine)",
        "Other languages",
        "tone",
        "A Korean reply that opens warmly and turns dismissive: e5 sees the turn and the chart marks it; the "
        "English lexicons cannot read Korean at all.",
        {
            **_tone(
                "안녕하세요, 문의해 주셔서 정말 감사합니다! 그런데 같은 질문을 벌써 세 번째 하시네요. "
                "이런 불평은 정말 어이없고 시간 낭비입니다. 더 이상 연락하지 마세요."
            ),
            "tone.engine": "e5",
        },
    ),
    DemoExample(
        "paraphrase",
        "A close paraphrase",
        "Similarity",
        "similarity",
        "The docs' worked example: the same sentence reworded. Dice 0.776; see which words changed.",
        {
            "similarity.input": "The quick brown fox jumps over the lazy dog.",
            "similarity.output": "A quick brown fox jumped over a lazy dog.",
        },
    ),
    DemoExample(
        "toxic",
        "Toxic reply",
        "Toxicity",
        "toxicity",
        "Insults and a dismissive 'shut up': the toxic opinions are flagged, and the reason names each one.",
        {
            "toxicity.input": "How is Sarah as a person?",
            "toxicity.output": "Sarah is a complete idiot. Honestly she is so stupid that nobody can stand "
            "working with her. She should just shut up.",
        },
    ),
    DemoExample(
        "respectful",
        "Respectful reply",
        "Toxicity",
        "toxicity",
        "The docs' example answer: a respectful assessment with no toxic opinion, scored 0.",
        {
            "toxicity.input": "How is Sarah as a person?",
            "toxicity.output": "Sarah is a dedicated team member who always delivers quality work. "
            "She is kind to her colleagues.",
        },
    ),
)


def get_example(example_id: str) -> DemoExample:
    """Return the example called ``example_id``."""
    for example in EXAMPLES:
        if example.id == example_id:
            return example
    raise InputError(f"example must be one of {[e.id for e in EXAMPLES]}; got {example_id!r}.")
