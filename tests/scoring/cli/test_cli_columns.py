"""``python -m scoring evaluate`` picks the right columns or exits 2 naming them (run as a subprocess).

stderr says before scoring which column is used for what; stdout repeats it with the results.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from scoring.batch.runner import evaluate
from scoring.io.columns import ColumnMap

ROOT = Path(__file__).resolve().parents[3]
PROMPTS = ["Where is my order?", "Can I get a refund?", "How do I reset my password?", "Open on Sunday?"]
ANSWERS = [
    "Your order ships tomorrow, thanks for waiting!",
    "Sorry, refunds take five days. We are on it.",
    "Click 'Forgot password' on the login page and follow the email.",
    "Yes, we are open from 10 to 4 on Sundays.",
]
EXPECTED = ["It ships tomorrow.", "Refunds take five business days.", "Use the Forgot password link.", "Open 10-4."]


def _cli(path: Path, *flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scoring", "evaluate", str(path), "--no-progress", *flags],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip


def _csv(tmp_path: Path, table: pd.DataFrame, name: str = "in.csv") -> Path:
    path = tmp_path / name
    table.to_csv(path, index=False)
    return path


def test_the_ticket_file_scores_the_agent_answer_not_the_ticket_numbers(tmp_path: Path) -> None:
    table = pd.DataFrame({"Ticket #": [1001, 1002, 1003, 1004], "Prompt": PROMPTS, "Agent Answer": ANSWERS,
                          "Expected Reply": EXPECTED, "Agent Version": ["v1", "v2", "v1", "v2"]})  # fmt: skip
    proc = _cli(_csv(tmp_path, table), "--out", str(tmp_path / "out.csv"))
    assert proc.returncode == 0, proc.stderr
    line = "columns: output='Agent Answer', input='Prompt', reference='Expected Reply'"
    assert proc.stderr.splitlines()[0] == line  # said before scoring ...
    assert line in proc.stdout.splitlines()  # ... and with the results
    got = pd.read_csv(tmp_path / "out.csv")
    expected = evaluate(table, columns=ColumnMap("Agent Answer", "Prompt", "Expected Reply")).table
    for column in ("tone-scorer", "content-similarity-scorer"):
        assert got[column].tolist() == pytest.approx(expected[column].tolist(), abs=1e-12)
    assert got["content-similarity-scorer"].min() > 0  # the numbers scored as text gave 0.000 everywhere


def test_two_answer_columns_exit_2_listing_the_columns_and_writing_nothing(tmp_path: Path) -> None:
    wide = _csv(tmp_path, pd.DataFrame({"Prompt": PROMPTS, "Answer A": ANSWERS, "Answer B": ANSWERS[::-1]}))
    proc = _cli(wide, "--out", str(tmp_path / "out.csv"))
    assert proc.returncode == 2 and not (tmp_path / "out.csv").exists()
    assert proc.stderr == (
        f"error: {wide}: output: 'Answer A' or 'Answer B'? Choose one. Columns: ['Prompt', 'Answer A', 'Answer B']. "
        "Name it with --output-column.\n"
    )
    chosen = _cli(wide, "--output-column", "Answer B")
    assert chosen.returncode == 0, chosen.stderr
    assert "columns: output='Answer B', input='Prompt', reference=None" in chosen.stderr


def test_the_one_text_column_is_taken_with_a_note(tmp_path: Path) -> None:
    path = _csv(tmp_path, pd.DataFrame({"id": ["a1", "a2", "a3", "a4"], "Body": ANSWERS, "n": [1, 2, 3, 4]}))
    proc = _cli(path, "--scorers", "tone")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[:2] == [
        "note: output: 'Body', the only column holding text (no column is named like the responses).",
        "columns: output='Body', input=None, reference=None",
    ]


@pytest.mark.parametrize(
    ("header", "row", "flags", "message"),
    [
        ("id,score,category", "1,0.5,billing", (), "none holds text (numbers, IDs or short labels only). Choose one. "
         "Columns: ['id', 'score', 'category']. Name it with --output-column."),
        ("output,output,input", "a,b,q", (), "output: 'output' or 'output.1' (the file names the same column more "
         "than once)? Choose one."),
        ("question,prompt,answer", "q,p,a", ("--scorers", "tone"), "input: 'question' or 'prompt'? Choose one. "
         "Columns: ['question', 'prompt', 'answer']. Name it with --input-column."),
        ("Prompt,Answer", "q,a", ("--output-column", "Prompt"), "column 'Prompt' cannot be both the output and "
         "the input"),
        ("answer,notes", "a,b", ("--scorers", "similarity"), "similarity compares the output with the reference "
         "column or, without one, with the input"),
    ],
)  # fmt: skip
def test_unclear_or_clashing_columns_exit_2(
    tmp_path: Path, header: str, row: str, flags: tuple[str, ...], message: str
) -> None:
    path = tmp_path / "in.csv"
    path.write_text(f"{header}\n{row}\n", encoding="utf-8")
    proc = _cli(path, *flags)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_rows_refused_for_length_say_so(tmp_path: Path) -> None:
    table = pd.DataFrame({"input": ["q", "q"], "output": ["Short and fine.", "x" * 80]})
    proc = _cli(_csv(tmp_path, table), "--scorers", "tone", env={"TONE_EXPLORER_MAX_TEXT_CHARS": "50"})
    assert proc.returncode == 0, proc.stderr
    assert "not scored: 1 skipped and 0 failed, by row and scorer, with why; first ones:" in proc.stderr
    assert "row 2: tone-scorer: output column 'output' is too long: 80 characters, limit 50" in proc.stderr
    assert "missing text" not in proc.stderr
