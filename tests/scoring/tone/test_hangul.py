"""The Hangul head's character n-grams, its weights file, and its training (primal weights = the dual fit).

No encoder and no cached embeddings needed: the training test runs on 60 made-up reviews and random vectors.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scoring.tone.e5 import HEAD_PATH
from scoring.tone.hangul import NGRAM_PATH, NgramWeights, char_ngrams, load_ngrams, mostly_hangul
from tools.e5_data import DataSet
from tools.train_e5_tone import (
    HANGUL_PREFIX,
    PREFIX,
    Training,
    _kernel_ridge,
    embeddings_needed,
    fit_hangul,
    nb_ratios,
    nb_scores,
    ngram_file,
    tfidf,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("정말 재밌다", True), ("ㅋㅋㅋㅋ ㅠㅠ", True), ("Great job :)", False), ("服务很好", False), ("♥ :)", False)],
)
def test_mostly_hangul(text: str, expected: bool) -> None:
    assert mostly_hangul(text) is expected


def test_char_ngrams_are_lower_cased_and_stay_inside_words() -> None:
    grams = char_ngrams("OK 좋다")
    assert grams[" ok"] == 1 and grams["좋다 "] == 1 and grams[" "] == 4
    assert "k 좋" not in grams and all(1 <= len(g) <= 3 for g in grams)


def test_ngram_score_equals_the_training_tfidf_row() -> None:
    texts = ["정말 재밌다 ㅋㅋ", "재밌다 정말 최고", "최악 정말 별로", "별로 최악"]
    matrix, idf = tfidf([char_ngrams(t) for t in texts])
    weight = {g: 0.1 * i - 1.0 for i, g in enumerate(idf)}
    scorer = NgramWeights(idf, weight)
    expected = matrix @ np.array(list(weight.values()))
    assert [scorer.score(t) for t in texts] == pytest.approx(expected, abs=1e-12)
    assert scorer.score("") == 0.0 and scorer.score("zzz") == weight[" "]  # only the padding space is known


def test_ngram_score_adds_each_distinct_known_ngrams_ratio_once() -> None:
    """The naive-Bayes term: a repeated n-gram counts once, an unknown one not at all, as in training."""
    texts = ["최고 최고 최고", "최악 별로", "최고 별로", "최악 정말"]
    counts = [char_ngrams(t) for t in texts]
    idf = tfidf(counts)[1]
    ratios = nb_ratios(counts, np.array([1, 0, 1, 0]), list(idf))
    assert ratios["최고"] > 0 > ratios["최악"]  # in positive / negative reviews only
    scorer = NgramWeights(idf, dict.fromkeys(idf, 0.0), ratios)
    assert [scorer.score(t) for t in texts] == pytest.approx(nb_scores(counts, ratios), abs=1e-12)
    assert scorer.score("최고") == pytest.approx(sum(ratios[g] for g in char_ngrams("최고")), abs=1e-12)
    assert scorer.score("최고 최고") == pytest.approx(scorer.score("최고"), abs=1e-12)


def test_shipped_ngrams_file_is_the_one_the_head_records() -> None:
    record = json.loads(HEAD_PATH.read_text(encoding="utf-8"))["hangul_head"]
    assert record["ngrams_file"] == NGRAM_PATH.name
    assert hashlib.sha256(NGRAM_PATH.read_bytes()).hexdigest() == record["ngrams_sha256"]
    weights = load_ngrams(sha256=record["ngrams_sha256"])
    assert len(weights.idf) == record["ngrams"] and all(math.isfinite(v) for v in weights.weight.values())
    # the sentiment a Korean reader sees in these n-grams
    assert weights.score("최악") < 0 < weights.score("최고")


def test_a_changed_ngrams_file_is_refused(tmp_path: Path) -> None:
    changed = tmp_path / "grams.json"
    changed.write_bytes(NGRAM_PATH.read_bytes().replace(b"]", b"1]", 1))
    with pytest.raises(ValueError, match="SHA-256 must be"):
        load_ngrams(changed, sha256=hashlib.sha256(NGRAM_PATH.read_bytes()).hexdigest())
    changed.write_text('{"ngrams": {"a": [1.0]}}')
    with pytest.raises(ValueError, match=r"ngrams must map each n-gram to \[idf, weight, ratio\]"):
        load_ngrams(changed)


def _made_up_training() -> Training:
    rng = np.random.default_rng(0)
    good, bad = ["재밌다", "최고", "감동", "ㅋㅋ"], ["별로", "최악", "지루", "ㅠㅠ"]
    rows = []
    for i in range(60):
        words = rng.choice(good if i % 2 else bad, size=2).tolist() + ["영화", "정말"][: i % 3]
        rows.append({"id": str(i), "text": " ".join(words), "target": 0.5 if i % 2 else -0.5, "label": i % 2})
    frame = pd.DataFrame(rows)
    ds = DataSet("nsmc", Path("made-up.csv"), "0" * 64, frame)
    vectors = rng.normal(size=(60, 384))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)  # as e5 gives them
    return Training({"nsmc": ds}, {"nsmc": vectors}, {}, {}, {}, {})


def test_fit_hangul_ships_the_primal_form_of_its_dual_fit_deterministically() -> None:
    run = _made_up_training()
    fit = fit_hangul(run)
    ds, x = run.sets["nsmc"], run.embeddings["nsmc"].astype(np.float64)
    y = ds.frame["target"].to_numpy(float)
    counts = [char_ngrams(t) for t in ds.texts]
    matrix, idf = tfidf(counts)
    k = fit.scale**2 * x @ x.T + (matrix @ matrix.T).toarray()
    dual = _kernel_ridge(k, k, y, [fit.alpha])[0][0]
    nb = nb_scores(counts, nb_ratios(counts, ds.frame["label"].to_numpy(), list(idf)))
    b = fit.blend
    blend = ((dual - b["ridge_mean"]) / b["ridge_std"] + (nb - b["nb_mean"]) / b["nb_std"]) / 2
    assert fit.raw(run.embeddings["nsmc"], ds.texts) == pytest.approx(fit.gain * blend + y.mean(), abs=1e-5)
    assert fit.rows.all() and fit.cv_pred.shape == (60,) and fit.gain > 0
    assert np.corrcoef(fit.cv_pred, y)[0, 1] > 0.5  # the n-grams carry the made-up sentiment out of fold
    assert ngram_file(fit_hangul(_made_up_training())) == ngram_file(fit)


def test_fit_hangul_reads_the_embeddings_of_its_own_prefix() -> None:
    """The Hangul head is trained on NSMC embedded with HANGUL_PREFIX, the other heads on PREFIX (both "query: ")."""
    assert (PREFIX, HANGUL_PREFIX) == ("query", "query")
    assert ("nsmc", "query") in embeddings_needed() and ("nyt", "query") in embeddings_needed()
    assert len(embeddings_needed()) == 5  # each set once: the Hangul head reads NSMC's embeddings of the others
    plain = _made_up_training()
    other = _made_up_training()
    other.hangul_embeddings = other.embeddings["nsmc"]
    other.embeddings = {"nsmc": np.zeros_like(other.hangul_embeddings)}  # what the other heads read: not used here
    a, b = fit_hangul(plain), fit_hangul(other)
    assert np.array_equal(a.coef, b.coef) and a.intercept == b.intercept and ngram_file(a) == ngram_file(b)
