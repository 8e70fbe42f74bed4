"""A separate process that saves runs, for the concurrency tests.

``python tests/scoring/runs/saver.py URL NAME COUNT ROWS [pause]``: it scores ROWS replies first, prints
``ready`` and waits for a line on stdin, then saves COUNT runs called NAME, printing ``saved <id>`` after
each. With ``pause`` it stops inside its first save's transaction, at the first INSERT of rows, prints
``paused`` and waits for another line before going on (or being killed).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import sqlalchemy as sa

from scoring.runs import RunStore
from tests.scoring.runs.conftest import replies, scored


def main() -> None:
    url, name, count, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    pause = sys.argv[5:] == ["pause"]
    result = scored(replies(rows, tone=f"{name} says thanks!"), scorers=("tone",))
    store = RunStore(url)
    store.list_runs()  # schema ready before the race
    paused = []

    def before(conn: object, cursor: object, statement: str, *args: object) -> None:
        if pause and not paused and statement.startswith("INSERT INTO tone_run_rows"):
            paused.append(True)
            print("paused", flush=True)
            sys.stdin.readline()

    sa.event.listen(store.engine, "before_cursor_execute", before)
    print("ready", flush=True)
    sys.stdin.readline()
    for _ in range(count):
        info = store.save(result, name=name, source_name=f"{name}.csv", source_sha256="c" * 64)
        print(f"saved {info.id}", flush=True)


if __name__ == "__main__":
    main()
