"""What a file may unfold into while it is read: unpacked bytes of an archive, characters of a table.

A 13 KB .xlsx holding one 10 MB shared string used by every row is 10 MB per row once read; a Parquet
dictionary does the same, and a zip declares sizes it may not keep. Readers of those formats spend from a
:class:`ReadBudget` as they go and stop with a :class:`FileRefused` naming the limit and its variable
(:mod:`scoring.limits`), before the table is built.

>>> budget = ReadBudget(limits=get_limits({"TONE_EXPLORER_MAX_TABLE_CHARS": "10"}))
>>> budget.spend(8)
>>> budget.spend(5)
Traceback (most recent call last):
...
scoring.io.budget.FileRefused: it unfolds into more than 10 characters of table (each cell counts as at least one): \
refused before it fills the memory (set TONE_EXPLORER_MAX_TABLE_CHARS to change the limit)
"""

from __future__ import annotations

from scoring.errors import InputError
from scoring.limits import ENV_VARS, Limits, get_limits

__all__ = ["FileRefused", "ReadBudget"]


class FileRefused(InputError):
    """A file is refused for what it holds; the message says why, without the file's name (the reader adds it).

    ``user_message`` says it without variable names, for a dashboard page (as :class:`scoring.limits.LimitError`).
    """

    def __init__(self, message: str, user_message: str | None = None) -> None:
        super().__init__(message)
        self.user_message = user_message or message


class ReadBudget:
    """Counts the characters read into a table and checks unpacked sizes against the limits in force."""

    def __init__(self, *, limits: Limits | None = None) -> None:
        limits = limits or get_limits()
        self.max_chars = limits.max_table_chars
        self.max_unpacked = limits.max_unpacked_bytes
        self.max_unpacked_mb = limits.max_unpacked_mb
        self.max_columns = limits.max_columns
        self.chars = 0

    def check_columns(self, columns: int, what: str) -> None:
        """Refuse a table whose ``what`` (e.g. "header") has more than ``max_columns`` columns."""
        if columns > self.max_columns:
            var = ENV_VARS["max_columns"][0]
            told = f"its {what} has more than {self.max_columns:,} columns; at most {self.max_columns:,} are read"
            raise FileRefused(f"{told} (set {var} to change the limit)", f"{told}: keep the columns to score")

    def spend(self, chars: int) -> None:
        """Count ``chars`` more characters; refuse the file once the total passes the limit."""
        self.chars += chars
        if self.chars > self.max_chars:
            var = ENV_VARS["max_table_chars"][0]
            what = (
                f"it unfolds into more than {self.max_chars:,} characters of table (each cell counts as at least one)"
            )
            raise FileRefused(
                f"{what}: refused before it fills the memory (set {var} to change the limit)",
                f"{what}, more than is read at once: split the file, or save its rows as CSV",
            )

    def check_unpacked(self, size: int, what: str) -> None:
        """Refuse ``what`` (e.g. "its zip declares") if ``size`` unpacked bytes pass the limit."""
        if size > self.max_unpacked:
            var = ENV_VARS["max_unpacked_mb"][0]
            told = f"{what} {size / 2**20:,.1f} MB unpacked; at most {self.max_unpacked_mb:,} MB are read"
            raise FileRefused(f"{told} (set {var} to change the limit)", f"{told}: split the file, or save it as CSV")
