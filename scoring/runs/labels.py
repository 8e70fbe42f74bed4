"""Labels: people's judgements of a saved run's rows, one per row, measure and rater, kept beside the run.

A label judges one row for one *measure*, a scorer of the run (``tone-scorer``, ``toxicity-scorer``, ...),
and answers the question that scorer's high end asks (its ``higher_means``): is the reply on tone, close
to the reference, toxic? ``yes``/``no``, ``y``/``n``, ``true``/``false`` and ``1``/``0`` answer it as
written, so for toxicity ``yes`` means toxic. ``good``/``bad`` (``ok``, ``pass``/``fail``) say whether
the reply is good on the measure, so for toxicity ``good`` means *not* toxic (0). Other numbers are
ratings (1-5, say: higher means more of what a high score says). Blank cells are no label; anything else
is a bad cell, reported with its row.

>>> read_labels(["yes", " N ", "", "maybe", 4, "good"], measure="toxicity-scorer")
({0: 1.0, 1: 0.0, 4: 4.0, 5: 0.0}, {3: "'maybe' is not a label: give yes/no, 1/0, good/bad, true/false or a number"})
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from scoring.errors import InputError
from scoring.registry import SCORER_INFO, find_scorer
from scoring.runs.db import labels as labels_table
from scoring.runs.record import RunInfo, clean_text
from scoring.runs.store import RunStore

__all__ = [
    "LABEL_COLUMNS",
    "LabelsSaved",
    "add_labels",
    "delete_labels",
    "label_kind",
    "labelled_rows",
    "labels_frame",
    "labels_from_file",
    "measure_of",
    "parse_label",
    "read_labels",
]

LABEL_COLUMNS = ["row", "measure", "rater", "value", "source", "created_at"]
_YES = frozenset({"yes", "y", "true", "t", "1", "1.0"})
_NO = frozenset({"no", "n", "false", "f", "0", "0.0"})
_GOOD = frozenset({"good", "ok", "okay", "pass", "passed", "fine", "👍"})
_BAD = frozenset({"bad", "fail", "failed", "not ok", "👎"})
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
BUILT_IN = tuple(info.short_name for info in SCORER_INFO)
ACCEPTED_WORDS = "yes/no, 1/0, good/bad, true/false or a number"


def measure_of(name: object, scorers: Sequence[str] | None = None) -> str:
    """Return the id of the scorer ``name`` names (short name or id): what a label judges.

    A taught scorer is not a measure: its labels are those of the measure it was taught on.
    """
    text = str(name).strip() if name is not None else ""
    info = find_scorer(text)
    if info is None or info.id.startswith("taught:"):
        known = sorted({s for s in (scorers or ()) if not s.startswith("taught:")} | set(BUILT_IN))
        raise InputError(f"a label's measure must be a scorer among {known} (a taught scorer's labels are those of "
                         f"the measure it was taught on); got {name!r}.")  # fmt: skip
    return info.id


def _lower_is_better(measure: str) -> bool:
    info = find_scorer(measure)
    return info is not None and info.lower_is_better


def parse_label(value: object, *, measure: str) -> float | None:
    """Return the label a cell holds (1.0 yes, 0.0 no, or a rating), None for a blank cell; ValueError if unreadable."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (bool, np.bool_)):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float, np.integer, np.floating)):
        number = float(value)
        if math.isnan(number):
            return None
        if not math.isfinite(number):
            raise InputError(f"{value!r} is not a label: give {ACCEPTED_WORDS}")
        return number
    text = " ".join(str(value).split()).lower()
    if not text:
        return None
    if text in _YES:
        return 1.0
    if text in _NO:
        return 0.0
    good_end = 0.0 if _lower_is_better(measure) else 1.0
    if text in _GOOD:
        return good_end
    if text in _BAD:
        return 1.0 - good_end
    if _NUMBER.fullmatch(text):
        return float(text)
    shown = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
    raise InputError(f"{shown!r} is not a label: give {ACCEPTED_WORDS}")


def read_labels(values: Sequence[object], *, measure: str) -> tuple[dict[int, float], dict[int, str]]:
    """Read a column of label cells: ``({position: value}, {position: why the cell is bad})``; blanks are neither."""
    found: dict[int, float] = {}
    bad: dict[int, str] = {}
    for position, value in enumerate(values):
        try:
            label = parse_label(value, measure=measure)
        except ValueError as exc:
            bad[position] = str(exc)
            continue
        if label is not None:
            found[position] = label
    return found, bad


def label_kind(values: Sequence[float] | np.ndarray) -> str:
    """``"yes/no"`` when every label is 0 or 1, else ``"rating"``."""
    return "yes/no" if all(v in (0.0, 1.0) for v in np.asarray(values, dtype=float)) else "rating"


@dataclass(frozen=True, slots=True)
class LabelsSaved:
    """What :func:`add_labels` did: labels added, labels replaced (same row, measure and rater)."""

    run: RunInfo
    measure: str
    added: int
    replaced: int

    def line(self) -> str:
        """One line for a terminal."""
        more = f", {self.replaced:,} replaced" if self.replaced else ""
        return f"{self.run.label}: {self.added:,} {self.measure} label(s) saved{more}"


def _rater(rater: object) -> str:
    if rater is None:
        return ""
    if not isinstance(rater, str) or len(rater) > 200 or any(ord(c) < 32 for c in rater):
        raise InputError(f"rater must be a name of at most 200 characters on one line; got {str(rater)[:40]!r}.")
    return clean_text(rater.strip())


def add_labels(
    store: RunStore,
    ref: str | int,
    measure: str,
    values: Mapping[int, float | None],
    *,
    rater: str | None = None,
    source: str = "labels file",
    created_at: datetime | None = None,
) -> LabelsSaved:
    """Save ``values`` ({run row number: label}; None clears that label) as ``rater``'s, in one transaction.

    The rows must be the run's (1 to its row count) and the measure one of its scorers. A row already labelled
    by the same rater for the same measure gets the new value.
    """
    info = store.resolve(ref)
    measure = measure_of(measure, info.scorers)
    who = _rater(rater)
    when = created_at or datetime.now(UTC)
    if outside := sorted(int(r) for r in values if not 1 <= int(r) <= info.row_count):
        raise InputError(f"rows {outside[:10]} are not rows of {info.label} (rows 1 to {info.row_count:,}).")
    for row, value in values.items():
        if value is not None and not math.isfinite(float(value)):
            raise InputError(f"row {row}: a label must be a finite number; got {value!r}.")
    try:
        added, replaced = _write(store, info, measure, who, values, source, when)
    except IntegrityError:  # another process labelled one of these rows meanwhile (PostgreSQL): once more
        added, replaced = _write(store, info, measure, who, values, source, when)
    return LabelsSaved(info, measure, added, replaced)


def _write(
    store: RunStore,
    info: RunInfo,
    measure: str,
    who: str,
    values: Mapping[int, float | None],
    source: str,
    when: datetime,
) -> tuple[int, int]:
    table = labels_table
    with store.transaction(write=True) as conn:
        where = (table.c.run_id == info.id) & (table.c.measure == measure) & (table.c.rater == who)
        existing = {int(r) for r in conn.execute(sa.select(table.c.row).where(where)).scalars()}
        rows = [int(r) for r in values]
        gone = [r for r in rows if r in existing]
        for start in range(0, len(gone), 500):
            conn.execute(table.delete().where(where & table.c.row.in_(gone[start : start + 500])))
        records = [
            {"run_id": info.id, "row": int(r), "measure": measure, "rater": who, "value": float(v), "source": source,
             "created_at": when}
            for r, v in values.items() if v is not None
        ]  # fmt: skip
        for start in range(0, len(records), 2000):
            conn.execute(table.insert(), records[start : start + 2000])
        added = sum(1 for r in records if r["row"] not in existing)
    return added, len(records) - added


def delete_labels(store: RunStore, ref: str | int, *, measure: str | None = None, rater: str | None = None) -> int:
    """Delete the run's labels (of one measure and/or rater when given); return how many."""
    info = store.resolve(ref)
    condition = labels_table.c.run_id == info.id
    if measure is not None:
        condition &= labels_table.c.measure == measure_of(measure, info.scorers)
    if rater is not None:
        condition &= labels_table.c.rater == _rater(rater)
    with store.transaction(write=True) as conn:
        return int(conn.execute(labels_table.delete().where(condition)).rowcount or 0)


def labels_frame(store: RunStore, ref: str | int) -> pd.DataFrame:
    """Return the run's labels: row, measure, rater, value, source, created_at (by measure, rater, row)."""
    info = store.resolve(ref)
    query = (
        sa.select(*[labels_table.c[c] for c in LABEL_COLUMNS])
        .where(labels_table.c.run_id == info.id)
        .order_by(labels_table.c.measure, labels_table.c.rater, labels_table.c.row)
    )
    with store.transaction(write=False) as conn:
        frame = pd.DataFrame(conn.execute(query).all(), columns=LABEL_COLUMNS)
    frame["value"] = frame["value"].astype(float)
    frame["row"] = frame["row"].astype(int)
    return frame


def labelled_rows(rows: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Return the run's rows with a column per measure and rater: ``label.<measure>`` (no rater named) or
    ``label.<measure>@<rater>``; what an export of the run holds."""
    out = rows.copy()
    for (measure, rater), group in labels.groupby(["measure", "rater"], sort=True):
        column = f"label.{measure}" + (f"@{rater}" if rater else "")
        out[column] = out["row"].map(dict(zip(group["row"], group["value"], strict=True))).astype(float)
    return out


def labels_from_file(
    path: str | Path, info: RunInfo, *, measure: str | None = None, column: str = "label", rater: str | None = None
) -> tuple[str, dict[int, float], dict[str, dict[int, float]], list[str]]:
    """Read a labels file (any table format the CLI reads) for ``info``'s run.

    It needs a ``row`` column (the run's row numbers, as ``runs export`` writes them) and the label column
    (``column``, default ``label``); a ``rater`` column, when there, says whose each label is (else ``rater``).
    Returns the measure, ``{row: label}`` of the unnamed rater, ``{rater: {row: label}}`` of named ones, and
    a message per bad cell (``row 7 (line 8): 'maybe' is not a label ...``).
    """
    from scoring.io.loaders import read_table

    table = read_table(str(path))
    names = {str(c).strip().lower(): c for c in table.columns}
    first = next((s for s in info.scorers if not s.startswith("taught:")), info.scorers[0] if info.scorers else "")
    chosen = measure_of(measure if measure is not None else first, info.scorers)
    if "row" not in names:
        raise InputError(f"{path}: no 'row' column (the run's row numbers, 1 to {info.row_count:,}); found "
                         f"{[str(c) for c in table.columns]}.")  # fmt: skip
    if column.strip().lower() not in names:
        raise InputError(f"{path}: no {column!r} column with the labels; found {[str(c) for c in table.columns]}. "
                         "Name it with --column.")  # fmt: skip
    row_cells = table[names["row"]].tolist()
    values, bad = read_labels(table[names[column.strip().lower()]].tolist(), measure=chosen)
    raters = table[names["rater"]].tolist() if "rater" in names else [rater] * len(table)
    problems: list[str] = []
    by_rater: dict[str, dict[int, float]] = {}
    for position, cell in enumerate(row_cells):
        number = _row_number(cell)
        where = f"line {position + 2}"
        if number is None or not 1 <= number <= info.row_count:
            if position in values or position in bad:
                shown = str(cell).strip() or "(blank)"
                problems.append(f"{where}: row {shown} is not a row of {info.label} (1 to {info.row_count:,})")
            continue
        if position in bad:
            problems.append(f"row {number} ({where}): {bad[position]}")
        elif position in values:
            who = _rater(None if _blank(raters[position]) else str(raters[position]))
            mine = by_rater.setdefault(who, {})
            if number in mine and mine[number] != values[position]:
                problems.append(f"row {number} ({where}): labelled twice by {who or 'the same rater'} with different "
                                "values; the last one is kept")  # fmt: skip
            mine[number] = values[position]
    plain = by_rater.pop("", {})
    return chosen, plain, by_rater, problems


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


def _row_number(cell: object) -> int | None:
    try:
        number = float(str(cell).strip())
    except ValueError:
        return None
    return int(number) if math.isfinite(number) and number == int(number) else None
