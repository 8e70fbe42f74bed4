"""How well do the engines agree with people? Correlations with the VADER ground-truth ratings.

Run ``python -m bench.engines_vs_humans [--data DIR]``. Reads every ``*.csv`` (columns ``id``,
``text``, ``human_rating`` from -4 to +4) in the VADER ground-truth folder (default: the shared
data folder beside the repository) and prints, per file and overall, Pearson's r and Spearman's rho
between the human mean rating and VADER's compound score, AFINN's comparative (what
``@mastra/evals`` uses) and, for reference, AFINN's raw sum.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from scipy import stats

from scoring.tone.afinn import analyze
from scoring.tone.engines import get_engine

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "vader-ground-truth"
COLUMNS = {"VADER compound": "vader", "AFINN comparative": "afinn", "AFINN score (sum)": "afinn_sum"}


def load(folder: Path) -> pd.DataFrame:
    """All ground-truth files in ``folder``, with a ``file`` column."""
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise ValueError(f"data folder must hold the VADER ground-truth *.csv files; found none in {folder}.")
    frames = [pd.read_csv(f, dtype={"id": str, "text": str}, keep_default_na=False).assign(file=f.stem) for f in files]
    return pd.concat(frames, ignore_index=True)


def score(df: pd.DataFrame) -> pd.DataFrame:
    """Add one column per engine score."""
    vader, afinn = get_engine("vader"), get_engine("afinn")
    texts = df["text"].tolist()
    return df.assign(
        vader=[vader.polarity(t) for t in texts],
        afinn=[afinn.polarity(t) for t in texts],
        afinn_sum=[float(analyze(t).score) for t in texts],
    )


def correlations(df: pd.DataFrame) -> list[dict[str, object]]:
    """Pearson and Spearman of each engine column with ``human_rating``, per file and overall."""
    rows = []
    groups = [*df.groupby("file", sort=True), ("all files", df)]
    for name, part in groups:
        row: dict[str, object] = {"file": name, "texts": len(part)}
        for label, col in COLUMNS.items():
            row[f"{label} r"] = stats.pearsonr(part["human_rating"], part[col]).statistic
            row[f"{label} rho"] = stats.spearmanr(part["human_rating"], part[col]).statistic
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, object]]) -> str:
    """The correlations as a markdown table (r = Pearson, rho = Spearman)."""
    head = ["file", "texts"] + [f"{label} {k}" for label in COLUMNS for k in ("r", "rho")]
    lines = ["| " + " | ".join(head) + " |", "| --- " * len(head) + "|"]
    for row in rows:
        cells = [str(row["file"]), f"{row['texts']:,}"] + [f"{row[h]:.3f}" for h in head[2:]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with the ground-truth CSV files")
    args = parser.parse_args(argv)
    df = score(load(args.data))
    print(f"Human mean ratings (-4..+4) vs engine scores, {len(df):,} texts from {args.data.name}/.\n")
    print(markdown(correlations(df)))


if __name__ == "__main__":
    main()
