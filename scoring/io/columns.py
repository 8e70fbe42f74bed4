"""Which columns of a table hold the response, the prompt and the reference: guessed from common names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ColumnMap", "guess_columns"]


@dataclass(frozen=True, slots=True)
class ColumnMap:
    """Which columns hold the response (``output``), the prompt (``input``) and the reference."""

    output: str | None
    input: str | None = None
    ground_truth: str | None = None


_NAMES = {
    "output": ("output", "response", "answer", "completion", "reply", "text"),
    "input": ("input", "prompt", "question", "query"),
    "ground_truth": ("groundtruth", "ground_truth", "ground truth", "reference", "expected", "expected_output"),
}


def guess_columns(columns: Sequence[object]) -> ColumnMap:
    """Map common column names to roles, case-insensitively; roles with no match are None.

    >>> guess_columns(["Prompt", "Response", "expected"])
    ColumnMap(output='Response', input='Prompt', ground_truth='expected')
    """
    by_key: dict[str, str] = {}
    for column in columns:
        key = str(column).strip().lower().replace("-", "_")
        by_key.setdefault(key, str(column))
    found = {role: next((by_key[n] for n in names if n in by_key), None) for role, names in _NAMES.items()}
    return ColumnMap(output=found["output"], input=found["input"], ground_truth=found["ground_truth"])
