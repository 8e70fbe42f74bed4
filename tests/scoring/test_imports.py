"""What ``import scoring`` brings along: the per-item API must not pay for pandas (or ever for the dashboard)."""

from __future__ import annotations

import json
import subprocess
import sys


def test_import_scoring_leaves_pandas_and_streamlit_unimported() -> None:
    """pandas costs about a second to import and 40,000 objects that every full garbage collection walks again.

    The per-item path (``create_*_scorer``, ``scorer.run``, ``run_evals``) does not need it; the batch path,
    charts and file loaders import it themselves.
    """
    probe = (
        "import json, sys, scoring\n"
        "scoring.create_tone_scorer().run(output='It was fine. Thanks!')\n"
        "scoring.create_content_similarity_scorer().run(input='a b', output='a c')\n"
        "print(json.dumps([m for m in ('pandas', 'streamlit', 'plotly') if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.splitlines()[-1]) == []


def test_fresh_curve_still_loads_pandas_when_asked() -> None:
    """The one function of the scorers' modules that returns a DataFrame imports pandas itself."""
    from scoring.toxicity.e5 import fresh_curve

    df = fresh_curve()
    assert list(df.columns) == ["threshold", "precision", "recall"]
