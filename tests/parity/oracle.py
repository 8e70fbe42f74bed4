"""Run the real ``@mastra/evals`` (Node.js) on a list of cases; used as the oracle by parity tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS_DIR = Path(__file__).parent / "js"


def oracle_available() -> str | None:
    """Return why the oracle cannot run, or None when it can."""
    if shutil.which("node") is None:
        return "Node.js is not installed"
    if not (JS_DIR / "node_modules" / "@mastra" / "evals").is_dir():
        return f"npm packages are missing: run `make test` (npm ci in {JS_DIR})"
    return None


def require_oracle() -> None:
    """Skip with a visible reason outside CI; fail under CI=true, where parity must run."""
    if (why := oracle_available()) is not None:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"parity oracle unavailable under CI: {why}")
        pytest.skip(f"parity oracle unavailable: {why}")


def run_oracle(cases: list[dict[str, object]]) -> list[dict[str, object]]:
    """Return ``@mastra/evals``' results for ``cases`` (see ``js/oracle.mjs`` for the case shape)."""
    proc = subprocess.run(
        ["node", "oracle.mjs"],
        cwd=JS_DIR,
        input=json.dumps(cases).encode("ascii"),
        capture_output=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"oracle failed: {proc.stderr.decode(errors='replace')[-2000:]}")
    return json.loads(proc.stdout.decode("utf-8"))
