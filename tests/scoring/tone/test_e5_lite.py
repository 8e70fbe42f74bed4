"""The e5-lite tone engine: the same bits in run(), score_many, the CLI and Dask; heads; explanations."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scoring import create_content_similarity_scorer, create_tone_scorer
from scoring.batch.distributed import dask_client, iter_scored_dask
from scoring.batch.runner import iter_scored, make_spec
from scoring.cli.main import main
from scoring.errors import InputError
from scoring.io.loaders import iter_table_chunks
from scoring.text.e5_lite import model
from scoring.tone.e5 import E5Head, load_head
from scoring.tone.e5_lite import (
    HEAD_PATH,
    NEGATIONS,
    SCOPE_ENDS,
    E5LiteEngine,
    lexical_rows,
    lite_raw,
    load_lite_head,
    marked_rows,
)
from scoring.tone.engines import get_engine
from scoring.tone.explain import word_drivers
from scoring.tone.lexicons import lexicon_scores

REPLIES = [
    "Thanks so much, happy to help!",
    "That is awful. Sorry!",
    "정말 최악이에요. 환불해 주세요.",
    "服务很好，谢谢！",
    "Fine. Whatever.",
]


def test_polarity_has_the_sign_a_reader_gives() -> None:
    engine = get_engine("e5-lite")
    good, bad = engine.polarities(["Thank you so much, your help was wonderful!", "This is a terrible, awful mess."])
    assert good > 0.1 and bad < -0.1
    korean_good, korean_bad = engine.polarities(["정말 재밌고 감동적인 영화였어요", "정말 최악의 영화, 돈 아까워요"])
    assert korean_good > korean_bad


def test_head_file_holds_its_training_scores() -> None:
    data = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    assert data["command"] == "python -m tools.train_e5_lite tone"
    assert set(data["scores"]) == {"tweets", "movies", "amazon", "nsmc", "nyt"}
    assert isinstance(load_head(HEAD_PATH), E5Head)


def _by_hand(text: str) -> float:
    """One text's raw polarity computed token by token from the head files (no batch, no vectorised marking)."""
    lite = model()
    data = json.loads(HEAD_PATH.read_text(encoding="utf-8"))
    corrections = json.loads((HEAD_PATH.parent / data["tokens_file"]).read_text(encoding="utf-8"))["tokens"]
    latin = lexical_rows([text])[0]
    part = data["lexicon_head"] if latin else data
    coef, negated = np.array(part["coef"]), np.array(part["negated_coef"])
    num = den = 0.0
    scope = False
    ids = lite.tokenizer.ids(text)
    pieces = [lite.tokenizer.pieces[i] for i in ids]
    for i, piece in enumerate(pieces):
        word = piece.replace("\u2581", "").lower()
        ends = word == "but" or any(c in word for c in SCOPE_ENDS)
        row = lite.row_of[ids[i]]
        if ends:
            scope = False
        if row >= 0:
            fix = corrections.get(str(lite.token_ids[row]), [0.0] * 4)[2 if latin else 0 :]
            vector = np.zeros(384)
            vector[: lite.dim] = lite.table[row]
            value = vector @ negated + fix[1] if scope else vector @ coef + fix[0]
            num += lite.weight[row] * value
            den += lite.weight[row]
        if word in NEGATIONS or (word == "t" and i and pieces[i - 1] in ("'", "\u2019")):
            scope = True
    out = (num / den if den else 0.0) + part["intercept"]
    if latin:
        lex = part
        z = (lexicon_scores(lex["engines"], [text])[0] - np.array(lex["mean"])) / np.array(lex["std"]) * lex["weight"]
        out += float(z @ np.array(lex["lexicon_coef"]))
    return out * part["gain"]


def test_lite_raw_is_the_head_files_formula_token_by_token() -> None:
    texts = ["I don't like it, but the music isn't bad.", "Not good at all. Never again!", "Fine. Whatever.",
             "服务很好，谢谢！", "Great!!! :)", "no sentiment words here", ""]  # fmt: skip
    head = load_lite_head(HEAD_PATH)
    assert head.head.hangul is not None and isinstance(load_head(HEAD_PATH), E5Head)
    assert lite_raw(head, texts) == pytest.approx([_by_hand(t) for t in texts], abs=1e-9)


def test_negation_scope_marks_the_tokens_after_a_negation_up_to_punctuation_or_but() -> None:
    lite = model()
    size = len(lite.token_ids)
    text = "I don't like it, but it isn't bad. Not good"
    flat, _ = marked_rows(lite.batch_rows([text]))
    pieces = [lite.tokenizer.pieces[lite.token_ids[r % size]] for r in flat]
    negated = [p for p, r in zip(pieces, flat, strict=True) if r >= size]
    assert negated == ["\u2581like", "\u2581it", "\u2581bad", "\u2581good"]
    # a scope never runs from one text into the next of a batch
    together, owner = marked_rows(lite.batch_rows(["It is not", "good", text]))
    assert together[owner == 1].tolist() == marked_rows(lite.batch_rows(["good"]))[0].tolist()
    assert together[owner == 2].tolist() == flat.tolist()


def test_a_negation_turns_the_polarity() -> None:
    good, not_good, bad, not_bad = get_engine("e5-lite").polarities(
        ["The food was good.", "The food was not good.", "The food was bad.", "The food was not bad."]
    )
    assert good > not_good and not_bad > bad


def test_the_tokens_file_must_be_the_one_the_head_names(tmp_path: Path) -> None:
    for name in (HEAD_PATH.name, "e5_lite_tokens.json", "e5_lite_hangul_ngrams.json"):
        (tmp_path / name).write_bytes((HEAD_PATH.parent / name).read_bytes())
    assert load_lite_head(tmp_path / HEAD_PATH.name).plain.shape == (2 * len(model().token_ids),)
    tokens = tmp_path / "e5_lite_tokens.json"
    tokens.write_text(tokens.read_text(encoding="utf-8").replace('"plain"', '"Plain"'), encoding="utf-8")
    with pytest.raises(InputError, match="SHA-256"):
        load_lite_head(tmp_path / HEAD_PATH.name)


def test_same_bits_alone_in_any_batch_and_in_run_and_score_many() -> None:
    engine = E5LiteEngine()  # a fresh engine: nothing cached
    together = engine.polarities(REPLIES)
    for i, text in enumerate(REPLIES):
        fresh = E5LiteEngine()
        assert fresh.polarity(text) == together[i]
        assert fresh.polarities([REPLIES[-1 - i], text])[1] == together[i]
    scorer = create_tone_scorer(engine="e5-lite")
    many = scorer.score_many(outputs=REPLIES)
    assert many["score"] == [scorer.run(output=t).score for t in REPLIES]


def _file(tmp_path: Path) -> Path:
    rows = 40
    df = pd.DataFrame(
        {"input": [f"Question {i}?" for i in range(rows)], "output": [REPLIES[i % 5] + f" #{i}" for i in range(rows)]}
    )
    path = tmp_path / "replies.csv"
    df.to_csv(path, index=False)
    return path


def test_cli_and_dask_give_the_same_bytes_as_run(tmp_path: Path) -> None:
    path = _file(tmp_path)
    out = tmp_path / "cli.csv"
    assert main(["evaluate", str(path), "--scorers", "tone", "--engine", "e5-lite", "--chunksize", "7",
                 "--out", str(out)], out=io.StringIO(), err=io.StringIO()) == 0  # fmt: skip
    cli = pd.read_csv(out)
    scorer = create_tone_scorer(engine="e5-lite")
    source = pd.read_csv(path)
    assert cli["tone-scorer"].tolist() == [scorer.run(output=t).score for t in source["output"]]
    spec = make_spec(["input", "output"], scorers=["tone"], engine="e5-lite")
    local = pd.concat(c.table for c in iter_scored(iter_table_chunks(path, chunksize=9), spec))
    with dask_client(None, workers=2) as client:
        remote = pd.concat(c.table for c in iter_scored_dask(iter_table_chunks(path, chunksize=9), spec, client))
    pd.testing.assert_frame_equal(local, remote)


def test_explanations_name_the_sentiment_words() -> None:
    drivers = dict(get_engine("e5-lite").explain("The staff were wonderful and the room was filthy."))  # type: ignore[attr-defined]
    assert drivers["wonderful"] > 0 > drivers["filthy"]
    frame = word_drivers(["Thanks, that was wonderful."], "e5-lite")
    assert "wonderful" in frame["word"].tolist()


def test_similarity_algorithm_e5_lite() -> None:
    scorer = create_content_similarity_scorer(algorithm="e5-lite")
    same = scorer.run(input="Your refund has been processed.", output="Your refund has been processed.").score
    para = scorer.run(input="The refund was sent to your card.", output="We sent the money back to your card.").score
    other = scorer.run(input="The refund was sent to your card.", output="Penguins live in the Antarctic.").score
    assert same == 1.0 and para > other
    many = scorer.score_many(inputs=["a cat", "the refund"], outputs=["a dog", "the refund was sent"])
    assert many["score"] == [
        scorer.run(input=a, output=b).score for a, b in (("a cat", "a dog"), ("the refund", "the refund was sent"))
    ]
