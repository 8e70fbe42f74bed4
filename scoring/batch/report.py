"""A self-contained HTML report of a batch run: summary, A/B verdicts, interactive charts, the worst rows.

One file, no network: plotly.js is inlined once (with the first chart), every other chart reuses it.
Every piece of user text (file names, column names, group names, cells) goes through ``html.escape``;
the figures' JSON is escaped by Plotly (``<`` becomes ``\\u003c``), so no user text becomes markup.

>>> import pandas as pd
>>> page = render_report(title="<run>", table=pd.DataFrame({"output": ["<script>"], "s": [0.5]}), scores=["s"])
>>> "<script>" in page, "&lt;script&gt;" in page
(False, True)
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import pandas as pd
import plotly.graph_objects as go

from scoring.batch.compare import Comparison
from scoring.batch.result import BatchResult
from scoring.batch.rows import factory_options
from scoring.batch.views import score_columns, worst_first
from scoring.errors import InputError
from scoring.registry import find_measure, find_scorer, scorer_info

__all__ = ["batch_report", "render_report", "run_meta"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1100px;color:#1f2933;
padding:0 1rem}h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #e4e7eb;padding-bottom:.3rem}
.meta{color:#52606d}.cards{display:flex;flex-wrap:wrap;gap:1rem}.card{border:1px solid #e4e7eb;border-radius:8px;
padding:.8rem 1.2rem;min-width:180px}.card .v{font-size:1.8rem;font-weight:600}.card .k{color:#52606d;font-size:.9rem}
.warn{background:#fff4e5;border-left:4px solid #e67e22;padding:.6rem 1rem;margin:.6rem 0}
.ok{background:#e8f6ee;border-left:4px solid #1e8449;padding:.6rem 1rem;margin:.6rem 0}
table{border-collapse:collapse;width:100%;font-size:.88rem}th,td{border-bottom:1px solid #e4e7eb;padding:.35rem .5rem;
text-align:left;vertical-align:top}th{background:#f5f7fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
td{white-space:pre-wrap;word-break:break-word}footer{margin-top:3rem;color:#7b8794;font-size:.85rem}
"""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return '<td class="n">—</td>'
    if isinstance(value, bool):
        return f"<td>{_esc(value)}</td>"
    if isinstance(value, (int, float)):
        shown = f"{value:.3f}" if isinstance(value, float) else str(value)
        return f'<td class="n">{_esc(shown)}</td>'
    return f"<td>{_esc(value)}</td>"


def _table(df: pd.DataFrame) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in df.columns)
    rows = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in df.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _cards(table: pd.DataFrame, scores: Sequence[str]) -> str:
    cards = []
    for score in scores:
        values = pd.to_numeric(table[score], errors="coerce").dropna()
        mean = f"{values.mean():.3f}" if len(values) else "—"
        cards.append(
            f'<div class="card"><div class="k">{_esc(score)}</div><div class="v">{mean}</div>'
            f'<div class="k">mean of {len(values)} of {len(table)} rows</div></div>'
        )
    return f'<div class="cards">{"".join(cards)}</div>'


def _comparisons(comparisons: Sequence[Comparison]) -> str:
    parts = []
    for c in comparisons:
        box = "warn" if c.warnings else "ok"
        notes = "".join(f"<li>{_esc(w)}</li>" for w in c.warnings)
        info = find_scorer(c.score) or find_measure(c.score)  # the measure's name for people, then the verdict
        name = info.label if info is not None else c.score
        parts.append(
            f'<div class="{box}"><strong>{_esc(name)} · {_esc(c.verdict)}</strong>'
            f"<div class='meta'>{_esc(c.detail())}</div>" + (f"<ul>{notes}</ul>" if notes else "") + "</div>"
        )
    return "".join(parts)


def _figures(figures: Sequence[go.Figure]) -> str:
    config = {"displaylogo": False, "responsive": True}
    return "".join(
        fig.to_html(full_html=False, include_plotlyjs=(i == 0), config=config) for i, fig in enumerate(figures)
    )


def _worst(table: pd.DataFrame, scores: Sequence[str], columns: Sequence[str] | None, limit: int) -> pd.DataFrame:
    """The ``limit`` worst rows on the first score (ties by the next), each score's bad end first."""
    keep = [c for c in (columns or table.columns) if c in table.columns]
    ordered = worst_first(table, *scores) if scores else table
    return ordered.loc[:, keep].head(limit)


def _better(scores: Sequence[str]) -> str:
    """Which end is good, e.g. "Higher is better for tone-scorer; lower is better for toxicity-scorer. " """
    ends: dict[str, list[str]] = {}
    for info in filter(None, map(find_scorer, scores)):
        ends.setdefault(info.better, []).append(info.id)
    said = "; ".join(f"{end} is better for {', '.join(ids)}" for end, ids in ends.items())
    return said[:1].upper() + said[1:] + ". " if said else ""


def render_report(
    *,
    title: str,
    table: pd.DataFrame,
    scores: Sequence[str],
    figures: Sequence[go.Figure] = (),
    comparisons: Sequence[Comparison] = (),
    problems: Sequence[str] = (),
    meta: Mapping[str, object] | None = None,
    columns: Sequence[str] | None = None,
    worst: int = 25,
    sections: Sequence[tuple[str, str]] = (),
) -> str:
    """Return the report as one HTML document (a string; write it with UTF-8).

    Args:
        title: the heading, e.g. the file name.
        table: the results (input columns + score columns).
        scores: the score columns, summarised as cards and used to sort the worst rows (each score's bad end
            first: lowest, or highest for a lower-is-better score such as toxicity).
        figures: charts to embed, interactive.
        comparisons: A/B comparisons, shown with their verdicts and warnings.
        problems: what was skipped or failed; shown first, so a partial run never reads as complete.
        meta: settings to list (file, engine, reference tone, ...).
        columns: the columns to show in the worst-rows table (default: all).
        worst: how many of the worst rows to list.
        sections: more (heading, HTML fragment) sections after the charts, e.g. agreement with people's labels;
            the heading is escaped here, the fragment must be escaped by its maker.
    """
    missing = [s for s in scores if s not in table.columns]
    if missing:
        raise InputError(f"scores {missing} are not columns of the table; found {list(table.columns)}.")
    body = _body(
        title, table, scores, figures, comparisons, problems, meta or {}, _worst(table, scores, columns, worst)
    )
    if sections:
        extra = "".join(f"<h2>{_esc(heading)}</h2>{fragment}" for heading, fragment in sections)
        at = body.index("<h2>The ")
        body = body[:at] + extra + body[at:]
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{_CSS}</style></head><body>{body}</body></html>"
    )


def _body(
    title: str,
    table: pd.DataFrame,
    scores: Sequence[str],
    figures: Sequence[go.Figure],
    comparisons: Sequence[Comparison],
    problems: Sequence[str],
    meta: Mapping[str, object],
    rows: pd.DataFrame,
) -> str:
    meta_html = "".join(f"<li><b>{_esc(k)}</b>: {_esc(v)}</li>" for k, v in meta.items())
    status = (
        "".join(f'<div class="warn">{_esc(p)}</div>' for p in problems)
        if problems
        else f'<div class="ok">All {len(table)} rows were scored.</div>'
    )
    return "".join(
        [
            f"<h1>{_esc(title)}</h1>",
            f'<ul class="meta">{meta_html}</ul>' if meta_html else "",
            status,
            "<h2>Scores</h2>",
            _cards(table, scores),
            "<h2>A/B comparison</h2>" + _comparisons(comparisons) if comparisons else "",
            "<h2>Charts</h2>" + _figures(figures) if figures else "",
            f"<h2>The {len(rows)} worst rows</h2>",
            _table(rows),
            f"<footer>Generated by tone-explorer. {_esc(_better(scores))}Full results are in the CSV/JSONL/Parquet "
            "downloads.</footer>",
        ]
    )


def run_meta(result: BatchResult, *, file: str, generated: datetime | None = None) -> dict[str, str]:
    """The settings a report lists: file, rows, scorers, each scorer's engine, the columns, what each scorer
    compares, the reference tone, and when (UTC).

    Read from the run's recorded options (``result.spec``), so the report says what was run.
    """
    meta = {"file": file, "rows": f"{len(result.table):,}", "scorers": ", ".join(result.summary.index)}
    spec = result.spec
    if spec is not None:
        for info in map(scorer_info, spec.scorers):
            if info.engines:
                meta[f"{info.short_name} engine"] = str(factory_options(spec, info).get("engine", info.default_engine))
        meta["columns"] = spec.columns.describe()
        meta["compares"] = "; ".join(f"{k}: {v}" for k, v in spec.describe().items())
        if spec.reference_tone:
            meta["reference tone"] = spec.reference_tone
    meta["generated"] = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return meta


def batch_report(
    result: BatchResult,
    *,
    file: str,
    figures: Sequence[go.Figure] = (),
    comparisons: Sequence[Comparison] = (),
    problems: Sequence[str] = (),
    generated: datetime | None = None,
    table: pd.DataFrame | None = None,
) -> str:
    """Return the HTML report of a batch run: :func:`render_report` with the run's settings, texts and scores.

    The rows table shows the input, output and reference columns the run used, then the scores, then the columns
    ``table`` (default: the result's own) adds to the result's (a saved run's labels).
    """
    spec = result.spec
    text = [c for c in (spec.input, spec.output, spec.reference) if c] if spec is not None else []
    table = result.table if table is None else table
    added = [c for c in table.columns if c not in result.table.columns]
    return render_report(
        title=f"Batch evaluation: {file}", table=table, scores=list(result.summary.index), figures=figures,
        comparisons=comparisons, problems=problems, meta=run_meta(result, file=file, generated=generated),
        columns=[*text, *score_columns(result.table), *added],
    )  # fmt: skip
