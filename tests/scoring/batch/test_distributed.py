"""Dask scale-out: a local cluster of two workers gives exactly the local results."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from scoring.batch.distributed import dask_client, iter_scored_dask, parse_address
from scoring.batch.runner import SummaryBuilder, iter_scored, make_spec
from scoring.cli.main import main
from scoring.io.loaders import iter_table_chunks

REPLIES = ["Thanks so much, happy to help!", "That is awful. Sorry!", "Fine. Whatever.", "Great news: it shipped."]


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    with dask_client(None, workers=2) as c:
        yield c


def _file(tmp_path: Path) -> Path:
    rows = 60
    df = pd.DataFrame(
        {
            "input": [f"Question {i}?" for i in range(rows)],
            "output": [REPLIES[i % 4] + f" Order {i}." if i != 5 else None for i in range(rows)],
        }
    )
    path = tmp_path / "replies.csv"
    df.to_csv(path, index=False)
    return path


def test_dask_results_equal_local_results(tmp_path: Path, client) -> None:  # type: ignore[no-untyped-def]
    path = _file(tmp_path)
    spec = make_spec(["input", "output"], scorers=["tone", "similarity"], engine="afinn")
    local = list(iter_scored(iter_table_chunks(path, chunksize=7), spec))
    remote = list(iter_scored_dask(iter_table_chunks(path, chunksize=7), spec, client))
    assert len(client.scheduler_info()["workers"]) == 2
    pd.testing.assert_frame_equal(pd.concat(c.table for c in local), pd.concat(c.table for c in remote))
    pd.testing.assert_frame_equal(pd.concat(c.skipped for c in local), pd.concat(c.skipped for c in remote))
    summaries = []
    for results in (local, remote):
        builder = SummaryBuilder(spec.scorers)
        for chunk in results:
            builder.add(chunk)
        summaries.append(builder.summary())
    pd.testing.assert_frame_equal(*summaries)


def test_cli_dask_address_gives_the_local_output(tmp_path: Path, client) -> None:  # type: ignore[no-untyped-def]
    path = _file(tmp_path)
    outputs = []
    for name, extra in (("local.csv", []), ("dask.csv", ["--dask", client.scheduler.address])):
        out = io.StringIO()
        code = main(
            ["evaluate", str(path), "--chunksize", "9", "--out", str(tmp_path / name), *extra],
            out=out,
            err=io.StringIO(),
        )
        assert code == 0
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("address", ["localhost:8786", "http://x:1", "tcp://"])
def test_parse_address_rejects_non_scheduler_addresses(address: str) -> None:
    with pytest.raises(ValueError, match="dask address must look like tcp://host:8786"):
        parse_address(address)
