"""The HTML report: one file, charts inside, user text escaped, partial runs flagged."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from scoring.batch.compare import compare_groups, group_summary
from scoring.batch.report import batch_report, render_report, run_meta
from scoring.batch.runner import evaluate
from scoring.charts import group_means_figure, score_histogram_figure
from scoring.text.embeddings import encoder_available

EVIL = '<script>alert("x")</script>'


@pytest.fixture
def table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "input": [f"q{i}" for i in range(12)] * 2,
            "model": ["v1"] * 12 + [EVIL] * 12,
            "output": [EVIL, "<img src=x onerror=alert(1)>"] + ["fine"] * 22,
            "tone-scorer": np.concatenate([rng.uniform(0.2, 0.6, 12), rng.uniform(0.5, 0.9, 12)]),
        }
    )


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _report(table: pd.DataFrame, **kwargs: object) -> str:
    figures = [score_histogram_figure(table, column="tone-scorer", group="model"),
               group_means_figure(group_summary(table, ["tone-scorer"], "model"))]  # fmt: skip
    comparison = compare_groups(table, score="tone-scorer", group="model", pair_on="input")
    return render_report(title=f"run of {EVIL}", table=table, scores=["tone-scorer"], figures=figures,
                         comparisons=[comparison], meta={"file": EVIL}, **kwargs)  # type: ignore[arg-type]  # fmt: skip


def test_report_escapes_user_text_everywhere(table: pd.DataFrame) -> None:
    page = _report(table, problems=[f"row 3 ({EVIL}) was skipped"])
    assert EVIL not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    parser = _Collector()
    parser.feed(page)
    assert not [t for t, attrs in parser.tags if t == "img"]
    assert not [a for _, attrs in parser.tags for a in attrs if a.startswith("on")]
    # the only scripts are Plotly's config line, plotly.js (inline, once) and the two figures' newPlot calls
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, flags=re.S)
    assert len(scripts) == 4 and sum("Plotly.newPlot" in s for s in scripts) == 2
    figure_scripts = [s for s in scripts if "plotly.js v" not in s]
    assert not any('alert("x")' in s or "<script" in s or "alert(1)" in s for s in figure_scripts)


def test_report_is_a_single_self_contained_file(table: pd.DataFrame) -> None:
    page = _report(table)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert page.count("plotly.js v") == 1  # the library is inlined exactly once
    assert not re.search(r"""<(script|link|img|iframe)[^>]+(src|href)=["']?https?:""", page)
    assert page.count('class="plotly-graph-div"') == 2


def test_report_shows_cards_comparison_and_worst_rows(table: pd.DataFrame) -> None:
    page = _report(table, worst=5)
    mean = table["tone-scorer"].mean()
    assert f"{mean:.3f}" in page and "mean of 24 of 24 rows" in page
    assert "more on-tone than v1" in page
    assert "The 5 worst rows" in page
    assert f"{table['tone-scorer'].min():.3f}" in page
    assert "All 24 rows were scored." in page
    assert "Higher is better for tone-scorer." in page


def _rows_shown(page: str) -> list[str]:
    body = page.split("worst rows</h2>", 1)[1].split("</table>", 1)[0]
    return re.findall(r"<tr><td>(.*?)</td>", body)


def test_report_worst_rows_are_the_most_toxic_for_a_lower_is_better_score() -> None:
    table = pd.DataFrame({"output": ["kind", "rude", "mixed", "unscored"], "toxicity-scorer": [0.0, 1.0, 0.5, None]})
    page = render_report(title="t", table=table, scores=["toxicity-scorer"], worst=3)
    assert _rows_shown(page) == ["rude", "mixed", "kind"]
    assert "Lower is better for toxicity-scorer." in page


def test_report_worst_rows_break_ties_on_the_next_score_its_own_way() -> None:
    table = pd.DataFrame({"output": ["a", "b", "c"], "tone-scorer": [0.2, 0.2, 0.9],
                          "toxicity-scorer": [0.0, 0.5, 1.0]})  # fmt: skip
    page = render_report(title="t", table=table, scores=["tone-scorer", "toxicity-scorer"])
    assert _rows_shown(page) == ["b", "a", "c"]


def test_batch_report_lists_the_run_settings_from_the_result() -> None:
    df = pd.DataFrame({"input": ["Hi", "Hey"], "output": ["Great, thanks!", "Awful. Sorry."], "ref": ["Glad!", "Ok"]})
    result = evaluate(df, scorers=["tone", "toxicity"], reference="ref", engine="afinn")
    when = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    toxicity = "e5" if encoder_available() else "classifier"  # files get the single-text default
    assert run_meta(result, file="r.csv", generated=when) == {
        "file": "r.csv", "rows": "2", "scorers": "tone-scorer, toxicity-scorer", "tone engine": "afinn",
        "toxicity engine": toxicity, "columns": "output='output', input='input', reference='ref'",
        "compares": "tone-scorer: output vs 'ref'; toxicity-scorer: output (with 'input' as the question)",
        "generated": "2026-01-02 03:04 UTC",
    }  # fmt: skip
    page = batch_report(result, file="r.csv", generated=when)
    assert "<b>tone engine</b>: afinn" in page and "Batch evaluation: r.csv" in page
    head = page.split("worst rows</h2>", 1)[1].split("</tr>", 1)[0]
    assert re.findall(r"<th>(.*?)</th>", head) == ["input", "output", "ref", "tone-scorer", "toxicity-scorer"]


def test_report_flags_partial_runs(table: pd.DataFrame) -> None:
    table.loc[[0, 5], "tone-scorer"] = np.nan
    page = render_report(title="t", table=table, scores=["tone-scorer"], problems=["2 rows skipped: 1, 6"])
    assert "2 rows skipped: 1, 6" in page and "All 24 rows were scored" not in page
    assert "mean of 22 of 24 rows" in page
    assert "plotly.js v" not in page  # no charts, no library


def test_report_rejects_unknown_score_columns(table: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"scores \['nope'\] are not columns"):
        render_report(title="t", table=table, scores=["nope"])


def test_report_of_the_curt_agent_ab_says_colder_in_words() -> None:
    from scoring.batch.views import with_measures
    from scoring.courtesy import CURT_AGENT_EXAMPLE as agents
    from scoring.io.columns import ColumnMap

    df = pd.concat([pd.read_csv(agents / f"{v}.csv").assign(agent=v) for v in ("v1", "v2")], ignore_index=True)
    result = evaluate(df, scorers=["tone"], columns=ColumnMap("reply", "question", None))
    table, compared = with_measures(result.table.assign(agent=df["agent"].to_numpy()))
    assert compared == ["tone-scorer", "warmth"]
    found = [compare_groups(table, score=s, group="agent", a="v1", b="v2", pair_on="question") for s in compared]
    page = batch_report(result, file="agents.csv", comparisons=found)
    assert "v2 is colder than v1: v2 minus v1 over 20 pairs = 0.008 - 0.272 = -0.264 (95% CI" in page
