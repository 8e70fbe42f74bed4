"""AppTest of the Batch page's columns: the right text is scored, or the user is asked; it says which, when.

Before scoring the page says which column is used for what (and how it was decided); after scoring it
says it again above the results. Oddly named files from issue 9: the ticket export and the wide A/B file.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from scoring.batch.rows import BatchSpec
from scoring.batch.runner import evaluate
from scoring.io.columns import ColumnMap
from tests.pages.conftest import metrics, plain
from ui import batch_input as batch_ui

BATCH = "pages/batch.py"
Open = Callable[..., AppTest]
PROMPTS = ["Where is my order?", "Can I get a refund?", "How do I reset my password?", "Open on Sunday?"]
ANSWERS = [
    "Your order ships tomorrow, thanks for waiting!",
    "Sorry, refunds take five days. We are on it.",
    "Click 'Forgot password' on the login page and follow the email.",
    "Yes, we are open from 10 to 4 on Sundays.",
]
EXPECTED = ["It ships tomorrow.", "Refunds take five business days.", "Use the Forgot password link.", "Open 10-4."]
TICKETS = pd.DataFrame({"Ticket #": [1001, 1002, 1003, 1004], "Prompt": PROMPTS, "Agent Answer": ANSWERS,
                        "Expected Reply": EXPECTED, "Agent Version": ["v1", "v2", "v1", "v2"]})  # fmt: skip
WIDE = pd.DataFrame({"Prompt": PROMPTS, "Answer A": ANSWERS, "Answer B": ANSWERS[::-1]})
TICKET_PLAN = (
    "replies from 'Agent Answer', inputs from 'Prompt', references from 'Expected Reply' — Tone: output vs "
    "'Expected Reply' · Content similarity: output vs 'Expected Reply'"
)


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    calls: list[dict[str, object]] = []
    real = batch_ui.run_spec

    def counting(df: object, spec: BatchSpec, **kwargs: object) -> object:
        calls.append({"columns": spec.columns, "engine": spec.engine, "reference_tone": spec.reference_tone,
                      "toxicity": dict(spec.toxicity) or None, **kwargs})  # fmt: skip
        return real(df, spec, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(batch_ui, "run_spec", counting)
    return calls


def _plain(markdown: str) -> str:
    """Markdown as the reader sees it: escapes, bold marks and word joiners removed."""
    return plain(markdown).replace("**", "")


def _captions(at: AppTest) -> list[str]:
    return [_plain(c.value) for c in at.caption]


def _upload(open_page: Open, table: pd.DataFrame | bytes, name: str = "tickets.csv") -> AppTest:
    at = open_page(BATCH, state={"batch.source": "file"})
    data = table if isinstance(table, bytes) else table.to_csv(index=False).encode()
    at.file_uploader(key="batch.upload").set_value((name, data, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _picked(at: AppTest) -> tuple[object, object, object]:
    return tuple(at.selectbox(key=f"batch.col.{k}").value for k in ("output", "input", "reference"))  # type: ignore[return-value]


def test_the_ticket_file_scores_the_agent_answer_and_says_so_before_and_after(
    open_page: Open, runs: list[dict[str, object]]
) -> None:
    at = _upload(open_page, TICKETS)
    assert _picked(at) == ("Agent Answer", "Prompt", "Expected Reply")
    assert _captions(at).count("by its name") == 3
    assert f"Will score {TICKET_PLAN}" in _captions(at)
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert runs[0]["columns"] == ColumnMap("Agent Answer", "Prompt", "Expected Reply")
    assert f"Scored {TICKET_PLAN}" in _captions(at)
    expected = evaluate(TICKETS, columns=ColumnMap("Agent Answer", "Prompt", "Expected Reply")).summary["mean"]
    shown = metrics(at)
    assert shown["Tone · mean"] == f"{expected['tone-scorer']:.3f}"
    assert shown["Content similarity · mean"] == f"{expected['content-similarity-scorer']:.3f}"
    assert shown["Content similarity · mean"] != "0.000" and shown["Tone · mean"] != "1.000"


def test_two_answer_columns_make_the_user_choose(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _upload(open_page, WIDE, "wide.csv")
    assert _picked(at) == (None, "Prompt", batch_ui.NONE)  # neither Prompt nor the first answer column
    assert [_plain(w.value) for w in at.warning] == [
        "Choose the columns before scoring. output: 'Answer A' or 'Answer B'? Choose one."
    ]
    assert at.button(key="batch.run_button").disabled and not any(c.startswith("Will score") for c in _captions(at))
    at.selectbox(key="batch.col.output").set_value("Answer B").run()
    assert not at.warning and "chosen by you" in _captions(at)
    assert "Will score replies from 'Answer B', inputs from 'Prompt', no reference column — Tone: stability across " \
        "the output's sentences · Content similarity: output vs 'Prompt'" in _captions(at)  # fmt: skip
    at.button(key="batch.run_button").click().run()
    assert not at.exception and runs[0]["columns"] == ColumnMap("Answer B", "Prompt", None)
    assert metrics(at)["Content similarity · mean"] != "1.000"  # Prompt against itself gave 1.000


def test_the_one_text_column_is_taken_with_a_visible_note(open_page: Open, runs: list[dict[str, object]]) -> None:
    table = pd.DataFrame({"Ticket #": [1, 2, 3, 4], "Body": ANSWERS, "Team": ["a", "b", "a", "b"]})
    at = _upload(open_page, table, "export.csv")
    assert _picked(at) == ("Body", batch_ui.NONE, batch_ui.NONE)
    assert (
        "by its values · output: 'Body', the only column holding text (no column is named like the responses)."
        in _captions(at)
    )


@pytest.mark.parametrize(
    ("data", "note"),
    [
        (b"id,score,category\n1,0.5,billing\n2,0.7,refund\n", "output: no column is named like the responses, and "
         "none holds text (numbers, IDs or short labels only). Choose one."),
        (b"output,output,input\nGreat thanks,Fine.,q\n",
         "output: 'output' or 'output.1' (the file names the same column more than once)? Choose one."),
    ],
    ids=["numbers and labels only", "duplicate column names"],
)  # fmt: skip
def test_no_clear_response_column_asks_instead_of_taking_the_first(
    open_page: Open, runs: list[dict[str, object]], data: bytes, note: str
) -> None:
    at = _upload(open_page, data, "odd.csv")
    assert _picked(at)[0] is None
    assert [_plain(w.value) for w in at.warning] == [f"Choose the columns before scoring. {note}"]
    assert at.button(key="batch.run_button").disabled and not runs


def test_one_column_cannot_be_both_output_and_input(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _upload(open_page, TICKETS)
    at.selectbox(key="batch.col.output").set_value("Prompt").run()
    assert [plain(e.value) for e in at.error] == [
        "column 'Prompt' cannot be both the output and the input: choose another input column."
    ]
    assert at.button(key="batch.run_button").disabled and not runs


def test_rows_refused_for_length_say_why(
    open_page: Open, runs: list[dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TONE_EXPLORER_MAX_TEXT_CHARS", "50")
    table = pd.DataFrame({"input": ["q", "q"], "output": ["Short and fine.", "x" * 80]})
    at = _upload(open_page, table, "long.csv")
    at.pills(key="batch.scorers").set_value(["tone"])
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    banner = plain(at.warning[0].value)
    assert "tone-scorer: 1 of 2 rows not scored (output column 'output' is too long: 80 characters, limit 50)" in banner
    assert "missing" not in banner
