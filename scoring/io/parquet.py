"""Read Parquet within the read budget: metadata checked first, text columns counted before they are decoded.

Parquet pages are compressed and a dictionary page lets every row point at one long string, so a small
file may unfold without end. Before reading, the row groups' uncompressed sizes (from the footer) must fit
``TONE_EXPLORER_MAX_UNPACKED_MB`` and the cells ``TONE_EXPLORER_MAX_TABLE_CHARS``. Text columns are read
dictionary-encoded, their characters counted from the dictionary and the indices, and only then decoded.
A whole read counts the file; streaming counts each chunk, so the CLI's memory stays bounded per chunk
while a file of any number of rows is scored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Any

import pandas as pd

from scoring.io.budget import ReadBudget

__all__ = ["iter_parquet", "read_parquet"]


def _open(handle: IO[bytes]) -> tuple[Any, Any]:
    """The file opened with its text columns kept dictionary-encoded, and the schema to decode them to."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.ParquetFile(handle).schema_arrow
    text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    text += [f.name for f in schema if pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type)]
    handle.seek(0)
    return pq.ParquetFile(handle, read_dictionary=text or None), schema


def _row_group_sizes(parquet: Any) -> list[int]:
    meta = parquet.metadata
    return [meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)]


def _text_size(table: Any) -> int:
    """Characters (bytes) of the table's text columns once decoded, counted without decoding them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    total = 0
    for column in table.columns:
        for chunk in column.chunks:
            if pa.types.is_dictionary(chunk.type):
                lengths = pc.binary_length(chunk.dictionary)
                total += pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0
            elif (
                pa.types.is_string(chunk.type) or pa.types.is_binary(chunk.type) or pa.types.is_large_string(chunk.type)
            ):
                total += pc.sum(pc.binary_length(chunk)).as_py() or 0
    return int(total)


def _decoded(table: Any, schema: Any, budget: ReadBudget) -> pd.DataFrame:
    """Count the table against the budget, then decode its text columns to their own type and convert."""
    budget.spend(table.num_rows * max(table.num_columns, 1) + _text_size(table))
    frame: pd.DataFrame = table.cast(schema).to_pandas()
    return frame


def read_parquet(handle: IO[bytes], budget: ReadBudget) -> pd.DataFrame:
    """Read a whole Parquet file; refuse it (FileRefused) before it passes the budget."""
    parquet, schema = _open(handle)
    budget.check_unpacked(sum(_row_group_sizes(parquet)), "its row groups declare")
    cells = parquet.metadata.num_rows * max(parquet.metadata.num_columns, 1)
    if cells > budget.max_chars:  # refused on the footer alone (a column of a billion nulls is a few bytes)
        budget.spend(cells)
    return _decoded(parquet.read(), schema, budget)


def iter_parquet(handle: IO[bytes], chunksize: int, new_budget: Callable[[], ReadBudget]) -> Iterator[pd.DataFrame]:
    """Yield chunks of at most ``chunksize`` rows; each row group and each chunk is checked on its own budget."""
    import pyarrow as pa

    parquet, schema = _open(handle)
    budget = new_budget()
    for size in _row_group_sizes(parquet):
        budget.check_unpacked(size, "one of its row groups declares")
    if not parquet.metadata.num_rows:
        yield schema.empty_table().to_pandas()
        return
    for batch in parquet.iter_batches(batch_size=chunksize):
        yield _decoded(pa.Table.from_batches([batch]), schema, new_budget())
