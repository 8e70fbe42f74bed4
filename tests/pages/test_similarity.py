from __future__ import annotations

import json
from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from scoring import create_content_similarity_scorer
from scoring.similarity.scorer import ALGORITHMS, similarities
from tests.pages.conftest import metrics

SIMILARITY = "pages/similarity.py"
Open = Callable[..., AppTest]


def test_similarity_page_shows_the_docs_dice_score_and_processed_texts(open_page: Open) -> None:
    at = open_page(SIMILARITY)
    assert metrics(at)["Dice similarity"] == "0.776"  # the docs' worked example
    assert [c.value for c in at.code] == [
        "the quick brown fox jumps over the lazy dog.",
        "a quick brown fox jumped over a lazy dog.",
    ]


def test_similarity_page_lists_every_algorithm_in_a_table_and_a_chart(open_page: Open) -> None:
    at = open_page(SIMILARITY)
    table = at.dataframe[0].value
    expected = similarities("the quick brown fox jumps over the lazy dog.", "a quick brown fox jumped over a lazy dog.")
    assert table["algorithm"].tolist() == list(ALGORITHMS)
    assert table["similarity"].tolist() == list(expected.values())
    assert len(at.get("plotly_chart")) == 1


def test_similarity_page_options_change_the_processed_texts(open_page: Open) -> None:
    at = open_page(SIMILARITY)
    at.text_area(key="similarity.input").set_value("  Hello   World ")
    at.text_area(key="similarity.output").set_value("hello world")
    at.toggle(key="similarity.ignore_case").set_value(False)
    at.toggle(key="similarity.ignore_whitespace").set_value(False).run()
    assert not at.exception
    assert [c.value for c in at.code] == ["  Hello   World ", "hello world"]
    scorer = create_content_similarity_scorer(ignore_case=False, ignore_whitespace=False)
    assert metrics(at)["Dice similarity"] == f"{scorer.run(input='  Hello   World ', output='hello world').score:.3f}"
    at.toggle(key="similarity.ignore_case").set_value(True)
    at.toggle(key="similarity.ignore_whitespace").set_value(True).run()
    assert metrics(at)["Dice similarity"] == "1.000"


def test_similarity_page_shows_an_escaped_word_diff_and_the_json(open_page: Open) -> None:
    at = open_page(SIMILARITY, state={"similarity.input": "pay $5 now", "similarity.output": "pay *$50* now"})
    assert "pay :red-background[~~\\$5~~] :green-background[\\*\\$50\\*] now" in [m.value for m in at.markdown]
    exported = json.loads(at.json[0].value)
    assert exported["scorerId"] == "content-similarity-scorer"
    assert exported["preprocessStepResult"] == {"processedInput": "pay $5 now", "processedOutput": "pay *$50* now"}
    assert "allAlgorithms" not in exported
