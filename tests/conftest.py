"""Suite-wide: tests that drive a browser or a dashboard server run one after another on one xdist worker.

``make test`` runs pytest with ``-n`` workers and ``--dist loadgroup``; browser and load tests time what a
page shows, so they share the ``browser`` group (one worker, in turn) while the other workers run the rest.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every browser- or load-marked test in the ``browser`` xdist group."""
    for item in items:
        if item.get_closest_marker("browser") or item.get_closest_marker("load"):
            item.add_marker(pytest.mark.xdist_group("browser"))
