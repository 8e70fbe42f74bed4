"""The sixth round's selection rule (tools.select_toxicity_defaults): constraints first, then recall and its ties."""

from __future__ import annotations

import pandas as pd

from tools.select_toxicity_defaults import choose, markdown


def _row(**kw: float) -> dict[str, float]:
    base = {"word weight": 0.3, "English": 0.3, "addressed": 0.4, "recall": 0.9, "precision": 0.95,
            "lowest recall": 0.8, "lowest precision": 0.92, "positive": 0.005, "replies": 0, "seeds": 15,
            "development": 0.9}  # fmt: skip
    return {**base, **kw}


def test_choose_keeps_the_constraints_and_orders_by_recall_then_its_ties() -> None:
    table = pd.DataFrame([
        _row(English=0.2, recall=0.99, positive=0.02),  # too many positive texts flagged
        _row(English=0.21, recall=0.98, replies=1),  # a courteous reply flagged
        _row(English=0.22, recall=0.97, seeds=14),  # a seed example wrong
        _row(English=0.23, recall=0.97, precision=0.92),  # pooled precision under 0.93
        _row(English=0.24, recall=0.97, **{"lowest precision": 0.85}),  # one set under 0.90
        _row(English=0.25, recall=0.93, **{"lowest recall": 0.8}),
        _row(English=0.26, recall=0.93, **{"lowest recall": 0.86}),  # same recall, better worst set
        _row(English=0.27, recall=0.93, **{"lowest recall": 0.86}, development=0.95),  # and better development
        _row(English=0.28, recall=0.95),
    ])  # fmt: skip
    assert choose(table)["English"].tolist() == [0.28, 0.27, 0.26, 0.25]


def test_markdown_prints_a_table() -> None:
    text = markdown(pd.DataFrame({"a": [0.5, 1.25], "b": ["x", "y"]}))
    assert text.splitlines() == ["| a | b |", "| --- | --- |", "| 0.5 | x |", "| 1.25 | y |"]
