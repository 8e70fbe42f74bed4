"""The e5 engine's word model reproduces scikit-learn's TF-IDF and logistic regression, and ships with the head."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from scoring.toxicity.e5 import HEAD_PATH, load_head
from scoring.toxicity.lexical import LEXICAL_PATH, LexicalModel, features, load_lexical, terms

CORPUS = [
    "You useless clown, I asked for a refund.",
    "Thanks so much, the refund arrived today!",
    "Your brain must run on dial-up, you clown.",
    "The café's crème brûlée was wonderful; ünïcode wörds count too.",
    "I'm not sure I fully understand your position.",
    "Uncle Ray is a bitter, freeloading drunk.",
]
LABELS = np.array([1, 0, 1, 0, 0, 1])


def test_terms_and_features_equal_scikit_learns_vectorizer() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, lowercase=True)
    matrix = vectorizer.fit_transform(CORPUS).toarray()
    vocabulary = {t: j for j, t in enumerate(vectorizer.get_feature_names_out())}
    for text, expected in zip([*CORPUS, "a b c unseen words", "clown clown clown"], [*matrix, None, None], strict=True):
        row = np.zeros(len(vocabulary))
        for j, v in features(text, vocabulary, vectorizer.idf_).items():
            row[j] = v
        want = vectorizer.transform([text]).toarray()[0] if expected is None else expected
        np.testing.assert_allclose(row, want, rtol=0, atol=1e-12)
    assert terms("Bonjour à tous")["bonjour tous"] == 1  # one-letter words are dropped, as scikit-learn does


def test_probabilities_equal_scikit_learns_logistic_regression() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, lowercase=True)
    model = LogisticRegression(C=16.0).fit(vectorizer.fit_transform(CORPUS), LABELS)
    names = vectorizer.get_feature_names_out()
    ours = LexicalModel(
        {t: j for j, t in enumerate(names)}, vectorizer.idf_, model.coef_[0], float(model.intercept_[0])
    )
    probe = [*CORPUS, "What a useless refund.", ""]
    want = model.predict_proba(vectorizer.transform(probe))[:, 1]
    np.testing.assert_allclose(ours.probabilities(probe), want, rtol=0, atol=1e-12)


def test_the_shipped_word_model_is_the_one_the_head_names() -> None:
    spec = json.loads(HEAD_PATH.read_text(encoding="utf-8"))["lexical"]
    assert hashlib.sha256(LEXICAL_PATH.read_bytes()).hexdigest() == spec["sha256"]
    assert load_head().lexical == LEXICAL_PATH and load_head().lexical_weight == spec["weight"] == 0.3
    model = load_lexical()
    assert len(model.vocabulary) == spec["terms"]
    # the word model alone tells a contemptuous sentence from a courteous one
    insult, thanks = model.probabilities(["You are a lazy incompetent idiot.", "Thank you for your patience."])
    assert insult > 0.9 and thanks < 0.1
