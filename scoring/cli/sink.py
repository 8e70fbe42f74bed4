"""The CLI's output file: chunk tables appended as CSV, JSON Lines or Parquet (cells via :mod:`scoring.io.export`)."""

from __future__ import annotations

from typing import IO, Any

import pandas as pd

from scoring.errors import InputError
from scoring.io.formats import STREAMED

__all__ = ["OUT_FORMATS", "Sink"]

OUT_FORMATS = STREAMED  # --out suffix -> format: the formats written chunk by chunk (scoring/io/formats.py)


class Sink:
    """Appends chunk tables to an open binary file as CSV, JSON Lines or Parquet (via scoring.io.export)."""

    def __init__(self, handle: IO[bytes], fmt: str, *, neutralise: bool) -> None:
        self.handle, self.fmt, self.neutralise = handle, fmt, neutralise
        self.columns: list[str] | None = None
        self.parquet: Any = None

    def write(self, table: pd.DataFrame) -> None:
        from scoring.io.export import to_csv_bytes, to_jsonl_bytes

        table = table.reset_index(drop=True)
        if self.columns is None:
            self.columns = [str(c) for c in table.columns]
        elif [str(c) for c in table.columns] != self.columns:
            raise InputError(f"a later chunk has columns {list(table.columns)}, the first had {self.columns}.")
        if self.fmt == "csv":
            data = to_csv_bytes(table, neutralise=self.neutralise)
            header = to_csv_bytes(table.iloc[:0], neutralise=self.neutralise)
            self.handle.write(data if self.handle.tell() == 0 else data[len(header) :])
        elif self.fmt == "jsonl":
            self.handle.write(to_jsonl_bytes(table))
        else:
            self._parquet(table)

    def _parquet(self, table: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from scoring.io.export import to_arrow_table

        chunk = to_arrow_table(table)  # the cells as export writes them, without a round trip through Parquet bytes
        if self.parquet is None:
            self.parquet = pq.ParquetWriter(self.handle, chunk.schema)
        try:
            self.parquet.write_table(chunk.cast(self.parquet.schema))
        except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError) as exc:
            raise InputError(f"column types change between chunks ({exc}); write .csv or .jsonl instead.") from exc

    def close(self) -> None:
        if self.parquet is not None:
            self.parquet.close()
