"""Every bound the library, CLI and dashboard enforce, in one place, each set by an environment variable.

==============================  ==================================  ===========================================
Limit                           Environment variable                Default
==============================  ==================================  ===========================================
upload size (MB)                ``STREAMLIT_SERVER_MAX_UPLOAD_SIZE``  ``server.maxUploadSize`` in
                                                                    ``.streamlit/config.toml`` (50), else 200
rows per run                    ``TONE_EXPLORER_MAX_ROWS``           100,000
characters per text scored      ``TONE_EXPLORER_MAX_TEXT_CHARS``     1,000,000
LLM judge timeout (seconds)     ``TONE_EXPLORER_JUDGE_TIMEOUT_S``    30 (the whole request, not each read)
LLM judge concurrent requests   ``TONE_EXPLORER_JUDGE_CONCURRENCY``  4
LLM judge reply size (KB)       ``TONE_EXPLORER_JUDGE_MAX_REPLY_KB`` 1,024 (a reply is a few KB)
unpacked archive size (MB)      ``TONE_EXPLORER_MAX_UNPACKED_MB``    1,024 (an .xlsx's zip, a Parquet file)
characters read into a table    ``TONE_EXPLORER_MAX_TABLE_CHARS``    200,000,000 (every cell counts as >= 1)
columns of a table              ``TONE_EXPLORER_MAX_COLUMNS``        1,000 (checked before a row is parsed)
dashboard score caches (MB)     ``TONE_EXPLORER_PAGE_CACHE_MB``      256 (all pages and visitors together)
e5 characters per page request  ``TONE_EXPLORER_MAX_E5_CHARS``       20,000 (the dashboard's learned engines)
e5 characters per Batch run     ``TONE_EXPLORER_MAX_E5_BATCH_CHARS`` 1,000,000 (the Batch page, all rows)
==============================  ==================================  ===========================================

The upload limit is Streamlit's own setting, read the way Streamlit reads it (its environment variable
first, then the project's config file), so the number the app checks and the one Streamlit enforces
never disagree. The text limit is there for memory only: scoring time is linear in the text (one
300,000-character text: under a second for the tone scorer, ``python -m bench.long_text``), and the tone
scorer's working memory is about 45 bytes per character (45 MB for a million), which a process scoring
texts in parallel or a dashboard caching results must be able to hold.

Each limit error is a :class:`LimitError`: ``str()`` names the variable that changes the limit (for the
CLI and the library), ``user_message`` says the same without it (for the dashboard's pages).

The last two bound what a small file can unfold into. An .xlsx is a zip: 13 KB holding one shared string
of 10 MB used by every row became 10 MB per row in memory (over 4 GB); a Parquet dictionary does the same.
Excel and Parquet readers check both before (declared sizes) and while (actual bytes, characters) they
read, and refuse the file with the limit's name (:mod:`scoring.io.budget`).

>>> get_limits({"TONE_EXPLORER_MAX_ROWS": "500"}).max_rows
500
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from scoring.errors import InputError, LimitError

__all__ = [
    "ENV_VARS",
    "LimitError",
    "Limits",
    "check_e5_batch",
    "check_e5_length",
    "check_row_count",
    "check_text_length",
    "check_upload_size",
    "get_limits",
    "max_text_chars",
    "user_message",
]

STREAMLIT_CONFIG = Path(__file__).resolve().parent.parent / ".streamlit" / "config.toml"
STREAMLIT_DEFAULT_UPLOAD_MB = 200

#: Limit name -> (environment variable, default, kind). The upload default comes from the config file.
ENV_VARS: dict[str, tuple[str, float | None, type]] = {
    "max_upload_mb": ("STREAMLIT_SERVER_MAX_UPLOAD_SIZE", None, int),
    "max_rows": ("TONE_EXPLORER_MAX_ROWS", 100_000, int),
    "max_text_chars": ("TONE_EXPLORER_MAX_TEXT_CHARS", 1_000_000, int),
    "judge_timeout_s": ("TONE_EXPLORER_JUDGE_TIMEOUT_S", 30.0, float),
    "judge_concurrency": ("TONE_EXPLORER_JUDGE_CONCURRENCY", 4, int),
    "judge_max_reply_kb": ("TONE_EXPLORER_JUDGE_MAX_REPLY_KB", 1024, int),
    "max_unpacked_mb": ("TONE_EXPLORER_MAX_UNPACKED_MB", 1024, int),
    "max_table_chars": ("TONE_EXPLORER_MAX_TABLE_CHARS", 200_000_000, int),
    "max_columns": ("TONE_EXPLORER_MAX_COLUMNS", 1000, int),
    "page_cache_mb": ("TONE_EXPLORER_PAGE_CACHE_MB", 256, int),
    "max_e5_chars": ("TONE_EXPLORER_MAX_E5_CHARS", 20_000, int),
    "max_e5_batch_chars": ("TONE_EXPLORER_MAX_E5_BATCH_CHARS", 1_000_000, int),
}


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits in force; build with :func:`get_limits`."""

    max_upload_mb: int
    max_rows: int
    max_text_chars: int
    judge_timeout_s: float
    judge_concurrency: int
    max_unpacked_mb: int = 1024
    max_table_chars: int = 200_000_000
    judge_max_reply_kb: int = 1024
    max_columns: int = 1000
    page_cache_mb: int = 256
    max_e5_chars: int = 20_000
    max_e5_batch_chars: int = 1_000_000

    @property
    def page_cache_bytes(self) -> int:
        """The dashboard's score-cache limit in bytes."""
        return self.page_cache_mb * 1024 * 1024

    @property
    def max_unpacked_bytes(self) -> int:
        """The unpacked archive limit in bytes (2**20 bytes a megabyte)."""
        return self.max_unpacked_mb * 1024 * 1024

    @property
    def max_upload_bytes(self) -> int:
        """The upload limit in bytes, as Streamlit counts a megabyte (2**20 bytes)."""
        return self.max_upload_mb * 1024 * 1024


@cache
def _config_upload_mb(path: Path) -> int:
    """Return ``server.maxUploadSize`` from a Streamlit config file, or Streamlit's default."""
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return STREAMLIT_DEFAULT_UPLOAD_MB
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}.") from exc
    value = config.get("server", {}).get("maxUploadSize", STREAMLIT_DEFAULT_UPLOAD_MB)
    return int(_parse("server.maxUploadSize in " + str(path), str(value), int))


def _parse(name: str, raw: str, kind: type) -> float:
    try:
        value = kind(raw.strip())
    except ValueError:
        value = None
    if value is None or not value > 0 or value == float("inf"):
        wanted = "a positive whole number" if kind is int else "a positive number"
        raise InputError(f"{name} must be {wanted}; got {raw!r}.")
    return float(value) if kind is float else int(value)


def _limit(field: str, env: Mapping[str, str]) -> float:
    var = ENV_VARS[field][0]
    return _resolve(field, _environ_get(var) if env is os.environ else env.get(var, ""))


#: ``os.environ``'s own store on POSIX (bytes -> bytes), which ``os.environ[...] = ...`` and ``monkeypatch.setenv``
#: update; None where it is not that (then ``os.environ.get`` is used).
_ENVIRON_DATA = getattr(os.environ, "_data", None) if os.name == "posix" else None
_ENCODED = {var: os.fsencode(var) for var, _, _ in ENV_VARS.values()}


def _environ_get(var: str) -> str:
    """``os.environ.get(var, "")`` read from its store: every text scored reads the text limit, and an unset
    variable costs ``os.environ.get`` two exceptions (about 2 us, as long as a whole Dice score)."""
    if not isinstance(_ENVIRON_DATA, dict):
        return os.environ.get(var, "")
    raw = _ENVIRON_DATA.get(_ENCODED[var])
    return "" if raw is None else os.fsdecode(raw)


@cache
def _resolve(field: str, raw: str) -> float:
    """Return the limit ``field`` for the variable's raw value (cached: checks run once per text)."""
    var, default, kind = ENV_VARS[field]
    if raw.strip():
        return _parse(var, raw, kind)
    return _config_upload_mb(STREAMLIT_CONFIG) if default is None else default


def get_limits(environ: Mapping[str, str] | None = None) -> Limits:
    """Return the limits set by ``environ`` (default ``os.environ``), each falling back to its default.

    Raises:
        ValueError: a variable is set to something that is not a positive number; the message names it.
    """
    env = os.environ if environ is None else environ
    return Limits(
        max_upload_mb=int(_limit("max_upload_mb", env)),
        max_rows=int(_limit("max_rows", env)),
        max_text_chars=int(_limit("max_text_chars", env)),
        judge_timeout_s=float(_limit("judge_timeout_s", env)),
        judge_concurrency=int(_limit("judge_concurrency", env)),
        judge_max_reply_kb=int(_limit("judge_max_reply_kb", env)),
        max_unpacked_mb=int(_limit("max_unpacked_mb", env)),
        max_table_chars=int(_limit("max_table_chars", env)),
        max_columns=int(_limit("max_columns", env)),
        page_cache_mb=int(_limit("page_cache_mb", env)),
        max_e5_chars=int(_limit("max_e5_chars", env)),
        max_e5_batch_chars=int(_limit("max_e5_batch_chars", env)),
    )


def user_message(exc: BaseException) -> str:
    """Return what a page shows for ``exc``: its ``user_message`` if it has one, else ``str(exc)``.

    >>> user_message(LimitError("x is 9 long (set X_MAX)", "x is 9 long"))
    'x is 9 long'
    """
    return str(getattr(exc, "user_message", "") or exc)


def max_text_chars() -> int:
    """Return the text length limit in force (``TONE_EXPLORER_MAX_TEXT_CHARS``).

    Every text scored asks, so the limit is kept with the variable's stored value and worked out again only
    when that value changes (``os.environ`` keeps the same object until the variable is set or unset).
    """
    global _text_limit_seen
    if not isinstance(_ENVIRON_DATA, dict):
        return int(_limit("max_text_chars", os.environ))
    raw = _ENVIRON_DATA.get(_TEXT_LIMIT_VAR)
    seen_raw, seen_limit = _text_limit_seen
    if raw is seen_raw:
        return seen_limit
    limit = int(_limit("max_text_chars", os.environ))
    _text_limit_seen = (raw, limit)
    return limit


_TEXT_LIMIT_VAR = _ENCODED[ENV_VARS["max_text_chars"][0]]
_text_limit_seen: tuple[object, int] = (object(), 0)  # (the variable's stored value, its limit): nothing read yet


def check_text_length(text: str, name: str = "output", *, limits: Limits | None = None) -> str:
    """Return ``text`` if it is within ``max_text_chars``, else raise a :class:`LimitError` naming ``name``.

    >>> check_text_length("x" * 30, "output", limits=get_limits({"TONE_EXPLORER_MAX_TEXT_CHARS": "10"}))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.errors.LimitError: output is 30 characters long; at most 10 are scored (set TONE_EXPLORER_MAX_...).
    """
    limit = limits.max_text_chars if limits else max_text_chars()
    if len(text) > limit:
        var = ENV_VARS["max_text_chars"][0]
        what = f"{name} is {len(text):,} characters long; at most {limit:,} are scored"
        raise LimitError(
            f"{what} (set {var} to change it).", f"{what} at once: split it into parts and score each one."
        )
    return text


def check_e5_length(text: str, name: str = "output", *, limits: Limits | None = None) -> str:
    """Return ``text`` if the dashboard's learned (e5) engines may score it, else raise a :class:`LimitError`.

    e5 embeds every sentence: one 300,000-character text cost about 90 s of a shared server's CPU, and four
    at once slowed every other visitor's checks 50-fold. The pages score at most ``max_e5_chars`` characters
    per text with e5 (20,000 characters of distinct sentences: 4.9 s of CPU); the CLI, on the user's own
    machine, is bound by ``max_text_chars`` only.

    >>> check_e5_length("x" * 30, limits=get_limits({"TONE_EXPLORER_MAX_E5_CHARS": "10"})) # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scoring.errors.LimitError: output is 30 characters long; the e5 engine scores at most 10 per text here (set ...).
    """
    limit = (limits or get_limits()).max_e5_chars
    if len(text) > limit:
        var = ENV_VARS["max_e5_chars"][0]
        what = f"{name} is {len(text):,} characters long; the e5 engine scores at most {limit:,} per text here"
        raise LimitError(
            f"{what} (set {var} to change it).",
            f"{what}, to keep this shared server quick for everyone: choose another engine, score a shorter part, "
            "or score the whole text with the command line (python -m scoring evaluate).",
        )
    return text


def check_e5_batch(chars: int, source: str, *, limits: Limits | None = None) -> None:
    """Raise a :class:`LimitError` naming ``source`` if a dashboard Batch run would embed more than
    ``max_e5_batch_chars`` characters with e5 (1,000,000: about 4 minutes of a CPU at the measured 4.9 s per
    20,000 characters)."""
    limit = (limits or get_limits()).max_e5_batch_chars
    if chars > limit:
        var = ENV_VARS["max_e5_batch_chars"][0]
        what = f"{source} holds {chars:,} characters for the e5 engine to read; a run here reads at most {limit:,}"
        raise LimitError(
            f"{what} (set {var} to change it).",
            f"{what}, to keep this shared server quick for everyone: choose the classifier or VADER, split the "
            "file, or score it with the command line (python -m scoring evaluate).",
        )


def check_row_count(rows: int, source: str, *, limits: Limits | None = None) -> None:
    """Raise a :class:`LimitError` naming ``source`` if ``rows`` is over ``max_rows``."""
    limit = limits.max_rows if limits else int(_limit("max_rows", os.environ))
    if rows > limit:
        var = ENV_VARS["max_rows"][0]
        what = f"{source} has {rows:,} rows; one run scores at most {limit:,}"
        raise LimitError(
            f"{what} (split the file, or set {var}).",
            f"{what}: split the file, or score it with the command line (python -m scoring evaluate).",
        )


def check_upload_size(size_bytes: int, source: str, *, limits: Limits | None = None) -> None:
    """Raise a :class:`LimitError` naming ``source`` if it is larger than the upload limit."""
    limit = limits or get_limits()
    if size_bytes > limit.max_upload_bytes:
        var = ENV_VARS["max_upload_mb"][0]
        what = f"{source} is {size_bytes / 2**20:,.1f} MB; files up to {limit.max_upload_mb} MB are accepted"
        raise LimitError(
            f"{what} (server.maxUploadSize in .streamlit/config.toml, or {var}).",
            f"{what}: split the file, or score it with the command line (python -m scoring evaluate).",
        )
