"""The compiled cores and the dashboard's files for a wheel; ``pyproject.toml`` holds the rest of the package.

``python setup.py build_ext --inplace`` (``make run`` and ``make test`` do it) builds the cores beside their
sources. ``pip install .`` builds them into the wheel. Each core is a C twin of hot Python code, loaded by
``scoring.native.load``. Where a core cannot be built (no C compiler, no Python headers), the in-place build fails
(make says so and goes on) and the wheel is built without it; the package then warns once and runs the Python
code, with the same results. ``-ffp-contract=off``: no fused multiply-add, so every float operation rounds as
CPython's does.

The wheel also carries the dashboard's router and pages (``app.py``, ``pages/``, which are scripts Streamlit runs
by path, not modules) as ``ui/_dashboard/``, where ``tone-explorer serve`` finds them outside a checkout.
"""

import shutil
import sys
from glob import glob
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

CORES: dict[str, str] = {  # module -> C source; scoring.native.load(module) imports it
    "scoring._untrack_core": "scoring/_untrack_core.c",
    "scoring.similarity._dice_core": "scoring/similarity/_dice_core.c",
    "scoring.text._e5_lite_core": "scoring/text/_e5_lite_core.c",
    "scoring.text._language_core": "scoring/text/_language_core.c",
    "scoring.text._split_core": "scoring/text/_split_core.c",
    "scoring.tone._afinn_core": "scoring/tone/_afinn_core.c",
    "scoring.tone._vader_core": "scoring/tone/_vader_core.c",
}

FLAGS = ["-O2", "-ffp-contract=off"]
DASHBOARD = ["app.py", *sorted(glob("pages/*.py"))]  # copied to ui/_dashboard/ in a wheel


class CoresOptionalInWheel(build_ext):
    """In place: fail when a core does not build (make reports it). For a wheel: leave the core out and warn."""

    def build_extension(self, ext: Extension) -> None:
        if self.inplace:
            super().build_extension(ext)
            return
        try:
            super().build_extension(ext)
        except Exception as exc:  # no compiler, no headers: the Python code runs instead, with the same results
            sys.stderr.write(f"warning: {ext.name} was not built ({exc}); its Python code will run instead\n")


class WithDashboard(build_py):
    """Copy the router and the pages into ``ui/_dashboard/`` of the build."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "ui" / "_dashboard"
        for name in DASHBOARD:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(name, target / name)


setup(
    ext_modules=[
        Extension(m, [src], extra_compile_args=FLAGS, depends=sorted(glob("scoring/*/*.h"))) for m, src in CORES.items()
    ],
    cmdclass={"build_ext": CoresOptionalInWheel, "build_py": WithDashboard},
)
