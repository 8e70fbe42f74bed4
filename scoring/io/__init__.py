"""Files in and out: loaders, encodings, column guessing, exports, atomic writes and the HTML report."""

from scoring.io.columns import ColumnMap, guess_columns
from scoring.io.export import FORMATS, export_bytes, write_export
from scoring.io.loaders import ACCEPTED, iter_table_chunks, read_table

__all__ = [
    "ACCEPTED",
    "FORMATS",
    "ColumnMap",
    "export_bytes",
    "guess_columns",
    "iter_table_chunks",
    "read_table",
    "write_export",
]
