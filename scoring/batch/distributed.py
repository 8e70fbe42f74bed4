"""Scale-out on Dask: the same chunk scoring as :func:`scoring.batch.runner.iter_scored`, on a cluster's workers.

Chunks are read here and sent to the workers (no shared file system needed); at most a few per
worker are in flight, so memory stays flat, and results come back in file order, so the output
equals a local run's exactly.

>>> from scoring.batch.distributed import parse_address
>>> parse_address("tcp://10.0.0.5:8786"), parse_address(None)
('tcp://10.0.0.5:8786', None)
"""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Generator, Iterable, Iterator
from typing import Any

import pandas as pd

from scoring.batch.rows import BatchSpec, ChunkResult
from scoring.batch.runner import Progress, scored_elsewhere, with_offsets
from scoring.errors import InputError

__all__ = ["dask_client", "iter_scored_dask", "parse_address"]

_ADDRESS_RE = re.compile(r"^(tcp|tls|ws|wss|inproc|ucx)://\S+$")


def parse_address(address: str | None) -> str | None:
    """Return ``address`` checked as a scheduler address like ``tcp://host:8786`` (None: a local cluster)."""
    if address is None or address == "local":
        return None
    if not isinstance(address, str) or not _ADDRESS_RE.match(address):
        raise InputError(f"dask address must look like tcp://host:8786 (omit it for a local cluster); got {address!r}.")
    return address


@contextlib.contextmanager
def dask_client(address: str | None = None, *, workers: int = 2) -> Iterator[Any]:
    """Yield a ``distributed.Client``: to ``address``, or to a new local cluster of ``workers`` processes."""
    try:
        dd: Any = importlib.import_module("distributed")  # untyped package
    except ImportError as exc:  # pragma: no cover - dask is pinned in requirements.txt
        raise InputError("Dask is not installed: pip install 'tone-explorer[dask]' (or dask distributed).") from exc
    if (address := parse_address(address)) is not None:
        try:
            client = dd.Client(address, timeout="10s")
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
        with client:
            yield client
        return
    with (
        dd.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        dd.Client(cluster) as client,
    ):
        yield client


def iter_scored_dask(
    chunks: Iterable[pd.DataFrame],
    spec: BatchSpec,
    client: Any,
    *,
    on_progress: Progress | None = None,
    total: int = 0,
) -> Generator[ChunkResult, None, None]:
    """Score chunks on the cluster behind ``client``; yield results in order, as ``iter_scored`` does."""
    done = 0
    for result in _in_order(chunks, spec, client):
        done += len(result.table)
        if on_progress is not None:
            on_progress(done, max(total, done))
        yield result


def _in_order(chunks: Iterable[pd.DataFrame], spec: BatchSpec, client: Any) -> Iterator[ChunkResult]:
    in_flight = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    return scored_elsewhere(lambda fn, job: client.submit(fn, job, pure=False), with_offsets(chunks, spec), in_flight)
