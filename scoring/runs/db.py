"""The run store's database: where it lives, its tables, its schema version and the upgrades between versions.

SQLite by default: a file in the platform's user-data folder (``platformdirs``), created on first use.
``TONE_EXPLORER_DB`` names any other SQLAlchemy URL (``postgresql://user@host/db`` for a team; the
``psycopg`` driver is used when the URL names none). The tables carry a ``tone_`` prefix so a shared
database can hold them beside others. ``tone_meta`` records the schema version: a store written by an
older version is upgraded in one transaction (:data:`MIGRATIONS`), a newer or unknown one is refused
with a message saying what to do.

SQLite writers take the database lock when their transaction starts (``BEGIN IMMEDIATE``) and wait for
it up to :data:`BUSY_TIMEOUT_S`, so two processes saving at once queue instead of failing half-way;
the journal is in WAL mode, so readers (the dashboard listing runs) never wait for a writer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from scoring.errors import InputError, RunStoreError

__all__ = [
    "APP_NAME",
    "BUSY_TIMEOUT_S",
    "DB_ENV",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "RunStoreError",
    "default_url",
    "display_url",
    "ensure_schema",
    "judge_cache",
    "labels",
    "make_engine",
    "masked_url",
    "metadata",
    "read_version",
    "run_problems",
    "run_rows",
    "run_scorers",
    "runs",
    "taught",
    "tone_meta",
    "transaction",
]

DB_ENV = "TONE_EXPLORER_DB"
APP_NAME = "tone-explorer"
SCHEMA_VERSION = 2
BUSY_TIMEOUT_S = 120.0
_LOCK_ID = 0x70E5  # the advisory lock PostgreSQL sessions take while creating or upgrading the schema


metadata = sa.MetaData()

tone_meta = sa.Table(
    "tone_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

runs = sa.Table(
    "tone_runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, index=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("source_name", sa.Text, nullable=False),
    sa.Column("source_sha256", sa.String(64), nullable=False),
    sa.Column("scorers", sa.JSON, nullable=False),
    sa.Column("options", sa.JSON, nullable=False),
    sa.Column("row_count", sa.Integer, nullable=False),
    sa.Column("skipped_rows", sa.Integer, nullable=False),
    sa.Column("failed_rows", sa.Integer, nullable=False),
    sa.Column("complete", sa.Boolean, nullable=False),
    sa.Column("cache_hits", sa.Integer, nullable=False),
    sqlite_autoincrement=True,  # a deleted run's id is never given to another run
)

run_scorers = sa.Table(
    "tone_run_scorers",
    metadata,
    sa.Column("run_id", sa.Integer, sa.ForeignKey("tone_runs.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("scorer", sa.String(100), primary_key=True),
    sa.Column("lower_is_better", sa.Boolean, nullable=False),
    sa.Column("mean", sa.Float),
    sa.Column("ci_low", sa.Float),
    sa.Column("ci_high", sa.Float),
    sa.Column("median", sa.Float),
    sa.Column("min", sa.Float),
    sa.Column("max", sa.Float),
    sa.Column("threshold", sa.Float),
    sa.Column("count", sa.Integer, nullable=False),
    sa.Column("skipped", sa.Integer, nullable=False),
    sa.Column("errors", sa.Integer, nullable=False),
    sa.Column("warned", sa.Integer, nullable=False),
)

run_rows = sa.Table(
    "tone_run_rows",
    metadata,
    sa.Column("run_id", sa.Integer, sa.ForeignKey("tone_runs.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("row", sa.Integer, primary_key=True),  # counted from 1, as in the batch result
    sa.Column("label", sa.Text, nullable=False),  # the row's index label in the scored table, as text
    sa.Column("input_text", sa.Text),
    sa.Column("output_text", sa.Text),
    sa.Column("reference_text", sa.Text),
    sa.Column("scores", sa.JSON, nullable=False),  # {"tone-scorer": 0.9, "tone-scorer.avgSentiment": ...}
    sa.Column("warnings", sa.JSON, nullable=False),  # {"tone-scorer": "output looks like German ..."}
)

run_problems = sa.Table(
    "tone_run_problems",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("tone_runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("row", sa.Integer, nullable=False),
    sa.Column("scorer", sa.String(100), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # "skipped" (missing text) or "failed" (the scorer erred)
    sa.Column("column", sa.Text),
    sa.Column("message", sa.Text, nullable=False),
)

judge_cache = sa.Table(
    "tone_judge_cache",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),  # SHA-256 of the four parts below
    sa.Column("endpoint", sa.Text, nullable=False),  # scheme://host[:port]/path, never a user, password or query
    sa.Column("model", sa.Text, nullable=False),
    sa.Column("prompt_version", sa.String(64), nullable=False),
    sa.Column("text_hash", sa.String(64), nullable=False),
    sa.Column("verdicts", sa.JSON, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

labels = sa.Table(  # version 2: people's judgements of a run's rows, one per row, measure and rater
    "tone_labels",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("tone_runs.id", ondelete="CASCADE"), nullable=False, index=True),
    sa.Column("row", sa.Integer, nullable=False),  # the run's row number, from 1
    sa.Column("measure", sa.String(100), nullable=False),  # the scorer id the label judges ("tone-scorer")
    sa.Column("rater", sa.String(200), nullable=False),  # who gave it ("" when no name was given)
    sa.Column("value", sa.Float, nullable=False),  # 1/0 for yes/no, else a rating
    sa.Column("source", sa.String(16), nullable=False),  # "file" (evaluate --label-column), "labels file", "page"
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("run_id", "row", "measure", "rater", name="tone_labels_one_per_rater"),
    sqlite_autoincrement=True,
)

taught = sa.Table(  # version 2: scorers taught on labels (python -m scoring teach), versioned by name
    "tone_taught",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, index=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("measure", sa.String(100), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # "yes/no" or "rating"
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("run_id", sa.Integer, nullable=True),  # the run it was taught on (kept when that run is deleted)
    sa.Column("run_label", sa.Text, nullable=False),
    sa.Column("training_sha256", sa.String(64), nullable=False),  # of the training rows (texts and labels)
    sa.Column("rows", sa.Integer, nullable=False),
    sa.Column("model", sa.JSON, nullable=False),  # the head's weights and the base scorer's options
    sa.Column("report", sa.JSON, nullable=False),  # cross-validated agreement, beside the base scorer's
    sa.Column("text_hashes", sa.JSON, nullable=False),  # SHA-256 of each training reply (agreement leaves them out)
    sa.UniqueConstraint("name", "version", name="tone_taught_name_version"),
    sqlite_autoincrement=True,
)


def _add_labels_and_taught(conn: Connection) -> None:
    """Version 1 -> 2: the labels and taught-scorer tables (runs, rows and the judge cache are kept as they are)."""
    labels.create(conn)
    taught.create(conn)


#: Upgrade steps: ``MIGRATIONS[n]`` turns a version-``n`` store into version ``n + 1`` (in the upgrade's transaction).
MIGRATIONS: dict[int, Callable[[Connection], None]] = {1: _add_labels_and_taught}


def default_url() -> str:
    """Return the SQLite URL of the default store: ``runs.sqlite`` in the platform's user-data folder."""
    from platformdirs import user_data_path

    return URL.create(
        "sqlite", database=str(user_data_path(APP_NAME, appauthor=False) / "runs.sqlite")
    ).render_as_string()


def _parse(url: str | None) -> URL:
    text = url if url is not None else os.environ.get(DB_ENV) or default_url()
    source = "url" if url is not None else DB_ENV if os.environ.get(DB_ENV) else "the default store"
    try:
        parsed = sa.make_url(text)
    except ArgumentError:
        raise InputError(
            f"{source} must be a SQLAlchemy URL like sqlite:////path/runs.sqlite or postgresql://user@host/db; "
            f"got {_without_password(text)!r}."
        ) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


#: Query parameters that carry a secret: libpq's ``password`` and ``sslpassword``, and any name saying so.
_SECRET_PARAM = re.compile(r"pass|pwd|secret|token|key|auth|credential", re.IGNORECASE)
_QUERY_VALUE = re.compile(r"(?P<name>[^?&=#]+)=(?P<value>[^&#]*)")


def _without_password(text: str) -> str:
    """``text`` (not a valid URL) with the password of ``user:password@`` and secret query values hidden."""
    scheme, sep, rest = text.partition("://")
    creds, at, host = rest.rpartition("@")
    if sep and at and ":" in creds:
        text = f"{scheme}://{creds.split(':', 1)[0]}:***@{host}"
    base, mark, query = text.partition("?")
    hidden = _QUERY_VALUE.sub(lambda m: f"{m['name']}=***" if _SECRET_PARAM.search(m["name"]) else m[0], query)
    return base + mark + hidden


def masked_url(url: URL) -> str:
    """``url`` as text with every secret it can carry hidden: the password, and ``?password=``, ``?sslpassword=``
    or any query parameter whose name says it holds a secret (libpq reads a password from the query too).

    >>> masked_url(sa.make_url("postgresql://bob@host/db?password=s3cret&sslmode=require"))
    'postgresql://bob@host/db?password=***&sslmode=require'
    """
    secret = {name for name in url.query if _SECRET_PARAM.search(name)}
    text = url.set(query={k: "\x00" if k in secret else v for k, v in url.query.items()})
    return text.render_as_string(hide_password=True).replace("%00", "***")


def display_url(engine: Engine) -> str:
    """Where the store is, for people: the SQLite file's path, or the URL with its secrets hidden."""
    url = engine.url
    if url.get_backend_name() == "sqlite":
        return url.database or ":memory:"
    return masked_url(url)


def make_engine(url: str | None = None) -> Engine:
    """Return an engine for ``url`` (default: ``TONE_EXPLORER_DB``, else the default SQLite file)."""
    parsed = _parse(url)
    try:
        if parsed.get_backend_name() != "sqlite":
            return sa.create_engine(parsed, pool_pre_ping=True)
    except (NoSuchModuleError, ImportError) as exc:
        raise InputError(
            f"no driver for {masked_url(parsed)!r}: {exc}. PostgreSQL URLs use "
            "psycopg (postgresql://user@host/db; pip install 'tone-explorer[postgres]'); other databases need "
            "their SQLAlchemy driver installed."
        ) from None
    engine = sa.create_engine(parsed, connect_args={"timeout": BUSY_TIMEOUT_S})

    @sa.event.listens_for(engine, "do_connect")
    def _make_folder(*_args: object) -> None:  # on first use, not when the engine is made
        if parsed.database and parsed.database != ":memory:" and not parsed.database.startswith("file:"):
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: object) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below, not by the driver
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        if parsed.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("tone_write") else "BEGIN")

    return engine


@contextmanager
def transaction(engine: Engine, *, write: bool) -> Iterator[Connection]:
    """One transaction: committed when the block ends, rolled back (nothing kept) when it raises.

    A ``write`` transaction on SQLite takes the write lock at once, waiting for another writer to finish.
    """
    connected = False
    try:
        with engine.connect() as conn:
            connected = True
            if write:
                conn.execution_options(tone_write=True)
            with conn.begin():
                yield conn
    except DBAPIError as exc:
        where = display_url(engine)
        if "database is locked" in str(exc.orig):
            raise RunStoreError(
                f"the run store {where} stayed busy for {BUSY_TIMEOUT_S:g} s (another process is writing to it); "
                "try again."
            ) from None
        if type(exc) is sa.exc.DatabaseError:  # SQLite: "file is not a database", "database disk image is malformed"
            raise RunStoreError(
                f"the run store {where} is not a usable database ({str(exc.orig).strip()}): it is corrupt, cut short "
                f"or another kind of file. Restore it from a copy, or point {DB_ENV} at another store."
            ) from None
        if not connected or exc.connection_invalidated or isinstance(exc, sa.exc.OperationalError):
            raise RunStoreError(f"cannot use the run store {where}: {str(exc.orig).strip()}") from None
        raise


def read_version(conn: Connection) -> int | None:
    """Return the store's schema version, or None when it has no ``tone_meta`` table."""
    if not sa.inspect(conn).has_table(tone_meta.name):
        return None
    value = conn.execute(sa.select(tone_meta.c.value).where(tone_meta.c.key == "schema_version")).scalar()
    if value is None or not (str(value).isascii() and str(value).isdigit()):
        return 0
    return int(value)


def ensure_schema(engine: Engine) -> None:
    """Create the tables in an empty store, upgrade an older one, refuse a newer or unknown one."""
    with transaction(engine, write=False) as conn:
        if read_version(conn) == SCHEMA_VERSION:
            return
    with transaction(engine, write=True) as conn:
        if conn.dialect.name == "postgresql":  # one creator at a time; DDL is transactional there
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:id)"), {"id": _LOCK_ID})
        version = read_version(conn)
        where = display_url(engine)
        if version is None:
            ours = sorted(t.name for t in metadata.sorted_tables if sa.inspect(conn).has_table(t.name))
            if ours:
                raise RunStoreError(
                    f"{where} has run-store tables {ours} but no schema version: it was not made by tone explorer. "
                    f"Point {DB_ENV} at another database."
                )
            metadata.create_all(conn)
            conn.execute(tone_meta.insert(), [{"key": "schema_version", "value": str(SCHEMA_VERSION)}])
            return
        if version > SCHEMA_VERSION:
            raise RunStoreError(
                f"the run store {where} has schema version {version}, written by a newer tone explorer; this one "
                f"reads version {SCHEMA_VERSION}. Upgrade tone explorer, or point {DB_ENV} at another store."
            )
        for step in range(version, SCHEMA_VERSION):
            if step not in MIGRATIONS:
                raise RunStoreError(
                    f"the run store {where} has schema version {version}, which this tone explorer cannot upgrade "
                    f"to {SCHEMA_VERSION} (no upgrade from version {step}). Point {DB_ENV} at a new store."
                )
            MIGRATIONS[step](conn)
        conn.execute(tone_meta.delete().where(tone_meta.c.key == "schema_version"))
        conn.execute(tone_meta.insert(), [{"key": "schema_version", "value": str(SCHEMA_VERSION)}])
