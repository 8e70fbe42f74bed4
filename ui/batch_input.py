"""The Batch page's pieces: pick a file, map columns, run with progress, cache results. Numbers come from scoring/."""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

import ui
from scoring.batch.compare import stack_files
from scoring.batch.rows import BatchSpec, make_spec, with_toxicity
from scoring.batch.runner import retry_errors, run_spec
from scoring.cli.main import available_cpus
from scoring.errors import InputError, ScoringError
from scoring.io.columns import HOW, ColumnGuess, ColumnMap, guess_columns
from scoring.io.formats import UPLOAD_TYPES
from scoring.io.loaders import read_table, require_rows
from scoring.limits import check_e5_batch, check_row_count, check_upload_size, get_limits
from scoring.registry import COURTESY, SCORER_INFO, TONE, TOXICITY, scorer_info
from scoring.text.e5_estimate import e5_work
from scoring.toxicity.batch import E5Estimate, e5_estimate
from scoring.toxicity.e5_lite import measured_note as e5_lite_measured_note
from scoring.toxicity.judge.access import JudgeAccess
from ui.markdown import escape_markdown

SAMPLE_PATH = Path(__file__).resolve().parents[1] / "scoring" / "data" / "sample_responses.csv"
FILE_TYPES = UPLOAD_TYPES  # what the loader reads (scoring/io/formats.py)
NONE = "(none)"
_RESULTS_KEPT = 8
E5_POOL_ROWS = 500  # an e5 toxicity run of more rows uses both CPUs (docs/toxicity.md, "Speed")


@dataclass(frozen=True, slots=True)
class Loaded:
    """The table to score, where it came from, and the digest that keys every cache."""

    table: pd.DataFrame
    name: str
    digest: str
    group: str | None  # the column naming each row's file in two-file mode
    warnings: tuple[str, ...] = ()  # what the reader did that the user should know (e.g. mixed encodings)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Everything a score depends on, besides the file."""

    scorers: tuple[str, ...]
    columns: ColumnMap  # output None: the user has not chosen yet
    engine: str
    reference_tone: str | None
    toxicity_engine: str = "classifier"
    toxicity_threshold: float | None = 0.5  # None: e5's measured defaults
    judge_model: str = ""
    judge_base_url: str = ""
    courtesy_engine: str = "e5"

    @property
    def reference(self) -> str | None:
        """The reference (expected answer) column: tone and similarity compare the output with it."""
        return self.columns.reference

    @property
    def uses_judge(self) -> bool:
        return TOXICITY.short_name in self.scorers and self.toxicity_engine in TOXICITY.remote_engines

    def toxicity_choice(self) -> dict[str, object] | None:
        """The toxicity options the plan's spec holds: the engine and threshold; None for the judge, whose options
        (model, URL, key) are checked when the run starts and the key is read (the page keeps no key)."""
        if TOXICITY.short_name not in self.scorers or self.uses_judge:
            return None
        if self.toxicity_threshold is None:  # e5's measured defaults: as a single text and the CLI get them
            return {"engine": self.toxicity_engine}
        return {"engine": self.toxicity_engine, "threshold": self.toxicity_threshold}

    def courtesy_choice(self) -> dict[str, object] | None:
        """The courtesy scorer's engine, when courtesy is chosen."""
        return {"engine": self.courtesy_engine} if COURTESY.short_name in self.scorers else None

    def toxicity(self, access: JudgeAccess) -> dict[str, object] | None:
        """The toxicity scorer's options; for the judge, the URL and key ``access`` allows (never kept here)."""
        if not self.uses_judge:
            return self.toxicity_choice()
        if access.problem:
            raise InputError(access.problem)
        return {"engine": "judge", "model": self.judge_model or None, "base_url": access.base_url,
                "api_key": access.api_key}  # fmt: skip


@st.cache_data(max_entries=16, show_spinner="Reading the file…")
def _read(digest: str, name: str, _data: bytes) -> pd.DataFrame:
    """Read a file once per content (``digest``); the bytes themselves are not hashed again."""
    check_upload_size(len(_data), name)
    table = read_table(_data, filename=name)
    check_row_count(len(table), name)
    require_rows(len(table), name)  # else a run "scores all 0 rows" and shows nan cards
    return table


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _upload(label: str, key: str) -> tuple[str, bytes] | None:
    limit = get_limits().max_upload_mb
    upload = st.file_uploader(label, type=FILE_TYPES, key=key, help=f"CSV, JSONL, Parquet or Excel; up to {limit} MB")
    st.caption(f"CSV (any delimiter, UTF-8/UTF-16/Latin-1), JSONL, Parquet or Excel · up to **{limit} MB** per file")
    return (upload.name, upload.getvalue()) if upload is not None else None


def pick_data() -> Loaded | None:
    """Let the user choose the sample, one file, or two files to compare; return the table, or None."""
    mode = st.segmented_control(
        "Data", ["sample", "file", "two"], key="batch.source", persist_state="session", required=True, default="sample",
        format_func={"sample": "Bundled sample", "file": "Upload a file", "two": "Two files (A/B)"}.get,
    )  # fmt: skip
    if mode == "sample":
        data = SAMPLE_PATH.read_bytes()
        st.caption("162 support-bot replies: versions v1 and v2 answering the same 81 questions.")
        return Loaded(_read(_digest(data), SAMPLE_PATH.name, data), SAMPLE_PATH.name, _digest(data), None)
    if mode == "file":
        got = _upload("Responses file", "batch.upload")
        if got is None:
            return None
        table = _read(_digest(got[1]), *got)
        return Loaded(table, got[0], _digest(got[1]), None, tuple(table.attrs.get("warnings", ())))
    left, right = st.columns(2)
    with left:
        first = _upload("File A (e.g. the current version)", "batch.upload_a")
    with right:
        second = _upload("File B (e.g. the candidate)", "batch.upload_b")
    if first is None or second is None:
        return None
    a, b = (_read(_digest(data), name, data) for name, data in (first, second))
    stacked = stack_files(a, b, (first[0], second[0]))
    group = str(stacked.columns[-1])
    digest = _digest((_digest(first[1]) + _digest(second[1])).encode())
    warnings = tuple(w for t in (a, b) for w in t.attrs.get("warnings", ()))
    return Loaded(stacked, f"{first[0]} vs {second[0]}", digest, group, warnings)


def _reset_mapping(loaded: Loaded) -> ColumnGuess:
    """Put the guessed columns into the widgets when a new file arrives (not on every rerun); return the guess.

    A role the guess could not settle starts empty (None), so the user must choose: never the first column.
    """
    if st.session_state.get("batch.mapped_for") == loaded.digest and "batch.guess" in st.session_state:
        guess: ColumnGuess = st.session_state["batch.guess"]
        return guess
    guess = guess_columns(loaded.table)
    for role, key in (
        ("output", "batch.col.output"),
        ("input", "batch.col.input"),
        ("reference", "batch.col.reference"),
    ):
        st.session_state[key] = guess.role(role).column or NONE if guess.settled(role) else None
    st.session_state["batch.ref_mode"] = "column"
    st.session_state["batch.guess"] = guess
    st.session_state["batch.mapped_for"] = loaded.digest
    return guess


def _how(where: Any, guess: ColumnGuess, role: str, chosen: str | None) -> None:
    """Under a column picker: how its column was decided (by name, by values, by you), or what to choose."""
    found = guess.role(role)
    if chosen is None:
        text = found.note or "Choose the column."
    elif chosen == (found.column or NONE) and found.how in ("name", "values"):
        text = f"{HOW[found.how]}" + (f" · {found.note}" if found.note else "")
    elif chosen == NONE and found.how == "none":
        text = found.note or "none found by name"
    else:
        text = HOW["given"]
    where.caption(escape_markdown(text))


def scorer_names() -> list[str]:
    """The built-in scorers' short names, in the registry's order."""
    return [info.short_name for info in SCORER_INFO]


def run_options(loaded: Loaded, available: list[str] | None = None) -> RunOptions:
    """Column mapping (guessed, changeable, each with how it was decided), scorers (``available``: short names,
    default all), engine and reference tone."""
    available = available or [info.short_name for info in SCORER_INFO]
    guess = _reset_mapping(loaded)
    columns = [str(c) for c in loaded.table.columns]
    out_col, in_col, ref_col = st.columns(3)
    output = out_col.selectbox("Response column (output)", columns, key="batch.col.output",
                               placeholder="Choose the column with the responses")  # fmt: skip
    _how(out_col, guess, "output", output)
    input_ = in_col.selectbox("Prompt column (input)", [NONE, *columns], key="batch.col.input",
                              placeholder="Choose the prompt column or (none)")  # fmt: skip
    _how(in_col, guess, "input", input_)
    reference = ref_col.selectbox(
        "Reference column (expected answer)", [NONE, *columns], key="batch.col.reference",
        placeholder="Choose the reference column or (none)",
        help="Tone compares each reply's sentiment with its reference, and similarity compares the reply with it. "
        "Without one, tone measures stability across sentences and similarity compares the reply with the prompt.",
    )  # fmt: skip
    _how(ref_col, guess, "reference", reference)
    scorers = st.pills(
        "Scorers", available, key="batch.scorers", selection_mode="multi", format_func=lambda s: scorer_info(s).label,
        default=[s for s in available if s != TOXICITY.short_name and not _slow(s) and not s.startswith("taught:")],
    )  # fmt: skip
    for name in scorers or ():
        info = scorer_info(name)
        lite = name == COURTESY.short_name and st.session_state.get("batch.courtesy_engine") == "e5-lite"
        if _slow(name) and not lite and (speed := info.speed_notes.get(info.batch_engine or "")):
            st.caption(f"{info.label} uses e5, far slower than the lexicons: {speed}. Progress is shown as rows "
                       "finish.")  # fmt: skip
    engine_col, mode_col = st.columns([1, 2])
    engine = engine_col.radio("Sentiment engine", list(TONE.engines), key="batch.engine", horizontal=True,
                              format_func=TONE.engines.get)  # fmt: skip
    by_column = "The reference column" if reference not in (None, NONE) else "Nothing: stability across sentences"
    ref_mode = mode_col.radio("Tone compares each reply with", ["column", "text"], key="batch.ref_mode",
                              format_func={"column": by_column, "text": "One text for all rows"}.get,
                              horizontal=True)  # fmt: skip
    tone_text = None
    if ref_mode == "text":
        tone_text = st.text_area("Reference tone for every row", key="batch.ref_text", height=68) or None
    options = RunOptions(
        tuple(scorers or ()),
        ColumnMap(output=output, input=None if input_ in (None, NONE) else input_,
                  reference=None if reference in (None, NONE) else reference),
        engine,
        tone_text if ref_mode == "text" else None,
    )  # fmt: skip
    if COURTESY.short_name in options.scorers:
        options = _courtesy_options(options)
    return _toxicity_options(options) if TOXICITY.short_name in options.scorers else options


def _courtesy_options(options: RunOptions) -> RunOptions:
    """The courtesy engine: e5 (the default) or e5-lite (fast, weaker), with what each costs or misses."""
    from scoring.courtesy.e5 import LITE_HEAD_PATH, load_head

    engine = st.radio("Courtesy engine", list(COURTESY.engines), key="batch.courtesy_engine", horizontal=True,
                      format_func=COURTESY.engines.get)  # fmt: skip
    if engine == "e5-lite":
        meta = load_head(LITE_HEAD_PATH).meta
        fresh, second = meta["fresh"], meta["fresh2"]
        assert isinstance(fresh, dict) and isinstance(second, dict)
        st.caption(f"e5-lite scores thousands of replies a second but agrees with people less: ROC AUC "
                   f"{fresh['rocAuc']:.2f} on {fresh['n']} fresh support replies and {second['rocAuc']:.2f} on "
                   f"{second['n']} more (e5: 0.99 and 0.97; issue 25 asked for 0.92). A choice for speed, not the "
                   "default (docs/engines.md).")  # fmt: skip
    return replace(options, courtesy_engine=str(engine))


def _slow(name: str) -> bool:
    """Whether the scorer's batch engine is slow (e5 embeds every sentence): not chosen for a file unasked."""
    info = scorer_info(name)
    return info.batch_engine in info.slow_engines


def plan(loaded: Loaded, options: RunOptions) -> BatchSpec | None:
    """Say, before scoring, which column each scorer reads and what it compares; None when it cannot run yet.

    The sentence comes from the library's spec (:meth:`BatchSpec.describe`), the same one the run uses.
    """
    if any(st.session_state.get(f"batch.col.{k}") is None for k in ("output", "input", "reference")):
        guess: ColumnGuess = st.session_state["batch.guess"]
        notes = " ".join(g.note for g in (guess.output, guess.input, guess.reference) if g.note and g.column is None)
        st.warning(f"**Choose the columns before scoring.** {escape_markdown(notes)}", icon=":material/help:")
        return None
    try:
        spec = make_spec(list(loaded.table.columns), scorers=list(options.scorers), column_map=options.columns,
                         reference_tone=options.reference_tone, engine=options.engine,
                         toxicity=options.toxicity_choice(), courtesy=options.courtesy_choice())  # fmt: skip
    except ScoringError as exc:
        st.error(escape_markdown(str(exc)), icon=":material/error:")
        return None
    st.caption(f"**Will score** {plan_text(spec)}", help="Tone and similarity compare each reply with its row's "
               "reference exactly as the library and the command line do.")  # fmt: skip
    if TOXICITY.short_name in options.scorers and options.toxicity_engine == "e5" and options.columns.output:
        estimate = _e5_estimate(loaded.digest, options.columns.output, loaded.table, workers(options, loaded))
        st.caption(f"**Before you start (toxicity):** {escape_markdown(estimate.sentence())}", help="e5 embeds each "
                   "distinct sentence once per run; a rubric pattern settles some without embedding. The rate was "
                   "measured by python -m bench.toxicity_defaults (docs/toxicity.md).")  # fmt: skip
    courtesy = COURTESY.short_name in options.scorers and options.courtesy_engine in COURTESY.slow_engines
    tone_e5 = TONE.short_name in options.scorers and options.engine in TONE.slow_engines
    if (courtesy or tone_e5) and options.columns.output:
        said = _e5_work(loaded.digest, options, loaded.table, workers(options, loaded), courtesy, tone_e5)
        st.caption(f"**Before you start (e5):** {escape_markdown(said)}", help="Courtesy embeds each distinct "
                   "reply whole and each of its sentences once per run; tone's e5 engine each distinct sentence (or "
                   "the reply and its reference). The rate was measured by python -m bench.e5_batch_speed "
                   "(docs/courtesy.md). Once it runs, the progress bar says how long is left, and Streamlit's Stop "
                   "button (top right) stops it.")  # fmt: skip
    if (chars := _e5_chars(loaded.table, options)) > (limit := get_limits().max_e5_batch_chars):  # any e5 engine
        st.warning(f"This run's e5 engines would read {chars:,} characters, more than this server's {limit:,}: "
                   "it will be refused. Choose the classifier, split the file, or use the command line "
                   "(python -m scoring evaluate).", icon=":material/timer:")  # fmt: skip
    return spec


@st.cache_data(max_entries=16, show_spinner="Counting the sentences…")
def _e5_estimate(digest: str, column: str, _table: pd.DataFrame, processes: int) -> E5Estimate:
    """What an e5 run of this file's ``column`` has to embed (cached per file and column)."""
    return e5_estimate(_table[column].tolist(), processes)


@st.cache_data(max_entries=16, show_spinner="Counting the sentences…")
def _e5_work(digest: str, options: RunOptions, _table: pd.DataFrame, processes: int, courtesy: bool, tone: bool) -> str:
    """What the run's courtesy and tone-e5 work embeds and how long it takes (cached per file and options)."""
    column, refs = options.columns.output, None
    if tone and options.reference_tone:  # one reference tone for every row, as the run
        refs = [options.reference_tone] * len(_table)
    elif tone and options.columns.reference:
        refs = _table[options.columns.reference].tolist()
    work = e5_work(_table[column].tolist(), courtesy=courtesy, tone=tone, references=refs, workers=processes)
    return work.sentence()


def workers(options: RunOptions, loaded: Loaded) -> int:
    """Processes for the run: both CPUs for an e5 toxicity run of more than ``E5_POOL_ROWS`` rows (it embeds each
    sentence: measured faster on two), else one."""
    if TOXICITY.short_name in options.scorers and options.toxicity_engine == "e5" and len(loaded.table) > E5_POOL_ROWS:
        return max(1, min(2, available_cpus()))
    return 1


def plan_text(spec: BatchSpec) -> str:
    """The columns and comparisons of ``spec`` as one markdown line (column names escaped)."""
    compares = " · ".join(f"{scorer_info(k).label}: {v}" for k, v in spec.describe().items())
    return escape_markdown(f"{spec.columns.in_words()} — {compares}")


def _toxicity_options(options: RunOptions) -> RunOptions:
    """The toxicity engine, and its settings from the sidebar (shared with the Toxicity page).

    A file defaults to the batch engine (the classifier, as the CLI and ``evaluate()``); e5, the Toxicity page's
    default where its wheel loads, is one click away and says what it costs.
    """
    st.session_state.setdefault("batch.tox_engine", ui.toxicity_default_engine())  # as for single texts
    tox_engine = st.radio("Toxicity engine", ui.toxicity_engines(), key="batch.tox_engine", horizontal=True,
                          format_func=TOXICITY.engines.get)  # fmt: skip
    settings = ui.judge_settings(tox_engine)
    if tox_engine in TOXICITY.remote_engines:
        model, where = escape_markdown(settings.model or "gpt-4o-mini"), escape_markdown(settings.access.base_url)
        st.caption(f"Judge: model **{model}** at **{where}** (sidebar); one request per row.")
    elif tox_engine == "e5":
        st.caption("Learned e5 is the default for files as for single texts (the same verdicts as the Toxicity page "
                   "and the CLI). It embeds each distinct sentence once: the time it takes is estimated below, and "
                   "progress is shown as rows finish. The classifier takes seconds but misses far more.")  # fmt: skip
    elif tox_engine == "e5-lite":
        st.caption(escape_markdown(e5_lite_measured_note()))  # our text: its measured recall, beside the choice
    elif "e5" in ui.toxicity_engines():
        st.caption("The classifier is fast but English only and misses far more; learned e5, the default, embeds "
                   f"{TOXICITY.speed_notes['e5']}.")  # fmt: skip
    return replace(options, toxicity_engine=tox_engine, toxicity_threshold=settings.threshold,
                   judge_model=settings.model.strip(), judge_base_url=settings.base_url.strip())  # fmt: skip


@st.cache_resource
def _store() -> tuple[OrderedDict[tuple[str, RunOptions], Any], threading.Lock]:
    """Finished runs, shared by every session, the most recent few kept (keyed by file digest + options)."""
    return OrderedDict(), threading.Lock()


def _key(loaded: Loaded, options: RunOptions) -> tuple[str, RunOptions, str]:
    """The store key: file and options; a judge run is also this session's own (it used this session's key)."""
    session = st.session_state.setdefault("batch.session_id", uuid.uuid4().hex) if options.uses_judge else ""
    return loaded.digest, options, session


def _keep(key: tuple[str, RunOptions, str], result: Any) -> None:
    results, lock = _store()
    with lock:
        results[key] = result
        results.move_to_end(key)
        while len(results) > _RESULTS_KEPT:
            results.popitem(last=False)


def _with_progress(label: str, rows: int, run: Any) -> Any:
    """Call ``run(progress)`` inside a status box with a progress bar; mark the box failed on bad input."""
    with st.status(label, expanded=True) as status:
        bar = st.progress(0.0, text="Starting…")
        st.caption("**Stop** (top right, while it runs) stops the run; nothing of it is kept.")
        start = time.monotonic()
        st.session_state[_PROGRESS] = (0, rows)

        def progress(done: int, total: int) -> None:
            st.session_state[_PROGRESS] = (done, total)  # how far a stopped run got (no st call: it cannot stop)
            left = _left(done, total, time.monotonic() - start)
            bar.progress(done / max(total, 1), text=f"{done:,} of {total:,} rows{left}")

        try:
            result = run(progress)
        except ScoringError:
            status.update(label="Not scored: see the message below", state="error", expanded=False)
            raise
        failed = f"; {len(result.errors):,} failed (see below)" if len(result.errors) else ""
        status.update(label=f"Scored {rows:,} rows{failed}", state="complete", expanded=False)
    return result


#: session key: the run (its store key) that started and has not finished: Streamlit's Stop ended it mid-way
STOPPED = "batch.stopped"
_PROGRESS = "batch.progress"  # (rows done, rows) of the last run, for the "Stopped at" line


def _left(done: int, total: int, elapsed: float) -> str:
    """``; about 3 min left`` from the pace so far (nothing before the first rows are done, or when finished)."""
    if done <= 0 or done >= total:
        return ""
    seconds = elapsed / done * (total - done)
    return f"; about {seconds / 60:.0f} min left" if seconds >= 90 else f"; about {seconds:.0f} s left"


def scored(loaded: Loaded, options: RunOptions, spec: BatchSpec) -> Any:
    """Return the run's result: from the store when this file and these options ran before, else score now.

    ``spec`` is the one :func:`plan` built from ``options`` and showed before the click: the run scores it as
    it is (its columns are not checked again), with the toxicity options added. Not ``st.cache_data``: its
    replay cannot hold a progress bar updated during the run. Same keys, though. The judge's API key is read
    now, passed to the run, and kept nowhere (the result's spec drops it).
    """
    results, lock = _store()
    key = _key(loaded, options)
    with lock:
        if key in results:
            results.move_to_end(key)
            return results[key]
    if st.session_state.get(STOPPED) == key:  # stopped (Stop, or a widget touched mid-run): not started again unasked
        done, total = st.session_state.get(_PROGRESS, (0, len(loaded.table)))
        st.warning(f"**Stopped** at {done:,} of {total:,} rows, before the run finished: nothing of it was kept. "
                   "Press **Score the file** to run it again.", icon=":material/stop_circle:")  # fmt: skip
        return None
    check_e5_batch(_e5_chars(loaded.table, options), loaded.name)
    toxicity = options.toxicity(ui.judge_access(options.judge_base_url))
    from ui.runs import judge_cache  # the judge's verdicts are kept in the run store: the same rows never pay twice

    cache = judge_cache() if options.uses_judge else None
    st.session_state[STOPPED] = key  # until it finishes: Streamlit's Stop ends the script inside the run
    try:
        result = _with_progress(f"Scoring {len(loaded.table):,} rows…", len(loaded.table), lambda progress: run_spec(
            loaded.table, with_toxicity(spec, toxicity), on_progress=progress, judge_cache=cache,
            workers=workers(options, loaded),
        ))  # fmt: skip
    except Exception:  # an error is shown as one; only a stop (Streamlit's control exceptions) leaves the mark
        st.session_state.pop(STOPPED, None)
        raise
    st.session_state.pop(STOPPED, None)
    _keep(key, result)
    return result


def _e5_chars(table: pd.DataFrame, options: RunOptions) -> int:
    """Characters the run's e5 engines would read: the responses once per e5 scorer (twice for courtesy, which
    embeds each reply whole and sentence by sentence), and tone's references."""

    def chars(column: str | None) -> int:
        if column is None or column not in table.columns:
            return 0
        return int(table[column].dropna().astype(str).str.len().sum())

    tone_e5 = TONE.short_name in options.scorers and options.engine in TONE.slow_engines
    toxicity_e5 = TOXICITY.short_name in options.scorers and options.toxicity_engine in TOXICITY.slow_engines
    courtesy_e5 = 2 * (COURTESY.short_name in options.scorers and options.courtesy_engine in COURTESY.slow_engines)
    total = (tone_e5 + toxicity_e5 + courtesy_e5) * chars(options.columns.output)
    return total + (chars(options.reference) if tone_e5 else 0)


def retry_button(loaded: Loaded, options: RunOptions, result: Any) -> None:
    """When rows failed (e.g. the judge timed out), offer to score only those again; rerun with the merged result."""
    if result.errors.empty:
        return
    failed = len(result.errors)
    if not st.button(f"Retry failed rows ({failed:,})", key="batch.retry", icon=":material/refresh:",
                     help="Score again only the rows that failed; every other row keeps its score."):  # fmt: skip
        return
    toxicity = options.toxicity(ui.judge_access(options.judge_base_url))
    retried = _with_progress(f"Retrying {failed:,} failed rows…", failed, lambda progress: retry_errors(
        result, loaded.table, toxicity=toxicity, on_progress=progress))  # fmt: skip
    _keep(_key(loaded, options), retried)
    st.rerun()
