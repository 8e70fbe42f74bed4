"""scoring.native.load: a compiled core that is missing warns and leaves the caller its Python code."""

from __future__ import annotations

import pytest

from scoring import native


def test_a_missing_core_warns_and_gives_none() -> None:
    with pytest.warns(native.NativeCoreWarning, match=r"scoring\.no_such_core: the compiled core is not built"):
        assert native.load("scoring.no_such_core") is None


def test_pure_python_turns_every_core_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(native.PURE_PYTHON_ENV, "1")
    assert native.load("scoring.result") is None  # importable, yet not loaded: the Python code runs


def test_a_built_core_is_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(native.PURE_PYTHON_ENV, raising=False)
    import scoring.result

    assert native.load("scoring.result") is scoring.result
