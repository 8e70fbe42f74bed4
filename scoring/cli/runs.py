"""Run history on the command line: ``evaluate --save / --baseline / --no-cache`` and ``runs list|show|compare|delete``.

The store is ``TONE_EXPLORER_DB`` (any SQLAlchemy URL), else a SQLite file in the user-data folder
(``runs list`` prints where). A RUN is a run id, a run name (the newest run with it) or ``latest``.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from scoring.batch.compare import MIN_ROWS
from scoring.batch.rows import BatchSpec, ChunkResult, uses_judge
from scoring.cli.labels import add_label_options, add_label_verbs, run_label_verb, save_file_labels
from scoring.errors import InputError
from scoring.registry import MEASURES, SCORER_INFO, find_scorer, gated_name
from scoring.text.display import one_line

if TYPE_CHECKING:  # the store's modules (SQLAlchemy, SciPy) load only when a command uses them
    import pandas as pd

    from scoring.runs import JudgeCache, RunInfo, RunStore

__all__ = ["History", "add_history_options", "add_runs_parser", "run_command"]

SHORT = {info.id: info.short_name for info in SCORER_INFO}  # "tone-scorer" -> "tone"
RUNS_EPILOG = """\
RUN is a run id, a run name (the newest run with that name) or 'latest'.
The store is TONE_EXPLORER_DB (a SQLAlchemy URL, e.g. postgresql://user@host/db), else a SQLite file in the
user-data folder; `runs list` prints which.

examples:
  python -m scoring evaluate replies.csv --save --name nightly
  python -m scoring runs list --name nightly
  python -m scoring runs compare nightly latest
  python -m scoring runs rename 3 nightly-old
  python -m scoring evaluate candidate.csv --baseline nightly --fail-on-regression
  python -m scoring runs label nightly --file labels.csv --rater ana    # a 'row' and a 'label' column
  python -m scoring runs agreement nightly                             # scores against people's labels
  python -m scoring runs export nightly --out nightly.xlsx             # rows, scores and labels

A verdict is B minus A (the candidate minus the baseline) over the pairs both runs scored, with the 95%
interval of the same paired permutation test as its p-value (docs/runs.md says how a verdict is reached).
A row "changed" when its score did.

exit codes: 0 done; 2 unknown run, bad options or an unusable store."""


def add_history_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--save``, ``--name``, ``--baseline``, ``--fail-on-regression`` and ``--no-cache`` to ``evaluate``."""
    group = parser.add_argument_group("run history (the store: TONE_EXPLORER_DB, else SQLite in the user-data folder)")
    group.add_argument("--save", action="store_true", help="keep this run in the run store (rows, scores, summary)")
    group.add_argument("--name", metavar="NAME", help="the saved run's name (default: the file's name without suffix)")
    group.add_argument("--baseline", metavar="RUN", help="compare each scorer with a saved run (id, name or latest) "
                       "using the A/B statistics, paired on inputs when both runs answered the same ones")  # fmt: skip
    group.add_argument("--fail-on-regression", action="store_true",
                       help="with --baseline: exit 1 if a gated measure is significantly worse (p < 0.05), or if "
                       "the comparison cannot show that none is (a gated scorer missing or scoring nothing on one "
                       f"side, fewer than {MIN_ROWS} pairs or rows)")  # fmt: skip
    measures = ", ".join([*(i.short_name for i in SCORER_INFO), *(m.name for m in MEASURES)])
    group.add_argument("--gate", metavar="MEASURES", type=_gate_names,
                       help=f"with --fail-on-regression: comma-separated measures that can fail the gate ({measures}; "
                       "warmth is the reply's own sentiment, with or without a reference); default: every measure "
                       "scored")  # fmt: skip
    group.add_argument("--save-empty", action="store_true", help="with --save: save the run even if a scorer scored "
                       "none of its rows (refused otherwise: such a run is no baseline)")  # fmt: skip
    group.add_argument("--no-cache", action="store_true", help="ask the LLM judge for every row, even rows whose "
                       "verdicts are in the judge cache (kept in the run store)")  # fmt: skip
    add_label_options(parser)


def _gate_names(text: str) -> tuple[str, ...]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected comma-separated measures like courtesy,warmth; got nothing")
    try:
        return tuple(dict.fromkeys(gated_name(n) for n in names))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@dataclass
class History:
    """What ``evaluate`` does with the run store: checked before scoring, done after it."""

    args: argparse.Namespace
    store: RunStore | None = None
    baseline: RunInfo | None = None
    name: str | None = None
    judge_cache: JudgeCache | None = None
    kept: list[ChunkResult] | None = None
    columns: list[str] = field(default_factory=list)
    scorer_ids: set[str] = field(default_factory=set)
    label_measure: str | None = None

    @classmethod
    def start(cls, args: argparse.Namespace, spec: BatchSpec, columns: list[str] | None = None) -> History:
        """Check the options, open the store if needed and find the baseline (before any scoring)."""
        from scoring.runs import JudgeCache, RunStore, RunStoreError
        from scoring.runs.record import check_name

        if args.name is not None and not args.save:
            raise InputError("--name names a saved run: add --save.")
        if args.save_empty and not args.save:
            raise InputError("--save-empty is about saving a run: add --save.")
        if args.fail_on_regression and args.baseline is None:
            raise InputError("--fail-on-regression needs --baseline RUN (the run to compare with).")
        if getattr(args, "gate", None) is not None and not args.fail_on_regression:
            raise InputError("--gate chooses what can fail --fail-on-regression: add --fail-on-regression.")
        if getattr(args, "gate", None) is not None:
            scored = {*spec.scorers, *(m.name for m in MEASURES if m.scorer in spec.scorers)}
            if unscored := [n for n in args.gate if n not in scored]:
                raise InputError(f"--gate names {unscored}, which this run does not score ({sorted(scored)}).")
        history = cls(args, scorer_ids=set(spec.scorers))
        history.label_measure = _label_measure(args, spec, columns)
        if args.save:
            stem = Path(args.file).stem
            try:
                history.name = check_name(args.name if args.name is not None else stem)
            except ValueError as exc:
                raise InputError(
                    f"--name: {exc}" if args.name is not None else f"{exc} Give one with --name."
                ) from None
        needs_cache = uses_judge(spec) and not args.no_cache
        if args.save or args.baseline is not None or needs_cache:
            history.store = RunStore()
        if args.save and history.store is not None:
            history.store.list_runs(limit=1)  # an unusable store is found before the scoring, not after it
        if args.baseline is not None:
            assert history.store is not None
            history.baseline = history.store.resolve(args.baseline)
        if needs_cache:
            assert history.store is not None
            try:
                history.store.list_runs(limit=1)  # opens (or creates) the store now, not inside the judge's rows
            except RunStoreError as exc:
                raise RunStoreError(f"{exc} (the judge cache is kept there; --no-cache runs without it)") from None
            history.judge_cache = JudgeCache(history.store)
        if args.save or args.baseline is not None:
            history.kept = []
            reference = [spec.reference] if spec.reference else []
            history.columns = [c for c in (spec.output, spec.input, *reference) if c]
            history.columns += [args.label_column] if args.label_column is not None else []
        return history

    def keep(self, chunk: ChunkResult) -> None:
        """Keep a scored chunk's texts and results (only when the run is saved or compared)."""
        if self.kept is None:
            return
        ids = {info.id for info in SCORER_INFO} | self.scorer_ids
        mask = [str(c) in self.columns or str(c).split(".", 1)[0] in ids for c in chunk.table.columns]
        self.kept.append(ChunkResult(chunk.table.loc[:, mask], chunk.skipped, chunk.errors))

    def finish(self, spec: BatchSpec, thresholds: dict[str, float], out: TextIO, err: TextIO) -> int:
        """Report the judge cache, compare with the baseline, save the run; return 1 if the gate failed."""
        from scoring.batch.result import combine
        from scoring.runs import file_sha256, rows_frame, scored_nothing

        if self.judge_cache is not None:
            cache = self.judge_cache
            out.write(f"judge cache: {cache.hits:,} row(s) answered from the cache, {cache.misses:,} asked the judge "
                      f"({self.store.location if self.store else ''})\n")  # fmt: skip
        if self.kept is None:
            return 0
        assert self.store is not None
        result = combine(self.kept, spec, thresholds)
        code = 0
        if self.baseline is not None:
            code = self._gate(rows_frame(result), out)
        if self.args.save:
            assert self.name is not None
            if (empty := scored_nothing(result)) and not self.args.save_empty:
                err.write(f"error: not saved: {'; '.join(empty)}. A run that scored nothing is no baseline; "
                          "--save-empty saves it anyway.\n")  # fmt: skip
                return max(code, 4)
            info = self.store.save(result, name=self.name, source_name=Path(self.args.file).name,
                                   source_sha256=file_sha256(self.args.file), allow_empty=True)  # fmt: skip
            state = "complete" if info.complete else f"partial: {info.skipped_rows} skipped, {info.failed_rows} failed"
            out.write(
                f"saved {one_line(info.label)}: {info.row_count:,} rows ({state}) in {one_line(self.store.location)}\n"
            )
            if self.label_measure is not None:
                column = result.table[self._label_column(result.table)].tolist()
                out.write(save_file_labels(self.store, info, column, self.label_measure, self.args.rater, err) + "\n")
        return code

    def _label_column(self, table: pd.DataFrame) -> object:
        return next(c for c in table.columns if str(c) == self.args.label_column)

    def _gate(self, rows: pd.DataFrame, out: TextIO) -> int:
        from scoring.runs import compare_runs

        assert self.store is not None and self.baseline is not None
        baseline_rows = self.store.rows(self.baseline.id)
        comparison = compare_runs(baseline_rows, rows, labels=(self.baseline.label, "this run"))
        base = self.baseline
        out.write(f"against {base.label} from {base.created_at:%Y-%m-%d %H:%M} UTC ({base.row_count:,} rows, "
                  f"{one_line(base.source_name)}): {_pairing(comparison)}\n")  # fmt: skip
        for verdict in comparison.verdicts:
            out.write(f"  {verdict.line()}\n")
        for scorer in comparison.missing:
            out.write(f"  not compared: {scorer} is not in both runs.\n")
        gate = getattr(self.args, "gate", None)
        gated = [v for v in comparison.verdicts if gate is None or v.scorer in gate]
        regressions = [v for v in gated if v.regressed]
        unsure = comparison.cannot_tell(only=gate)
        if not self.args.fail_on_regression:
            for reason in unsure:
                out.write(f"  note: {reason}.\n")
            return 0
        for verdict in regressions:  # one line per regressed measure: the paired means the verdict is made of
            c = verdict.comparison
            used = f"over {c.n_pairs:,} pairs" if c.paired else "unpaired"
            out.write(f"FAIL: {verdict.scorer} significantly worse than {self.baseline.label}: {c.means[0]:.4f} -> "
                      f"{c.means[1]:.4f} {used}, p={c.p_value:.3g}\n")  # fmt: skip
        if unsure:
            out.write(f"FAIL: cannot show that no scorer is worse than {self.baseline.label}: {'; '.join(unsure)}\n")
        if regressions or unsure:
            return 1
        what = ", ".join(v.scorer for v in gated) or "nothing"
        out.write(f"ok: no gated measure is significantly worse than {self.baseline.label} (gated: {what})\n")
        return 0


def _label_measure(args: argparse.Namespace, spec: BatchSpec, columns: list[str] | None) -> str | None:
    """The measure the file's label column judges (checked before scoring), or None without --label-column."""
    from scoring.runs.labels import measure_of

    if args.label_column is None:
        if args.label_for is not None or args.rater is not None:
            raise InputError("--label-for and --rater describe the labels of --label-column COL: add it.")
        return None
    if not args.save:
        raise InputError("--label-column keeps the labels with the saved run: add --save.")
    if columns is not None and args.label_column not in columns:
        raise InputError(f"--label-column {args.label_column!r} is not a column of {args.file}; found {columns}.")
    used = {spec.output: "output", spec.input: "input", spec.reference: "reference"}
    if args.label_column in used:
        raise InputError(f"--label-column {args.label_column!r} is the {used[args.label_column]} column: name the "
                         "column holding the labels.")  # fmt: skip
    if args.label_for is not None:
        return measure_of(args.label_for)
    from scoring.runs.teach import taught_measure

    return measure_of(taught_measure(spec.scorers[0]) or spec.scorers[0])


def _pairing(comparison: object) -> str:
    verdicts = getattr(comparison, "verdicts", ())
    if not verdicts:
        return "no scorer in common."
    paired = [v for v in verdicts if v.comparison.paired]
    if not paired:
        return "unpaired (the runs did not answer the same inputs)."
    shared = max(v.comparison.n_pairs for v in paired)  # a scorer's own pairs may be fewer (not measured rows)
    alone = [v.scorer for v in verdicts if not v.comparison.paired]  # too few of its own rows pair up
    return f"paired on {shared:,} shared inputs" + (f"; {', '.join(alone)} unpaired (see its line)." if alone else ".")


# -- python -m scoring runs ... -------------------------------------------------------------------------


def add_runs_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``runs list|show|compare|rename|delete`` and the label verbs to the CLI."""
    runs = sub.add_parser("runs", help="saved runs: list, show, compare, rename, delete, label, agreement, export",
                          epilog=RUNS_EPILOG,
                          formatter_class=argparse.RawDescriptionHelpFormatter,
                          description="Saved runs (python -m scoring evaluate FILE --save).")  # fmt: skip
    verbs = runs.add_subparsers(dest="verb", required=True)
    listing = verbs.add_parser("list", help="the saved runs, newest first, with each scorer's mean")
    listing.add_argument("--name", metavar="TEXT", help="only runs whose name contains TEXT")
    listing.add_argument("--source", metavar="TEXT", help="only runs whose file name contains TEXT")
    show = verbs.add_parser("show", help="one run: facts, options, summary, rows not scored")
    show.add_argument("run", metavar="RUN")
    compare = verbs.add_parser("compare", help="RUN_B against RUN_A: per scorer and the rows that changed most")
    compare.add_argument("run_a", metavar="RUN_A", help="the baseline")
    compare.add_argument("run_b", metavar="RUN_B", help="the candidate")
    compare.add_argument("--top", type=int, default=5, metavar="N", help="rows shown per scorer (default 5)")
    delete = verbs.add_parser("delete", help="delete a run (its rows, summary and labels too)")
    delete.add_argument("run", metavar="RUN")
    rename = verbs.add_parser("rename", help="give a run another name")
    rename.add_argument("run", metavar="RUN")
    rename.add_argument("name", metavar="NAME", help="the new name (not a number, not 'latest')")
    add_label_verbs(verbs)


def run_command(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``python -m scoring runs VERB ...``; return the exit code (errors raise, the caller prints them)."""
    from scoring.runs import RunStore

    store = RunStore()
    try:
        if args.verb == "list":
            _list(store, args.name, args.source, out)
        elif args.verb == "show":
            _show(store, args.run, out)
        elif args.verb == "compare":
            if args.top < 0:
                raise InputError(f"--top must be 0 or more; got {args.top}.")
            _compare(store, args.run_a, args.run_b, args.top, out)
        elif args.verb == "rename":
            old = store.resolve(args.run)
            info = store.rename(old.id, args.name)
            out.write(f"renamed {old.label} to {info.label}\n")
        elif args.verb in ("label", "agreement", "export"):
            run_label_verb(store, args, out)
        else:
            info = store.delete(args.run)
            out.write(f"deleted {one_line(info.label)}: {info.row_count:,} rows from {one_line(info.source_name)}\n")
    finally:
        store.close()
    return 0


def _better(scorer: str, stored_lower: bool) -> str:
    """Which end of ``scorer`` is better: the registry's word; the run's own record for a scorer it no longer has."""
    info = find_scorer(scorer)
    return info.better if info is not None else ("lower" if stored_lower else "higher")


def _num(value: object, width: int = 8) -> str:
    number = float(value) if isinstance(value, (int, float)) and value is not None else math.nan
    return f"{'-':>{width}}" if math.isnan(number) else f"{number:>{width}.4f}"


def _list(store: RunStore, name: str | None, source: str | None, out: TextIO) -> None:
    out.write(f"run store: {one_line(store.location)}\n")
    table = store.table(name=name, source=source)
    if table.empty:
        out.write("no runs" + (" match" if name or source else " yet: save one with evaluate FILE --save") + ".\n")
        return
    means = [c for c in table.columns if str(c).endswith(" mean")]
    heads = [SHORT.get(str(c)[: -len(" mean")], str(c)[: -len(" mean")]) for c in means]
    width = max(4, *(len(str(n)) for n in table["name"]))
    out.write(f"{'id':>5}  {'name':<{width}}  {'created (UTC)':<16}  {'source':<24}{'rows':>8}  {'complete':<9}"
              + "".join(f"{h:>12}" for h in heads) + "\n")  # fmt: skip
    for r in table.to_dict("records"):
        source_name = one_line(r["source"])
        source_name = source_name if len(source_name) <= 24 else source_name[:21] + "..."
        done = "yes" if r["complete"] else f"no ({r['skipped'] + r['failed']})"
        out.write(f"{r['id']:>5}  {r['name']:<{width}}  {r['created']:%Y-%m-%d %H:%M}  {source_name:<24}"
                  f"{r['rows']:>8,}  {done:<9}" + "".join(_num(r[c], 12) for c in means) + "\n")  # fmt: skip


def _show(store: RunStore, ref: str, out: TextIO) -> None:
    run = store.get(ref)
    info = run.info
    state = "complete" if info.complete else f"partial: {info.skipped_rows} row(s) skipped, {info.failed_rows} failed"
    options = ", ".join(f"{k}={v}" for k, v in info.options.items() if v is not None)
    out.write(f"{one_line(info.label)}\n  created     {info.created_at:%Y-%m-%d %H:%M:%S} UTC\n"
              f"  source      {one_line(info.source_name)} (sha256 {info.source_sha256})\n"
              f"  rows        {info.row_count:,} ({state})\n  scorers     {', '.join(info.scorers)}\n"
              f"  options     {options}\n"
              f"  judge cache {info.cache_hits:,} row(s) answered from the cache\n")  # fmt: skip
    out.write(f"{'scorer':<27}{'mean':>8}{'95% CI':>20}{'median':>8}{'min':>8}{'max':>8}{'scored':>8}{'skipped':>9}"
              f"{'errors':>8}{'warned':>8}  better\n")  # fmt: skip
    for scorer, r in run.summary.iterrows():
        ci = f"{_num(r['ci_low'], 0).strip()} to {_num(r['ci_high'], 0).strip()}"
        out.write(f"{scorer!s:<27}{_num(r['mean'])}{ci:>20}{_num(r['median'])}{_num(r['min'])}{_num(r['max'])}"
                  f"{int(r['count']):>8,}{int(r['skipped']):>9,}{int(r['errors']):>8,}{int(r['warned']):>8,}  "
                  f"{_better(str(scorer), bool(r['lower_is_better']))}\n")  # fmt: skip
    from scoring.runs.labels import labels_frame

    labels = labels_frame(store, info.id)
    for (measure, rater), group in labels.groupby(["measure", "rater"]):
        out.write(f"labels      {measure}: {len(group):,} by {rater or '(unnamed)'}\n")
    if not run.problems.empty:
        out.write(f"not scored ({len(run.problems):,}; first 20):\n")
        for p in run.problems.head(20).to_dict("records"):
            out.write(f"  row {p['row']}: {p['scorer']}: {p['kind']}: {one_line(p['message'])}\n")


def _short(text: object, width: int = 60) -> str:
    value = "" if text is None or (isinstance(text, float) and math.isnan(text)) else " ".join(str(text).split())
    return value if len(value) <= width else value[: width - 1] + "…"


def _compare(store: RunStore, ref_a: str, ref_b: str, top: int, out: TextIO) -> None:
    from scoring.runs import compare_runs, item_deltas

    a, b = store.resolve(ref_a), store.resolve(ref_b)
    if a.id == b.id:
        raise InputError(f"RUN_A and RUN_B are the same run ({a.label}); name two different runs.")
    rows_a, rows_b = store.rows(a.id), store.rows(b.id)
    from scoring.runs.teach import load_taught_columns

    load_taught_columns(store, [*rows_a.columns, *rows_b.columns])  # taught scorers in both runs are compared too
    comparison = compare_runs(rows_a, rows_b, labels=(a.label, b.label))
    out.write(f"{b.label} against {a.label}: {_pairing(comparison)}\n")
    for verdict in comparison.verdicts:
        out.write(f"  {verdict.line()}\n")
    for scorer in comparison.missing:
        out.write(f"  not compared: {scorer} is not in both runs.\n")
    for verdict in comparison.verdicts:
        deltas = item_deltas(rows_a, rows_b, verdict.scorer)
        changed = deltas[deltas["changed"]]
        worse = changed[changed["regression"] > 0]
        out.write(f"{verdict.scorer}: {len(changed):,} of {len(deltas):,} rows changed, {len(worse):,} worse "
                  f"(matched on {deltas.attrs['matched_on']}); worst first:\n")  # fmt: skip
        for r in changed.head(top).to_dict("records"):
            where = f"row {_row(r['row_a'])} -> {_row(r['row_b'])}"
            out.write(f"  {where:<20}{_num(r['score_a'])} ->{_num(r['score_b'])}  ({_delta(r['delta'])})  "
                      f"{_short(r['output_b'])}\n")  # fmt: skip


def _row(value: object) -> str:
    return "-" if value is None or str(value) == "<NA>" else str(value)


def _delta(value: object) -> str:
    number = float(value) if isinstance(value, (int, float)) else math.nan
    return "n/a" if math.isnan(number) else f"{number:+.4f}"
