"""Run-store fixtures: a SQLite file per test, and a throwaway PostgreSQL cluster (a database per test).

The cluster is Debian's PostgreSQL server started by ``initdb`` + ``pg_ctl`` in a temporary folder, on a free
localhost port, as the ``postgres`` user when the tests run as root (the server refuses root). Without the
server, its tests are skipped with the reason, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa

from scoring.batch import BatchResult, evaluate
from scoring.runs import RunStore

BACKENDS = ["sqlite", "postgresql"]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the PostgreSQL tests must run; `make setup` installs the server)")
    pytest.skip(reason)


def _pg_bindir() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(root: Path) -> list[str]:
    """The command prefix that runs the server as a non-root user owning ``root`` (nothing when not root)."""
    if os.geteuid() != 0:
        return []
    for user in ("postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        shutil.chown(root, user)
        return ["runuser", "-u", user, "--"]
    _unavailable("running as root and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL as")
    return []


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """Start a throwaway PostgreSQL cluster; yield its URL without a database name."""
    bindir = _pg_bindir()
    if bindir is None:
        _unavailable("PostgreSQL server not installed (initdb not found; Debian package postgresql)")
    assert bindir is not None
    root = Path(tempfile.mkdtemp(prefix="tone-pg-"))
    prefix = _as_server_user(root)
    data, log, port = root / "data", root / "server.log", _free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            pytest.fail(f"{' '.join(args[:2])} failed ({done.returncode}): {done.stderr.strip()}\n{tail}")

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", "tone", "--auth=trust", "--encoding=UTF8", "--locale=C",
            "--no-sync")  # fmt: skip
        options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={root} -c fsync=off"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start")
        try:
            yield f"postgresql+psycopg://tone@127.0.0.1:{port}"
        finally:
            run(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh database on the throwaway cluster."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(f"{postgres_server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    try:
        yield f"{postgres_server}/{name}"
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.sqlite'}"


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest) -> str:
    """The URL of an empty store, once on SQLite and once on PostgreSQL."""
    return str(request.getfixturevalue({"sqlite": "sqlite_url", "postgresql": "postgres_url"}[request.param]))


@pytest.fixture
def store(store_url: str) -> Iterator[RunStore]:
    store = RunStore(store_url)
    yield store
    store.close()


@pytest.fixture(autouse=True)
def _no_default_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test touches the user's real store: the default location is a temporary folder."""
    monkeypatch.delenv("TONE_EXPLORER_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))


def replies(n: int = 12, *, offset: int = 0, tone: str = "Thanks, happy to help!") -> pd.DataFrame:
    """``n`` support replies (question i, a reply); row 3's output is missing."""
    outputs: list[str | None] = [f"{tone} Answer number {i + offset}." for i in range(n)]
    if n > 3:
        outputs[3] = None
    return pd.DataFrame({"question": [f"Question {i}?" for i in range(n)], "reply": outputs})


def scored(df: pd.DataFrame | None = None, scorers: tuple[str, ...] = ("tone", "similarity")) -> BatchResult:
    from scoring.io.columns import ColumnMap

    frame = replies() if df is None else df
    return evaluate(frame, scorers=list(scorers), columns=ColumnMap(output="reply", input="question"))
