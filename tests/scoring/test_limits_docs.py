"""The operator's documents state the limits in force (issue 28: docs/shared-server.md said texts were limited
to 20,000 characters while the default was 1,000,000)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring.limits import ENV_VARS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _rows(page: str) -> dict[str, str]:
    """Each table row of ``page`` naming one variable in its middle column -> its last cell."""
    rows = {}
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and (named := re.fullmatch(r"`(TONE_EXPLORER_[A-Z0-9_]+)`", cells[1])):
            rows[named.group(1)] = cells[2]
    return rows


@pytest.mark.parametrize("page", ["reliability.md", "shared-server.md"])
def test_every_limit_row_gives_the_default_in_force(page: str) -> None:
    rows = _rows(page)
    assert rows, f"docs/{page} has no table of limits"
    for var, default, _ in ENV_VARS.values():
        if var in rows and default is not None:
            shown = re.sub(r"[^0-9.]", "", rows[var].split()[0])
            assert float(shown) == default, f"docs/{page} says {var} is {rows[var]!r}; the default is {default:,}"


def test_reliability_lists_every_project_limit() -> None:
    rows = _rows("reliability.md")
    missing = [var for var, _, _ in ENV_VARS.values() if var.startswith("TONE_EXPLORER_") and var not in rows]
    assert not missing, missing
