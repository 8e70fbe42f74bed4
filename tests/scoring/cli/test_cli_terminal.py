"""Names and cells from a file never reach the terminal as escape sequences or bidi overrides."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from scoring.cli.main import main
from scoring.cli.terminal import TerminalSafe, for_terminal

TITLE = "\x1b]0;you are pwned\x07"  # sets the terminal's window title
CLEAR = "\x1b[2J"  # clears the screen
FLIP = "\u202e"  # shows what follows right to left


def _main(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main([str(a) for a in argv], out=out, err=err), out.getvalue(), err.getvalue()


def test_a_hostile_column_name_is_shown_escaped_on_both_streams(tmp_path: Path) -> None:
    column = f"{CLEAR}reply{FLIP}"
    path = tmp_path / "in.csv"
    pd.DataFrame({column: ["Thanks, that helped a lot!", "This is terrible."]}).to_csv(path, index=False)
    code, out, err = _main("evaluate", path, "--scorers", "tone", "--no-progress", "--out", tmp_path / "out.csv")
    assert code == 0, err
    assert "\x1b" not in out + err and FLIP not in out + err
    assert "columns: output='\\x1b[2Jreply\\u202e'" in err  # the name's repr


def test_a_hostile_file_name_is_listed_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_DB", f"sqlite:///{tmp_path / 'runs.sqlite'}")
    path = tmp_path / f"bot{TITLE}{FLIP}.csv"
    pd.DataFrame({"output": ["Thanks, that helped a lot!", "This is terrible."]}).to_csv(path, index=False)
    assert _main("evaluate", path, "--scorers", "tone", "--no-progress", "--save", "--name", "nightly")[0] == 0
    for argv in (["runs", "list"], ["runs", "show", "nightly"]):
        code, out, _ = _main(*argv)
        assert code == 0 and "\x1b" not in out and "\x07" not in out and FLIP not in out
        assert "bot\\u001b]0;you are pwned\\u0007" in out, out  # shortened in the list


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x85", "\x9b", "\u061c", "\u200f", "\u2028", "\u2067"])
def test_every_unsafe_character_is_escaped_and_line_breaks_and_tabs_are_kept(char: str) -> None:
    assert for_terminal(f"a{char}b") == f"a\\u{ord(char):04x}b"
    assert for_terminal("row 1\tok\r\n") == "row 1\tok\r\n"


def test_the_wrapper_writes_through_and_reports_what_it_was_given() -> None:
    stream = io.StringIO()
    safe = TerminalSafe(stream)
    assert safe.write("x\x1by") == 3 and not safe.isatty()
    safe.flush()
    assert stream.getvalue() == "x\\u001by" and safe.getvalue() == "x\\u001by"  # other attributes pass through
