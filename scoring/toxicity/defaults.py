"""The e5 engine's measured defaults: which sentences it flags when no threshold is chosen.

One threshold on the learned head alone cannot meet every target at once (``docs/toxicity.md``, "Defaults"): the
head's quietest insults score about as high as polite requests for clarification that sit near insults in e5's
space ("I'm not sure I fully understand your position." 0.62), so the default combines what the engine has, per
sentence:

- **English** (and text with no detectable language): the engine's probability is the head's, blended with the vote
  of the sentence's nearest written training sentences and then with the word model
  (:func:`scoring.toxicity.e5.kind_probabilities`, :mod:`scoring.toxicity.lexical`); toxic when
  it is at least ``ENGLISH_THRESHOLD``, or at least ``ADDRESSED_THRESHOLD`` for a sentence that addresses the reader
  (polite disagreement and requests for clarification usually do); or a rubric pattern (:mod:`.rules`) of confidence
  at least ``PATTERN_ALONE`` fires outside quotation marks; or a weaker (or quoted) pattern fires and the probability
  is at least ``PATTERN_WITH_HEAD``.
- **Any other language**: toxic when the head alone gives at least ``OTHER_THRESHOLD`` (the rubric patterns are
  English, and the written sentences in other languages are too few for a neighbours' vote: a French "Vous serez
  remboursé intégralement." has French threats as its nearest). Measured on Chinese, Korean, Japanese, German,
  Spanish and French (``MEASURED_LANGUAGES``); for others the verdict says it was not measured.

The sixth round's values were chosen on development data only, leaving each of the five earlier rounds' blind-written
fresh sets (``tests/scoring/data/toxicity_defaults_dev.csv`` .. ``toxicity_defaults_dev5.csv``, each scored once when
fresh, now in the head's training data) out of the training in turn (``python -m tools.select_toxicity_defaults``),
with the VADER positive texts (at most 0.85% flagged), courteous support replies (none flagged) and the seed examples
(all right) as constraints; then frozen in a commit (032a9f9) before the sixth round's fresh set was written blind by
another engineer and scored once: English recall 0.86 at precision 0.96 (``MEASURED_RECALL``).
``python -m bench.toxicity_defaults`` prints every number. A sentence that a strong pattern decides is toxic needs no
embedding (:func:`decided_by_patterns`), which the batch path uses to skip the encoder.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.toxicity.rules import Trigger, match_rules, normalise

__all__ = [
    "ADDRESSED_THRESHOLD",
    "ENGLISH_THRESHOLD",
    "LANGUAGE_NAMES",
    "MEASURED_LANGUAGES",
    "MEASURED_RECALL",
    "OTHER_THRESHOLD",
    "PATTERN_ALONE",
    "PATTERN_WITH_HEAD",
    "Decision",
    "LanguageRecall",
    "addresses_reader",
    "decide",
    "decided_by_patterns",
    "describe_defaults",
    "pattern_settles",
    "quoted",
    "recall_cell",
    "recall_note",
    "sentence_language",
]

ENGLISH_THRESHOLD = 0.3  #: English: the engine's probability (the head, its neighbours' vote, the word model)
ADDRESSED_THRESHOLD = 0.4  #: English: the same, on a sentence that addresses the reader (you, your)
PATTERN_ALONE = 0.8  #: English: a rubric pattern at least this confident flags on its own (no embedding needed)
PATTERN_WITH_HEAD = 0.2  #: English: a weaker pattern flags when the engine gives at least this
OTHER_THRESHOLD = 0.35  #: every other language: the head alone (no neighbours' vote)
#: Languages the defaults were measured on (development and fresh test sentences).
MEASURED_LANGUAGES = ("en", "zh", "ko", "ja", "de", "es", "fr")
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese", "ko": "Korean", "ja": "Japanese", "de": "German",
                  "es": "Spanish", "fr": "French"}  # fmt: skip

_READER_RE = re.compile(r"\b(?:you|your|yours|yourself|yourselves|ya|u|ur)\b", re.IGNORECASE)
_HANGUL_RE = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_KANA_RE = re.compile(r"[\u3040-\u30ff]")
_HAN_RE = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_QUOTED_RE = re.compile(r'"[^"]+"|\u201c[^\u201d]+\u201d')


def quoted(sentence: str, trigger: Trigger) -> bool:
    """Whether the text ``trigger`` matched lies inside double quotation marks in ``sentence``: reported or fictional
    speech ("The villain snarls "you'll pay for this"."), which a pattern alone must not call toxic.

    >>> quoted('He snarls "watch your back" and leaves.', Trigger("threat", "t", 0.85, "watch your back"))
    True
    """
    found = trigger.match.lower()
    return any(found in normalise(m.group()).lower() for m in _QUOTED_RE.finditer(sentence))


def addresses_reader(sentence: str) -> bool:
    """Whether ``sentence`` speaks to its reader (a second-person word).

    >>> addresses_reader("Your brain must be running on dial-up."), addresses_reader("The film is savage.")
    (True, False)
    """
    return _READER_RE.search(sentence.replace("\u2019", "'")) is not None


def sentence_language(sentence: str) -> str | None:
    """The sentence's language code for the defaults: "en" for English and for text with no detectable language.

    Hangul, kana and Han characters decide Korean, Japanese and Chinese; other text goes to the language
    detector (:func:`scoring.text.language.detect_language`), which counts weak guesses as English.

    >>> sentence_language("你真是个白痴。"), sentence_language("Thanks a lot!"), sentence_language("Du bist ein Idiot.")
    ('zh', 'en', 'de')
    """
    if _HANGUL_RE.search(sentence):
        return "ko"
    if _KANA_RE.search(sentence):
        return "ja"
    if _HAN_RE.search(sentence):
        return "zh"
    from scoring.text.language import detect_language, is_english

    guess = detect_language(sentence)
    return "en" if is_english(guess) or guess is None else guess.code


@dataclass(frozen=True, slots=True)
class Decision:
    """The default verdict on one sentence: toxic or not, the threshold the head was held to, and why."""

    toxic: bool
    threshold: float | None  #: the head's threshold for this sentence; None when a pattern decided alone
    language: str | None
    rule: str  #: which part of the defaults decided, for the reason ("for an English sentence", ...)

    @property
    def measured(self) -> bool:
        """Whether the defaults were measured on this sentence's language."""
        return self.language in MEASURED_LANGUAGES


def decided_by_patterns(sentence: str, triggers: Sequence[Trigger] | None = None) -> bool:
    """Whether a rubric pattern of confidence >= ``PATTERN_ALONE`` flags the (English) sentence on its own.

    >>> decided_by_patterns("Only pretentious losers would waste money on that."), decided_by_patterns("Hi!")
    (True, False)
    """
    found = match_rules(sentence) if triggers is None else triggers
    return pattern_settles(sentence, found) and sentence_language(sentence) == "en"


def pattern_settles(sentence: str, triggers: Sequence[Trigger]) -> bool:
    """Whether one of ``triggers`` (the patterns that fired on the English ``sentence``) decides it alone: confidence
    >= ``PATTERN_ALONE`` and not inside quotation marks (quoted speech goes to the head like a weaker pattern).

    >>> from scoring.toxicity.rules import match_rules
    >>> [pattern_settles(s, match_rules(s)) for s in ("You will regret this.", 'She said "you will regret this".')]
    [True, False]
    """
    return any(t.confidence >= PATTERN_ALONE and not quoted(sentence, t) for t in triggers)


def decide(sentence: str, probability: float, triggers: Sequence[Trigger], language: str | None) -> Decision:
    """The default verdict on ``sentence`` given the head's ``probability`` and the patterns that fired."""
    if language != "en":
        toxic = probability >= OTHER_THRESHOLD
        name = LANGUAGE_NAMES.get(language or "", f"language '{language}'")
        return Decision(toxic, OTHER_THRESHOLD, language, f"for a {name} sentence")
    if pattern_settles(sentence, triggers):
        return Decision(True, None, language, "a rubric pattern alone")
    if triggers:
        return Decision(probability >= PATTERN_WITH_HEAD, PATTERN_WITH_HEAD, language, "when a rubric pattern matches")
    if addresses_reader(sentence):
        return Decision(
            probability >= ADDRESSED_THRESHOLD, ADDRESSED_THRESHOLD, language, "for a sentence addressed to the reader"
        )
    return Decision(probability >= ENGLISH_THRESHOLD, ENGLISH_THRESHOLD, language, "for an English sentence")


@dataclass(frozen=True, slots=True)
class LanguageRecall:
    """Recall of the defaults on one language's toxic sentences: on fresh sentences (written after the defaults were
    frozen) where there are any, and on the development sets they were chosen on."""

    #: (flagged, toxic) on the fresh set scored once after the freeze (tests/scoring/data/toxicity_defaults_fresh6.csv);
    #: None for a language the fresh set has no sentence in
    fresh: tuple[int, int] | None
    development: tuple[int, int]  #: (flagged, toxic) on tests/scoring/data/toxicity_multilingual_fresh.csv

    def short(self, name: str) -> str:
        """A table cell: ``0.56 (28 of 50 fresh, English)``, or the development count where no fresh test exists."""
        k, n = self.fresh or self.development
        return f"{k / n:.2f} ({k} of {n} {'fresh' if self.fresh else 'development'}, {name})"

    def sentence(self, name: str) -> str:
        """One sentence for a reader, e.g. next to a pass."""
        dev_k, dev_n = self.development
        dev = f"{dev_k / dev_n:.2f} on the development sentences ({dev_k} of {dev_n})"
        if self.fresh is None:
            return f"Measured recall of the defaults on {name}: {dev} (no fresh test in {name})."
        k, n = self.fresh
        return f"Measured recall of the defaults on {name}: {k / n:.2f} on fresh sentences ({k} of {n}); {dev}."


#: ``python -m bench.toxicity_defaults`` prints these counts: fresh, the sixth round's fresh set
#: (toxicity_defaults_fresh6.csv, written blind after the freeze (032a9f9), scored once; None for a language it
#: lacks); development, "Development sets".
MEASURED_RECALL: dict[str, LanguageRecall] = {
    "en": LanguageRecall((43, 50), (69, 75)),
    "zh": LanguageRecall((2, 3), (25, 30)),
    "ko": LanguageRecall((2, 3), (22, 30)),
    "ja": LanguageRecall((2, 2), (26, 30)),
    "de": LanguageRecall(None, (24, 30)),
    "es": LanguageRecall(None, (21, 30)),
    "fr": LanguageRecall(None, (24, 30)),
}


def recall_cell(language: str | None) -> str:
    """The defaults' measured recall on ``language`` as a table cell.

    >>> recall_cell("en"), recall_cell("de"), recall_cell("ru")
    ('0.86 (43 of 50 fresh, English)', '0.80 (24 of 30 development, German)', 'not measured (ru)')
    """
    if language is None or language not in MEASURED_RECALL:
        return f"not measured ({language})"
    return MEASURED_RECALL[language].short(LANGUAGE_NAMES[language])


def recall_note(language: str | None) -> str:
    """What is known of the defaults' recall on ``language`` (a code from :func:`sentence_language`).

    >>> print(recall_note("en"))  # doctest: +NORMALIZE_WHITESPACE
    Measured recall of the defaults on English: 0.86 on fresh sentences (43 of 50); 0.92 on the development
    sentences (69 of 75).
    >>> recall_note("ru")
    "The defaults were not measured on language 'ru': their recall there is unknown."
    """
    if language is None or language not in MEASURED_RECALL:
        return f"The defaults were not measured on language '{language}': their recall there is unknown."
    return MEASURED_RECALL[language].sentence(LANGUAGE_NAMES[language])


def describe_defaults() -> str:
    """The default rule in one paragraph, for the page, the CLI and the docs.

    >>> describe_defaults()[:89]
    "English: the head with its neighbours' vote and the word model at 0.3, 0.4 for a sentence"
    """
    return (
        f"English: the head with its neighbours' vote and the word model at {ENGLISH_THRESHOLD:g}, "
        f"{ADDRESSED_THRESHOLD:g} for a sentence "
        f"addressed to the reader (you, your), {PATTERN_WITH_HEAD:g} when a rubric pattern matches, and a pattern of "
        f"confidence "
        f">= {PATTERN_ALONE:g} outside quotation marks flags alone; other languages: the head at {OTHER_THRESHOLD:g}"
    )
