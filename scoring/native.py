"""The compiled cores: C twins of hot Python code, built in place by the normal install (``setup.py``).

A core gives the same results as the Python code it stands for, to the bit (property tests compare the two).
Where it was not built, :func:`load` warns once and the caller keeps its Python code.
``TONE_EXPLORER_PURE_PYTHON=1`` turns every core off (benchmarks use it for the Python baseline).
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

__all__ = ["PURE_PYTHON_ENV", "NativeCoreWarning", "load"]

PURE_PYTHON_ENV = "TONE_EXPLORER_PURE_PYTHON"


class NativeCoreWarning(RuntimeWarning):
    """A compiled core is missing: the Python code runs instead (same results, slower)."""


def load(module: str) -> ModuleType | None:
    """Import the compiled core ``module``, or return None (with a warning) when it was not built."""
    if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return None
    try:
        return importlib.import_module(module)
    except ImportError as error:
        warnings.warn(
            f"{module}: the compiled core is not built ({error}); using the Python code, which gives the same "
            "results more slowly. Build it with `make setup` (or `python setup.py build_ext --inplace`; it "
            "needs a C compiler and the Python headers).",
            NativeCoreWarning,
            stacklevel=2,
        )
        return None
