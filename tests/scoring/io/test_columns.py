"""The one column guess (CLI and Batch page): names -> roles, values when no name says, ambiguity asked."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.io.columns import ColumnMap, guess_columns, looks_like

# (column names, expected mapping, how the output was decided). Each common name appears at least once,
# so dropping one from the vocabulary (e.g. "reply" or "text") fails a row.
NAMES = [
    # the cases
    (["Ticket #", "Prompt", "Agent Answer", "Expected Reply", "Agent Version"],
     ColumnMap("Agent Answer", "Prompt", "Expected Reply"), "name"),
    (["Prompt", "Answer A", "Answer B"], ColumnMap(None, "Prompt", None), "ambiguous"),
    # case, spaces, _ and -, punctuation, camelCase
    (["Prompt", "Response", "expected"], ColumnMap("Response", "Prompt", "expected"), "name"),
    (["question", "ANSWER", "groundTruth"], ColumnMap("ANSWER", "question", "groundTruth"), "name"),
    (["input", "completion", "ground_truth"], ColumnMap("completion", "input", "ground_truth"), "name"),
    (["User-Query", "model.output", "Ground Truth!"], ColumnMap("model.output", "User-Query", "Ground Truth!"), "name"),
    (["  prompt  ", "bot_reply", "gold answer"], ColumnMap("bot_reply", "  prompt  ", "gold answer"), "name"),
    (["userMessage", "assistantResponse"], ColumnMap("assistantResponse", "userMessage", None), "name"),
    (["id", "output", "reference"], ColumnMap("output", None, "reference"), "name"),
    # every common name
    (["reply"], ColumnMap("reply"), "name"),
    (["text"], ColumnMap("text"), "name"),
    (["id", "text"], ColumnMap("text"), "name"),
    (["Generated"], ColumnMap("Generated"), "name"),
    (["agent output", "query"], ColumnMap("agent output", "query", None), "name"),
    (["assistant output", "user message"], ColumnMap("assistant output", "user message", None), "name"),
    (["model_output", "user input", "ideal_response"],
     ColumnMap("model_output", "user input", "ideal_response"), "name"),
    (["Completion", "Question", "Target"], ColumnMap("Completion", "Question", "Target"), "name"),
    (["response text", "prompt", "expected_output"], ColumnMap("response text", "prompt", "expected_output"), "name"),
    (["output", "input", "ref"], ColumnMap("output", "input", "ref"), "name"),
    # a clear name beats a hint; a reference word wins over "reply"
    (["text", "answer"], ColumnMap("answer"), "name"),
    (["Expected Reply", "Reply"], ColumnMap("Reply", None, "Expected Reply"), "name"),
    # names that measure or label something are never a text role
    (["response_id", "response_time", "answer_length", "reply_score", "Agent Version", "Ticket #"],
     ColumnMap(None), "none"),
    (["question_id", "answer"], ColumnMap("answer"), "name"),
    # ties are asked, never settled by order (first or last)
    (["Response", "response"], ColumnMap(None), "ambiguous"),
    (["output", "output.1", "input"], ColumnMap(None, "input", None), "ambiguous"),  # pandas' read of a,a
    (["output", "output", "input"], ColumnMap(None, "input", None), "ambiguous"),
    (["question", "prompt", "answer"], ColumnMap("answer", None, None), "name"),  # the input is asked
    (["question_answer"], ColumnMap(None), "none"),  # a pair, not one role
    (["a", "b"], ColumnMap(None), "none"),  # never the first column
]  # fmt: skip


@pytest.mark.parametrize(("names", "expected", "how"), NAMES, ids=[" | ".join(n[0]) for n in NAMES])
def test_names_map_to_roles(names: list[str], expected: ColumnMap, how: str) -> None:
    guess = guess_columns(names)
    assert guess.mapping == expected
    assert guess.how == how


def test_ambiguous_roles_name_the_tied_columns() -> None:
    guess = guess_columns(["Prompt", "Answer A", "Answer B"])
    assert guess.output.candidates == ("Answer A", "Answer B")
    assert guess.notes() == ["output: 'Answer A' or 'Answer B'? Choose one."]
    twice = guess_columns(["output", "output.1", "input"])
    assert twice.output.candidates == ("output", "output.1")
    assert "the file names the same column more than once" in twice.output.note
    inputs = guess_columns(["question", "prompt", "answer"])
    assert inputs.input.how == "ambiguous" and inputs.input.candidates == ("question", "prompt")


def test_mapping_describes_itself_in_one_line() -> None:
    assert ColumnMap("Agent Answer", "Prompt", "Expected Reply").describe() == (
        "output='Agent Answer', input='Prompt', reference='Expected Reply'"
    )
    assert ColumnMap("a").describe() == "output='a', input=None, reference=None"


TEXT = ["Thanks for waiting, it ships today.", "Sorry about that, refund is on its way.", "Happy to help!"]


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        ([1, 2, 3], "number"),
        ([1.5, None, 2.25], "number"),
        (["12", "3.5", "-7", "1,234"], "number"),
        (["T-1001", "T-1002", "T-1003"], "id"),
        (["9f1c2a7e-1b2c-4d5e-8f90-123456789abc", "3c4d5e6f-0000-4aaa-8bbb-cccccccccccc"], "id"),
        (["v1.0", "v2.0", "v1.0"], "id"),
        (["2024-05-01", "2024-05-02"], "id"),
        ([True, False], "id"),
        (["billing", "refund", "billing"], "label"),
        (["Yes", "No", "Yes"], "label"),
        (TEXT, "text"),
        ([None, None], "empty"),
    ],
)
def test_looks_like(values: list[object], kind: str) -> None:
    assert looks_like(pd.Series(values)) == kind


def test_no_name_match_takes_the_one_text_column_with_a_note() -> None:
    df = pd.DataFrame({"Ticket #": [1001, 1002, 1003], "Body": TEXT, "Version": ["v1", "v2", "v1"]})
    guess = guess_columns(df)
    assert guess.mapping == ColumnMap("Body") and guess.how == "values"
    assert guess.output.note == (
        "output: 'Body', the only column holding text (no column is named like the responses)."
    )


def test_a_response_named_column_of_numbers_is_never_the_response() -> None:
    df = pd.DataFrame({"Response": [4, 5, 3], "Comment": TEXT})
    guess = guess_columns(df)
    assert guess.mapping.output == "Comment" and guess.how == "values"
    assert "'Response' holds numbers or IDs, not text" in guess.output.note
    named = guess_columns(pd.DataFrame({"response_code": ["R-1", "R-2", "R-3"], "answer": TEXT}))
    assert named.mapping.output == "answer" and named.how == "name"


def test_several_text_columns_and_no_name_is_ambiguous() -> None:
    df = pd.DataFrame({"id": [1, 2, 3], "col_a": TEXT, "col_b": TEXT[::-1]})
    guess = guess_columns(df)
    assert guess.mapping.output is None and guess.how == "ambiguous" and guess.output.candidates == ("col_a", "col_b")


def test_only_numbers_and_labels_is_none_and_lists_every_column() -> None:
    df = pd.DataFrame({"id": [1, 2], "category": ["billing", "refund"], "score": [0.5, 0.7]})
    guess = guess_columns(df)
    assert guess.mapping.output is None and guess.how == "none"
    assert guess.output.candidates == ("id", "category", "score")
    assert "none holds text" in guess.output.note


def test_a_column_with_another_role_is_never_taken_by_values() -> None:
    df = pd.DataFrame({"Prompt": TEXT, "n": [1, 2, 3]})
    guess = guess_columns(df)
    assert guess.mapping == ColumnMap(None, "Prompt", None) and guess.how == "none"


WORDS = st.sampled_from(
    ["answer", "reply", "Response", "text", "output", "prompt", "question", "input", "expected", "reference",
     "gold", "id", "#", "version", "agent", "model", "user", "A", "B", "1", "message", "score", "ground truth"]
)  # fmt: skip
NAME = st.lists(WORDS, min_size=1, max_size=3).flatmap(
    lambda words: st.sampled_from([" ", "_", "-", ""]).map(lambda sep: sep.join(words))
)


@settings(max_examples=200, deadline=None)
@given(names=st.lists(NAME, min_size=1, max_size=6), seed=st.randoms(use_true_random=False))
def test_the_guess_never_depends_on_column_order_and_never_gives_a_column_two_roles(names: list[str], seed) -> None:  # type: ignore[no-untyped-def]
    guess = guess_columns(names)
    shuffled = list(names)
    seed.shuffle(shuffled)
    assert guess_columns(shuffled).mapping == guess.mapping
    chosen = [c for c in (guess.mapping.output, guess.mapping.input, guess.mapping.reference) if c is not None]
    assert len(chosen) == len(set(chosen))
    for role in (guess.output, guess.input, guess.reference):
        assert (role.column is None) == (role.how in ("ambiguous", "none"))
        assert role.column is None or names.count(role.column) == 1


def test_an_empty_prompt_or_reference_column_is_passed_over_with_a_note() -> None:
    df = pd.DataFrame({"input": [None, None], "output": TEXT[:2], "reference": [None, None]})
    guess = guess_columns(df)
    assert guess.mapping == ColumnMap("output", None, None)
    assert guess.notes() == ["input: none ('input' is empty).", "reference: none ('reference' is empty)."]
    empty_output = guess_columns(pd.DataFrame({"output": [None, None], "input": ["q", "r"]}))
    assert empty_output.mapping.output == "output"  # every row then says "output column 'output' is empty"


def test_a_table_without_rows_is_guessed_by_names_only() -> None:
    guess = guess_columns(pd.DataFrame({"output": [], "input": [], "reference": []}))
    assert guess.mapping == ColumnMap("output", "input", "reference")
