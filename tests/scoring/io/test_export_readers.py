"""CSV export read by readers that split on ``,``, ``;``, tab or ``|`` and ignore the quotes (issue 28): no cell
any of them sees starts a formula."""

from __future__ import annotations

import pandas as pd
import pytest

from scoring.io.export import starts_formula, to_csv_bytes

HOSTILE = ["x\t=cmd|' /C calc'!A0", 'a|=HYPERLINK("http://x")', "ok\t\t+1", 'q|"@SUM(A1)"', "y; -2", "1\n=2"]


@pytest.mark.parametrize("separator", [",", ";", "\t", "|"])
def test_no_cell_a_quote_blind_reader_splits_out_starts_a_formula(separator: str) -> None:
    text = to_csv_bytes(pd.DataFrame({"output": HOSTILE})).decode("utf-8")
    cells = [cell.strip('"') for line in text.splitlines() for cell in line.split(separator)]
    assert not [c for c in cells if starts_formula(c)], cells


def test_text_without_a_formula_after_a_tab_or_bar_is_untouched() -> None:
    text = to_csv_bytes(pd.DataFrame({"output": ["a|b", "c\td", "=cmd|' /C calc'!A0"]})).decode("utf-8")
    assert text.splitlines()[1:] == ['"a|b"', '"c\td"', "\"'=cmd|' /C calc'!A0\""]
