"""Turn what a caller passes to ``run`` into text, as Mastra reads messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scoring.errors import InputError, InputTypeError
from scoring.limits import check_text_length, max_text_chars

__all__ = ["MAX_SCALE", "check_scale", "to_text"]

TextLike = str | Mapping[str, object] | Sequence[object] | None

_ACCEPTED = "a string, a {'text': ...} dict, or a list of messages like {'role': ..., 'content': ...}"


def _last_text_part(parts: Sequence[object]) -> str:
    texts = [p for p in parts if isinstance(p, Mapping) and p.get("type") == "text"]
    if not texts:
        return ""
    text = texts[-1].get("text")
    return text if isinstance(text, str) else ""


def _message_text(message: object, name: str) -> str:
    """Mirror ``getTextContentFromMastraDBMessage`` for one message."""
    if isinstance(message, str):
        return message
    if not isinstance(message, Mapping):
        raise InputTypeError(f"{name} must be {_ACCEPTED}; got a list holding {type(message).__name__}.")
    if "content" not in message and "text" in message:
        message = {"content": message}
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return _last_text_part(content)
    if isinstance(content, Mapping):
        for key in ("content", "text"):
            value = content.get(key)
            if isinstance(value, str) and value != "":
                return value
        parts = content.get("parts")
        if isinstance(parts, list):
            return _last_text_part(parts)
        return ""
    if content is None:
        return ""
    raise InputTypeError(f"{name} message content must be a string or a list of parts; got {type(content).__name__}.")


def to_text(value: object, name: str = "output", *, required: bool = True, check_length: bool = True) -> str:
    """Return the text of ``value``; several messages are joined with ``", "`` as Mastra does.

    ``check_length=False`` leaves the length to the caller (the batch runner reports a long row itself).

    Raises:
        TypeError: ``value`` is not text, a ``{"text": ...}`` dict or a list of messages.
        ValueError: ``value`` is None and ``required``, or the text is longer than the limit
            (:func:`scoring.limits.check_text_length`).
    """
    text = value if type(value) is str else _to_text(value, name, required)
    if check_length and len(text) > max_text_chars():  # every item asks: the limit's own check only when over it
        check_text_length(text, name)
    return text


def _to_text(value: object, name: str, required: bool) -> str:
    if value is None:
        if required:
            raise InputError(f"{name} is required: pass {_ACCEPTED}; got None.")
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return _message_text(value, name)
    if isinstance(value, (list, tuple)):
        return ", ".join(_message_text(m, name) for m in value)
    raise InputTypeError(f"{name} must be {_ACCEPTED}; got {type(value).__name__}.")


#: The largest ``scale``: scores are rounded to two decimals (Mastra's ``roundToTwoDecimals`` multiplies by
#: 100), which a float keeps exact up to about 1e13; far above, the rounding overflowed (1e308 * 100).
MAX_SCALE = 1e12


def check_scale(scale: object) -> float:
    """Return ``scale`` as a float after checking it is a positive number, at most :data:`MAX_SCALE`.

    >>> check_scale(1e308)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.errors.InputError: scale must be a positive number at most 1e+12 (scores are rounded ...); got 1e+308.
    """
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < float("inf"):
        raise InputError(f"scale must be a positive number; got {scale!r}.")
    if scale > MAX_SCALE:
        limit = f"at most {MAX_SCALE:g} (scores are rounded to two decimals)"
        raise InputError(f"scale must be a positive number {limit}; got {scale!r}.")
    return float(scale)
