"""Labels, agreement and taught scorers on the command line.

``runs label RUN --file labels.csv``, ``runs agreement RUN [--json]``, ``runs export RUN --out PATH``,
``teach RUN --name NAME [--measure M]``, ``taught list`` and ``taught delete NAME``; and what ``evaluate``
does with ``--label-column`` and ``--scorers taught:NAME``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from scoring.errors import InputError
from scoring.io.formats import EXPORTS

if TYPE_CHECKING:
    from scoring.runs import RunInfo, RunStore

__all__ = [
    "EXPORT_FORMATS",
    "add_label_options",
    "add_label_verbs",
    "add_teach_parsers",
    "load_taught_scorers",
    "run_label_verb",
    "save_file_labels",
    "teach_command",
]

EXPORT_FORMATS = tuple(suffix for suffix, _ in EXPORTS.values())  # the package's one table of file formats
TEACH_EPILOG = """\
examples:
  python -m scoring evaluate replies.csv --scorers tone --save --name support --label-column ok
  python -m scoring runs agreement support
  python -m scoring teach support --name support-tone
  python -m scoring evaluate new.csv --scorers tone,taught:support-tone --save
  python -m scoring taught list
  python -m scoring taught delete support-tone

A taught scorer is a head on the replies' e5 embeddings and the measure's own score, fitted on the run's
labelled rows with nested cross-validation; it is kept in the run store (never sent anywhere) and needs at
least 30 labelled rows (yes/no: at least 10 of each answer).

exit codes: 0 done; 2 too few labels, unknown run or scorer, bad options or an unusable store."""


def add_label_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--label-column``, ``--label-for`` and ``--rater`` to ``evaluate``."""
    group = parser.add_argument_group("labels (people's judgements, kept with the saved run)")
    group.add_argument("--label-column", metavar="COL", help="a column of labels to keep with the run (needs --save): "
                       "yes/no, 1/0, good/bad, true/false or ratings; blanks are unlabelled, bad cells are listed by "
                       "row")  # fmt: skip
    group.add_argument("--label-for", metavar="MEASURE", help="the scorer the labels judge (default: the first of "
                       "--scorers); yes means what a high score says (toxicity: toxic), good means good")  # fmt: skip
    group.add_argument("--rater", metavar="NAME", help="who gave the labels (optional)")


def add_label_verbs(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``runs label``, ``runs agreement`` and ``runs export``."""
    label = verbs.add_parser("label", help="add labels to a saved run from a file (a 'row' column and a label column)")
    label.add_argument("run", metavar="RUN")
    label.add_argument("--file", required=True, metavar="PATH", help="CSV/TSV, JSON Lines, Parquet or Excel with a "
                       "'row' column (the run's row numbers, as runs export writes them), the label column and, "
                       "optionally, a 'rater' column")  # fmt: skip
    label.add_argument("--column", default="label", metavar="COL", help="the label column (default 'label')")
    label.add_argument("--measure", metavar="MEASURE", help="the scorer the labels judge (default: the run's first)")
    label.add_argument("--rater", metavar="NAME", help="who gave them, for rows without a 'rater' cell")
    agreement = verbs.add_parser("agreement", help="how the run's scores agree with its labels (and raters with "
                                 "each other)")  # fmt: skip
    agreement.add_argument("run", metavar="RUN")
    agreement.add_argument("--measure", metavar="MEASURE", help="only this measure")
    agreement.add_argument("--top", type=int, default=5, metavar="N", help="disagreeing rows shown (default 5)")
    agreement.add_argument("--json", action="store_true", help="print JSON (every number, 20 disagreeing rows)")
    export = verbs.add_parser("export", help="write a run's rows, scores and labels to a file, or its HTML report")
    export.add_argument("run", metavar="RUN")
    export.add_argument("--out", required=True, metavar="PATH", help=f"ending in {', '.join(EXPORT_FORMATS)}, or "
                        ".html for the report (scores, charts, agreement with the labels, worst rows)")  # fmt: skip


def add_teach_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``teach RUN --name NAME`` and ``taught list|delete``."""
    teach = sub.add_parser("teach", help="teach a scorer on a saved run's labels", epilog=TEACH_EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           description="Fit a scorer on a run's labelled rows; keep it in the store.")  # fmt: skip
    teach.add_argument("run", metavar="RUN")
    teach.add_argument("--name", required=True, metavar="NAME", help="its name: score with --scorers taught:NAME")
    teach.add_argument("--measure", metavar="MEASURE", help="the labelled measure (default: the run's only one)")
    taught = sub.add_parser("taught", help="list or delete taught scorers", epilog=TEACH_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    verbs = taught.add_subparsers(dest="verb", required=True)
    verbs.add_parser("list", help="every taught scorer version, with its cross-validated agreement")
    delete = verbs.add_parser("delete", help="delete a taught scorer (every version, or NAME@VERSION)")
    delete.add_argument("name", metavar="NAME")


def _store() -> RunStore:
    from scoring.runs import RunStore

    return RunStore()


def load_taught_scorers(names: Sequence[str], err: TextIO) -> None:
    """Load (register) each ``taught:NAME`` of ``--scorers`` from the store, before the spec is made."""
    from scoring.runs.teach import TAUGHT_PREFIX, get_taught, load_taught, taught_line

    wanted = [n for n in names if n.startswith(TAUGHT_PREFIX)]
    if not wanted:
        return
    store = _store()
    try:
        for name in wanted:
            load_taught(store, name)
            err.write(f"taught scorer: {taught_line(get_taught(store, name))}\n")
    finally:
        store.close()


def save_file_labels(
    store: RunStore, info: RunInfo, values: Sequence[object], measure: str, rater: str | None, err: TextIO
) -> str:
    """Save a scored file's label column (position i is the run's row i + 1); bad cells go to ``err``."""
    from scoring.runs.labels import add_labels, read_labels

    found, bad = read_labels(values, measure=measure)
    for position, why in list(bad.items())[:20]:
        err.write(f"warning: label column: row {position + 1}: {why}; not saved\n")
    if len(bad) > 20:
        err.write(f"warning: label column: {len(bad) - 20:,} more bad cell(s) not saved\n")
    saved = add_labels(store, info.id, measure, {p + 1: v for p, v in found.items()}, rater=rater, source="file")
    return saved.line() + (f" ({len(bad):,} bad cell(s) skipped)" if bad else "")


def run_label_verb(store: RunStore, args: argparse.Namespace, out: TextIO) -> None:
    """``runs label|agreement|export``."""
    if args.verb == "label":
        _label(store, args, out)
    elif args.verb == "agreement":
        _agreement(store, args, out)
    else:
        _export(store, args.run, args.out, out)


def _label(store: RunStore, args: argparse.Namespace, out: TextIO) -> None:
    from scoring.runs.labels import add_labels, labels_from_file

    info = store.resolve(args.run)
    measure, plain, by_rater, problems = labels_from_file(args.file, info, measure=args.measure, column=args.column,
                                                          rater=args.rater)  # fmt: skip
    for problem in problems[:20]:
        out.write(f"warning: {problem}; not saved\n" if "twice" not in problem else f"warning: {problem}\n")
    if len(problems) > 20:
        out.write(f"warning: {len(problems) - 20:,} more problem(s)\n")
    if not plain and not by_rater:
        raise InputError(f"{args.file}: no usable label for {info.label}.")
    if plain:
        out.write(add_labels(store, info.id, measure, plain, rater=args.rater).line() + "\n")
    for rater, values in by_rater.items():
        out.write(add_labels(store, info.id, measure, values, rater=rater).line() + f" by {rater}\n")


def _agreement(store: RunStore, args: argparse.Namespace, out: TextIO) -> None:
    from scoring.runs.agreement import format_agreement
    from scoring.runs.review import run_agreement

    if args.top < 0:
        raise InputError(f"--top must be 0 or more; got {args.top}.")
    info, found = run_agreement(store, args.run, measure=args.measure)
    if args.json:
        json.dump({"run": info.to_dict(), "measures": [m.to_dict() for m in found]},
                  out, ensure_ascii=False, indent=2)  # fmt: skip
        out.write("\n")
        return
    out.write(f"{info.label}: agreement with people's labels\n")
    out.write(format_agreement(found, top=args.top) + "\n")


def _export(store: RunStore, ref: str, path: str, out: TextIO) -> None:
    from scoring.io.atomic import atomic_write
    from scoring.io.export import write_export
    from scoring.runs.review import export_frame, run_report

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (*EXPORT_FORMATS, ".html"):
        raise InputError(f"--out must end in {', '.join(EXPORT_FORMATS)} or .html; got {path!r}.")
    if suffix == ".html":
        page = run_report(store, ref)
        atomic_write(target, page.encode("utf-8"))
        out.write(f"wrote the report of {store.resolve(ref).label} to {target}\n")
        return
    frame = export_frame(store, ref)
    write_export(frame, target)
    labels = [c for c in frame.columns if str(c).startswith("label.")]
    out.write(f"wrote {len(frame):,} rows to {target} (label columns: {', '.join(labels) or 'none'})\n")


def teach_command(args: argparse.Namespace, out: TextIO) -> int:
    """``teach RUN --name NAME`` and ``taught list|delete``."""
    from scoring.runs.teach import delete_taught, format_cv, list_taught, taught_line, teach

    store = _store()
    try:
        if args.command == "teach":
            model = teach(store, args.run, name=args.name, measure=args.measure)
            r = model.report
            out.write(f"taught {model.id} version {model.version} on {model.rows} labelled rows of {model.run_label} "
                      f"({model.kind} labels for {model.measure}); saved in {store.location}\n")  # fmt: skip
            out.write(f"  cross-validated {r['statistic']} ({r['folds']}-fold, settings chosen by an inner "
                      f"{r['innerFolds']}-fold CV):\n")  # fmt: skip
            out.write(f"    {model.id:<28} {format_cv(r['taught'])}\n")  # type: ignore[arg-type]
            out.write(f"    {model.measure:<28} {format_cv(r['base'])}  (the base scorer, same rows)\n")  # type: ignore[arg-type]
            out.write(f"  training rows sha256 {model.training_sha256}\n")
            out.write(f"  score with: python -m scoring evaluate FILE --scorers {model.id}\n")
        elif args.verb == "list":
            models = list_taught(store)
            out.write(f"run store: {store.location}\n")
            if not models:
                out.write("no taught scorers yet: python -m scoring teach RUN --name NAME\n")
            for model in models:
                out.write(taught_line(model) + "\n")
        else:
            gone = delete_taught(store, args.name)
            versions = ", ".join(str(m.version) for m in gone)
            out.write(f"deleted taught:{gone[0].name} version(s) {versions} from {store.location}\n")
    finally:
        store.close()
    return 0
