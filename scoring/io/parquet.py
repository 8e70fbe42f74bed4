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
    """The file opened with every text leaf kept dictionary-encoded, and the schema to decode them to.

    Every BYTE_ARRAY leaf counts, nested ones too (``col.list.element``, ``col.field``): a list, struct or
    string_view column can point every row at one 10 MB dictionary string as a top-level one can (788 bytes
    became 861 MB before the check below saw it).
    """
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(handle)
    schema = _plain_schema(parquet.schema_arrow)
    leaves = [column.path for column in parquet.schema if column.physical_type == "BYTE_ARRAY"]
    handle.seek(0)
    return pq.ParquetFile(handle, read_dictionary=leaves or None), schema


def _plain(kind: Any) -> Any:
    """``kind`` with dictionaries decoded and string/binary views read as plain strings/bytes, at any depth."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return _plain(kind.value_type)
    if pa.types.is_string_view(kind):
        return pa.string()
    if pa.types.is_binary_view(kind):
        return pa.binary()
    if pa.types.is_map(kind):
        return pa.map_(_plain(kind.key_type), _plain(kind.item_type))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        field = kind.value_field.with_type(_plain(kind.value_type))
        if pa.types.is_fixed_size_list(kind):
            return pa.list_(field, kind.list_size)
        return pa.large_list(field) if pa.types.is_large_list(kind) else pa.list_(field)
    if pa.types.is_struct(kind):
        return pa.struct([kind.field(i).with_type(_plain(kind.field(i).type)) for i in range(kind.num_fields)])
    return kind


def _plain_schema(schema: Any) -> Any:
    import pyarrow as pa

    return pa.schema([f.with_type(_plain(f.type)) for f in schema], metadata=schema.metadata)


def _row_group_sizes(parquet: Any) -> list[int]:
    meta = parquet.metadata
    return [meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)]


def _array_size(array: Any) -> int:
    """Characters (bytes) of an array's text once decoded, plus one a nested element, counted without decoding."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = array.type
    if pa.types.is_dictionary(kind):
        lengths = pc.binary_length(array.dictionary.cast(_plain(array.dictionary.type)))
        return int(pc.sum(pc.take(lengths, array.indices)).as_py() or 0) if _is_text(array.dictionary.type) else 0
    if _is_text(kind):
        return int(pc.sum(pc.binary_length(array.cast(_plain(kind)))).as_py() or 0)
    if pa.types.is_struct(kind):
        return sum(_array_size(array.field(i)) for i in range(kind.num_fields))
    if isinstance(array, (pa.ListArray, pa.LargeListArray, pa.FixedSizeListArray)):  # MapArray is a ListArray
        return len(array.values) + _array_size(array.values)
    return 0


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)
        or pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_binary_view(kind)
    )  # fmt: skip


def _text_size(table: Any) -> int:
    """Characters (bytes) of the table's text once decoded, at any depth, counted without decoding them."""
    return sum(_array_size(chunk) for column in table.columns for chunk in column.chunks)


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
