"""Builds the compiled cores in place: ``python setup.py build_ext --inplace`` (``make run`` and ``make test`` do).

Each core is a C twin of hot Python code, loaded by ``scoring.native.load``. Where a core cannot be built (no
C compiler, no Python headers), the package warns once and runs the Python code, with the same results.
``-ffp-contract=off``: no fused multiply-add, so every float operation rounds as CPython's does.
"""

from glob import glob

from setuptools import Extension, setup

CORES: dict[str, str] = {  # module -> C source; scoring.native.load(module) imports it
    "scoring._untrack_core": "scoring/_untrack_core.c",
    "scoring.similarity._dice_core": "scoring/similarity/_dice_core.c",
    "scoring.text._language_core": "scoring/text/_language_core.c",
    "scoring.text._split_core": "scoring/text/_split_core.c",
    "scoring.tone._afinn_core": "scoring/tone/_afinn_core.c",
    "scoring.tone._vader_core": "scoring/tone/_vader_core.c",
}

FLAGS = ["-O2", "-ffp-contract=off"]

setup(
    name="tone-explorer",
    packages=[],
    ext_modules=[
        Extension(m, [src], extra_compile_args=FLAGS, depends=sorted(glob("scoring/*/*.h"))) for m, src in CORES.items()
    ],
)
