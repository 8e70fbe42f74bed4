"""The language check's compiled core (``_language_core.c``): the fast path's answer for ASCII text, else None."""

def decide(
    text: object,
    max_chars: object,
    share: object,
    min_hits: object,
    share_long: object,
    english: frozenset[bytes],
    other: frozenset[bytes],
    /,
) -> int | None: ...
