from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from scoring import create_content_similarity_scorer
from scoring.similarity.scorer import ALGORITHMS, similarities
from tests.pages.conftest import APP, metrics

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


@pytest.mark.parametrize(("first", "second"), [("", ""), ("  \n", "\t"), ("The quick brown fox.", " ")])
def test_similarity_page_asks_for_both_texts_instead_of_scoring_empty_ones(
    open_page: Open, first: str, second: str
) -> None:
    # Two empty texts are "identical" to the scorer (Dice 1.000): a number that says nothing.
    at = open_page(SIMILARITY, state={"similarity.input": first, "similarity.output": second})
    assert not at.exception and not metrics(at) and not at.get("plotly_chart")
    assert "Paste both texts" in at.info[0].value


def test_similarity_page_link_reopens_both_texts_and_options() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"a": "Where is my parcel?", "b": "Your parcel is on its way.", "case": "0", "ws": "1"})
    at.run()
    at.switch_page(SIMILARITY).run()
    assert not at.exception
    assert (at.text_area(key="similarity.input").value, at.toggle(key="similarity.ignore_case").value) == (
        "Where is my parcel?",
        False,
    )
    expected = create_content_similarity_scorer(ignore_case=False).run(
        input="Where is my parcel?", output="Your parcel is on its way."
    )
    assert metrics(at)["Dice similarity"] == f"{expected.score:.3f}"
    at.toggle(key="similarity.ignore_case").set_value(True).run()
    assert at.query_params["case"] == "1" and at.query_params["b"] == "Your parcel is on its way."


def test_similarity_page_scores_long_texts_and_says_which_algorithms_it_left_out(open_page: Open) -> None:
    first, second = "the parcel is on its way " * 4_000, "your parcel is on the way " * 4_000  # 100,000 characters
    at = open_page(SIMILARITY, state={"similarity.input": first, "similarity.output": second})
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    left_out = table[table["similarity"].isna()]
    assert set(left_out["algorithm"]) == {
        "ratio",
        "partial_ratio",
        "token_sort_ratio",
        "levenshtein",
        "jaro_winkler",
        "e5",
    }
    assert all(note.startswith("not computed") for note in left_out["what it measures"])
    assert (
        metrics(at)["Dice similarity"]
        == f"{create_content_similarity_scorer().run(input=first, output=second).score:.3f}"
    )
    assert any("but not to the input and output" in c.value for c in at.caption)  # too long for a link
    assert [c.value for c in at.code] == [first.strip()[:20_000], second.strip()[:20_000]]  # the start, and:
    assert [c.value for c in at.caption if c.value.startswith("The first 20,000 of")] == [
        f"The first 20,000 of {len(text.strip()):,} characters; the scores cover all of them."
        for text in (first, second)
    ]
    assert any(c.value.startswith("The start of the diff") for c in at.caption)
    diff = next(m.value for m in at.markdown if "-background[" in m.value and "parcel" in m.value)
    assert len(diff) < 100_000  # the whole diff: 455,999 characters of markdown
