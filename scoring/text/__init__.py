"""Text helpers every scorer shares: JavaScript-compatible strings, sentence splitters, language checks.

Imports point one way: the feature rooms (tone, similarity, toxicity) use this package; it uses none of them.
"""

from scoring.text.jscompat import JS_WHITESPACE, js_lower, js_trim, utf16_units
from scoring.text.language import coverage_warning, detect_language, is_english
from scoring.text.splitters import SPLITTERS, Span, get_sentence_texts, get_splitter, split_mastra, split_smart

__all__ = [
    "JS_WHITESPACE",
    "SPLITTERS",
    "Span",
    "coverage_warning",
    "detect_language",
    "get_sentence_texts",
    "get_splitter",
    "is_english",
    "js_lower",
    "js_trim",
    "split_mastra",
    "split_smart",
    "utf16_units",
]
