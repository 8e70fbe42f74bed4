"""A self-contained HTML report of a batch run: summary, A/B verdicts, interactive charts, lowest rows.

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

import pandas as pd
import plotly.graph_objects as go

from scoring.batch.compare import Comparison

__all__ = ["render_report"]

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
        parts.append(
            f'<div class="{box}"><strong>{_esc(c.verdict)}</strong>'
            f"<div class='meta'>{_esc(c.test)}; {_esc(c.effect_name)} = {c.effect_size:.3f}; "
            f"{_esc(c.a.name)}: {c.a.mean:.3f} (n={c.a.n}), {_esc(c.b.name)}: {c.b.mean:.3f} (n={c.b.n})</div>"
            + (f"<ul>{notes}</ul>" if notes else "")
            + "</div>"
        )
    return "".join(parts)


def _figures(figures: Sequence[go.Figure]) -> str:
    config = {"displaylogo": False, "responsive": True}
    return "".join(
        fig.to_html(full_html=False, include_plotlyjs=(i == 0), config=config) for i, fig in enumerate(figures)
    )


def _lowest(table: pd.DataFrame, scores: Sequence[str], columns: Sequence[str] | None, limit: int) -> pd.DataFrame:
    keep = [c for c in (columns or table.columns) if c in table.columns]
    ordered = table.sort_values(list(scores), na_position="last", kind="stable") if scores else table
    return ordered.loc[:, keep].head(limit)


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
    lowest: int = 25,
) -> str:
    """Return the report as one HTML document (a string; write it with UTF-8).

    Args:
        title: the heading, e.g. the file name.
        table: the results (input columns + score columns).
        scores: the score columns, summarised as cards and used to sort the lowest rows.
        figures: charts to embed, interactive.
        comparisons: A/B comparisons, shown with their verdicts and warnings.
        problems: what was skipped or failed; shown first, so a partial run never reads as complete.
        meta: settings to list (file, engine, reference tone, ...).
        columns: the columns to show in the lowest-rows table (default: all).
        lowest: how many of the lowest-scoring rows to list.
    """
    missing = [s for s in scores if s not in table.columns]
    if missing:
        raise ValueError(f"scores {missing} are not columns of the table; found {list(table.columns)}.")
    body = _body(
        title, table, scores, figures, comparisons, problems, meta or {}, _lowest(table, scores, columns, lowest)
    )
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
            f"<h2>The {len(rows)} lowest-scoring rows</h2>",
            _table(rows),
            "<footer>Generated by tone-explorer. Higher tone and similarity scores are better; "
            "higher toxicity is worse. Full results are in the CSV/JSONL/Parquet downloads.</footer>",
        ]
    )
