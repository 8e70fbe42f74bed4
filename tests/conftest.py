"""Settings for every test: no test reads or writes the user's own run store."""

from __future__ import annotations

import os
import tempfile

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Point the platform's user-data folder (where the default SQLite run store lives) at a throwaway folder.

    Tests and the CLI subprocesses they start inherit it, so a test that uses the default store, or a branch with a
    newer schema, never touches ``~/.local/share/tone-explorer``.
    """
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="tone-explorer-test-data-")
