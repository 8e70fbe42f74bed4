"""Viewing batch results: worst rows first, filters, which columns to chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from scoring.batch.views import filter_rows, problem_lines, row_list, score_columns, sentiment_column, worst_first


@pytest.fixture
def table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["v1", "v2", "v1", "v2"],
            "output": ["Thanks a lot!", "NO.", "Sorry, no refund", "Glad to help"],
            "tone-scorer": [0.9, 0.1, np.nan, 0.5],
            "toxicity-scorer": [0.0, 0.8, 0.3, 0.1],
            "tone-scorer.avgSentiment": [np.nan, np.nan, np.nan, 0.3],
            "tone-scorer.responseSentiment": [0.6, -0.2, np.nan, np.nan],
        }
    )


def test_score_columns_in_package_order(table: pd.DataFrame) -> None:
    assert score_columns(table) == ["tone-scorer", "toxicity-scorer"]


def test_sentiment_column_prefers_the_fuller_one(table: pd.DataFrame) -> None:
    assert sentiment_column(table) == "tone-scorer.responseSentiment"
    assert sentiment_column(table.drop(columns="tone-scorer.responseSentiment")) == "tone-scorer.avgSentiment"
    assert sentiment_column(table[["output"]]) is None


def test_worst_first_lowest_tone_highest_toxicity_missing_last(table: pd.DataFrame) -> None:
    assert worst_first(table, "tone-scorer")["output"].tolist()[:3] == ["NO.", "Glad to help", "Thanks a lot!"]
    assert worst_first(table, "tone-scorer")["output"].iloc[-1] == "Sorry, no refund"
    assert worst_first(table, "toxicity-scorer")["output"].iloc[0] == "NO."
    with pytest.raises(ValueError, match="score column 'x' is not in the table"):
        worst_first(table, "x")


def test_filters_combine(table: pd.DataFrame) -> None:
    assert len(filter_rows(table)) == 4
    in_range = filter_rows(table, score="tone-scorer", score_range=(0.4, 1.0))
    assert in_range["output"].tolist() == ["Thanks a lot!", "Glad to help"]
    v2 = filter_rows(table, group="model", groups=["v2"])
    assert v2["output"].tolist() == ["NO.", "Glad to help"]
    found = filter_rows(table, query="  no ", text_columns=["output"])
    assert found["output"].tolist() == ["NO.", "Sorry, no refund"]
    both = filter_rows(table, group="model", groups=["v2"], query="no", text_columns=["output"])
    assert both["output"].tolist() == ["NO."]


def test_query_is_literal_not_a_regex(table: pd.DataFrame) -> None:
    assert filter_rows(table, query="(", text_columns=["output"]).empty
    assert filter_rows(table, query="no.", text_columns=["output"])["output"].tolist() == ["NO."]


def test_problem_lines_count_and_name_rows() -> None:
    skipped = pd.DataFrame({"row": [2, 9], "index": [1, 8], "scorer": ["tone-scorer"] * 2, "column": ["output"] * 2,
                            "reason": ["output column 'output' is empty"] * 2})  # fmt: skip
    errors = pd.DataFrame({"row": [4], "index": [3], "scorer": ["toxicity-scorer"], "error": ["TimeoutError: judge"]})
    lines = problem_lines(skipped, errors, 10)
    assert lines[0].startswith("tone-scorer: 2 of 10 rows not scored (output column 'output' is empty): row 2, 9.")
    assert lines[1].startswith("toxicity-scorer: 1 of 10 rows failed: row 4 (first error: TimeoutError: judge)")
    assert problem_lines(skipped.iloc[:0], errors.iloc[:0], 10) == []
    both = pd.concat([skipped, skipped.assign(scorer="content-similarity-scorer")])
    assert problem_lines(both, errors.iloc[:0], 10)[0].startswith("tone-scorer, content-similarity-scorer: 2 of 10")


def test_row_list_is_short() -> None:
    assert row_list(list(range(1, 31))) == "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 and 18 more"


def test_warmth_is_each_replys_own_sentiment_in_either_mode(table: pd.DataFrame) -> None:
    from scoring.batch.views import with_measures

    extended, compared = with_measures(table)
    assert compared == ["tone-scorer", "toxicity-scorer", "warmth"]
    # rows 1-2 scored with a reference (responseSentiment), row 4 without (avgSentiment), row 3 by neither
    assert extended["warmth"].tolist()[:2] == [0.6, -0.2] and extended["warmth"].iloc[3] == 0.3
    assert np.isnan(extended["warmth"].iloc[2])


def test_warmth_of_a_batch_scored_with_a_reference_column_is_there_and_never_the_references() -> None:
    from scoring.batch import evaluate
    from scoring.batch.views import with_measures
    from scoring.io.columns import ColumnMap

    df = pd.DataFrame({
        "question": ["Where is my order?", "Refund?"],
        "reply": ["Thanks so much for asking! It ships tomorrow, happy to help.", "It shipped. Stop asking."],
        "ref": ["Thank you, we are delighted to help!", "Thank you, we are delighted to help!"],
    })  # fmt: skip
    result = evaluate(df, scorers=["tone"], columns=ColumnMap(output="reply", input="question"), reference="ref")
    assert "tone-scorer.avgSentiment" not in result.table.columns  # comparison mode: no stability metrics
    extended, compared = with_measures(result.table)
    assert compared == ["tone-scorer", "warmth"]
    warmth = extended["warmth"].tolist()
    assert warmth == result.table["tone-scorer.responseSentiment"].tolist() and warmth[0] > 0.5 > warmth[1]
