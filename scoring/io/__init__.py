"""Files in and out: loaders, encodings (and an uploaded text file), column guessing, exports, atomic writes.

A leaf of the feature rooms: it imports only ``scoring.limits`` (the HTML report of a run is ``scoring.batch.report``).
"""

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
