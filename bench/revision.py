"""A git revision of this repository, exported to a temporary folder: the "before" side of a benchmark."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def exported(ref: str, prefix: str = "bench_revision_") -> Iterator[Path]:
    """Yield a folder holding ``git archive ref``, its compiled cores built if it has any; removed on exit.

    The export runs with this checkout's virtual environment (its pinned packages), so only the code differs.
    """
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        if (Path(folder) / "setup.py").exists():  # a revision with compiled cores: build them as `make` would
            subprocess.run(
                [sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"],
                cwd=folder, capture_output=True, check=True,
            )  # fmt: skip
        yield Path(folder)
