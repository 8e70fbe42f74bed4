"""What a test of a compiled core needs: the core itself, or a skip where it cannot be built here."""

from __future__ import annotations

import os
import re
import shutil
import sys
import sysconfig
from collections.abc import Callable
from types import ModuleType

import pytest

from scoring import native


def compiler() -> str | None:
    """The C compiler setup.py would use, if one is on PATH."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) or shutil.which("cc") or shutil.which("gcc")


def required_core(core: ModuleType | None) -> ModuleType:
    """Return ``core`` (a module's loaded compiled core); if it is None, fail where a C compiler could have built
    it, else skip (no compiler, or the cores turned off)."""
    if core is None:
        if os.environ.get(native.PURE_PYTHON_ENV, "") not in ("", "0"):
            pytest.skip(f"{native.PURE_PYTHON_ENV} turns the compiled cores off")
        if compiler() is None:
            pytest.skip("no C compiler on PATH: the compiled core cannot be built here")
        pytest.fail("the compiled core is not built: run `make setup` (python setup.py build_ext --inplace)")
    return core


def assert_missing_core_warns(monkeypatch: pytest.MonkeyPatch, module: str, load: Callable[[], object]) -> None:
    """``load()`` (a module's ``_load_core``) warns and gives None when the core ``module`` cannot be imported."""
    monkeypatch.delenv(native.PURE_PYTHON_ENV, raising=False)
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if it was never built
    with pytest.warns(native.NativeCoreWarning, match=re.escape(module) + ": the compiled core is not built"):
        assert load() is None
