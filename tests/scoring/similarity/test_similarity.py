from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis.strategies import text

from scoring import create_content_similarity_scorer
from scoring.similarity.scorer import ALGORITHMS, dice, similarities

DOC_EXAMPLES = [
    ("The quick brown fox jumps over the lazy dog.", "The quick brown fox jumps over the lazy dog.", 1.0),
    ("The quick brown fox jumps over the lazy dog.", "A quick brown fox jumped over a lazy dog.", 0.7761194029850746),
    (
        "A brown fox quickly leaps across a sleeping dog.",
        "The quick brown fox jumps over the lazy dog.",
        0.40540540540540543,
    ),
    ("The cat sleeps on the windowsill.", "The quick brown fox jumps over the lazy dog.", 0.25806451612903225),
]


@pytest.mark.parametrize(("query", "response", "expected"), DOC_EXAMPLES)
def test_similarity_reproduces_the_docs_examples(query: str, response: str, expected: float) -> None:
    result = create_content_similarity_scorer().run(
        input=[{"role": "user", "content": query}], output={"text": response}
    )
    assert result.score == expected
    assert result.to_dict()["analyzeStepResult"] == {"similarity": expected}


def test_similarity_preprocess_lowercases_and_collapses_whitespace() -> None:
    r = create_content_similarity_scorer().run(input="  Hello\t\tWORLD ", output="hello world")
    assert r.preprocess_step_result == {"processedInput": "hello world", "processedOutput": "hello world"}
    assert r.score == 1.0


def test_similarity_case_sensitive_when_asked() -> None:
    r = create_content_similarity_scorer(ignore_case=False).run(input="ABC", output="abc")
    assert r.score == 0.0


def test_dice_counts_utf16_code_units_like_javascript() -> None:
    # "😀" is two UTF-16 units: "a😀" has 3 units and 2 bigrams, sharing the surrogate pair bigram.
    assert dice("a😀", "b😀") == pytest.approx(2 * 1 / (3 + 3 - 2))


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_every_algorithm_in_unit_range_and_one_for_equal(algorithm: str) -> None:
    s = create_content_similarity_scorer(algorithm=algorithm)
    assert s.run(input="Same text", output="same  text").score == 1.0
    assert 0.0 <= s.run(input="kitten sitting", output="sitting kitten on a mat").score <= 1.0


def test_similarities_lists_every_algorithm() -> None:
    assert set(similarities("abc", "abd")) == set(ALGORITHMS)


@given(a=text(), b=text())
def test_similarity_bounded_and_symmetric(a: str, b: str) -> None:
    s = create_content_similarity_scorer()
    forward = s.run(input=a, output=b).score
    assert 0.0 <= forward <= 1.0
    assert forward == pytest.approx(s.run(input=b, output=a).score)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"algorithm": "cosine"}, "algorithm must be one of"),
        ({"scale": 0}, "scale must be a positive number"),
        ({"ignore_case": "yes"}, "ignore_case must be True or False"),
    ],
)
def test_similarity_rejects_bad_options(kwargs: dict, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        create_content_similarity_scorer(**kwargs)


def test_partial_ratio_refuses_long_texts_with_a_clear_error() -> None:
    long_a, long_b = "good service " * 500, "bad service " * 500
    with pytest.raises(ValueError, match="partial_ratio accepts texts of up to 5,000 characters"):
        create_content_similarity_scorer(algorithm="partial_ratio").run(input=long_a, output=long_b)
    table = similarities(long_a, long_b)
    assert math.isnan(table["partial_ratio"])
    assert all(0.0 <= v <= 1.0 for k, v in table.items() if k != "partial_ratio")
