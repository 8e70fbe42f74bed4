"""The splitters' compiled core (``_split_core.c``): ``split_smart`` for ASCII text (None for other text), and
Mastra's regex split for any text."""

from collections.abc import Set

from scoring.text.splitters import Span

def configure(
    span: type[Span],
    *,
    always_join: Set[str],
    titles: Set[str],
    before_number: Set[str],
    can_end: Set[str],
    german_months: Set[str],
    starters: Set[str],
) -> None: ...
def spans(text: object, /) -> list[Span] | None: ...
def texts(text: object, /) -> list[str] | None: ...
def mastra_spans(text: str, /) -> list[Span]: ...
def mastra_texts(text: str, /) -> list[str]: ...
