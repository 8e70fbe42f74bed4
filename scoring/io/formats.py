"""The one table of file formats: which suffixes each is read from, how it is sniffed, how it is written.

The loader (:mod:`scoring.io.loaders`), the Batch page's uploader, the exports (:mod:`scoring.io.export`), the
CLI's ``--out`` and every "Accepted: ..." message read this table. To add a format: a row here, its reader in
the loader and, if it is written, its writer in the exports.

>>> ACCEPTED
'CSV/TSV (.csv, .tsv, .txt, .tab), JSON Lines (.jsonl, .ndjson, .json), Parquet (.parquet, .pq) or Excel (.xlsx, .xlsm)'
>>> UPLOAD_TYPES
['csv', 'tsv', 'txt', 'tab', 'jsonl', 'ndjson', 'json', 'parquet', 'pq', 'xlsx', 'xlsm']
>>> STREAMED, format_of_suffix(".PQ")
({'.csv': 'csv', '.jsonl': 'jsonl', '.parquet': 'parquet'}, 'parquet')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ACCEPTED",
    "EXPORTS",
    "FORMATS",
    "REFUSED",
    "REFUSED_MAGIC",
    "STREAMED",
    "UPLOAD_TYPES",
    "FileFormat",
    "format_of_suffix",
    "sniff_magic",
]


@dataclass(frozen=True, slots=True)
class FileFormat:
    """One table format."""

    name: str  #: the loader's name for it ("csv", "jsonl", "parquet", "excel")
    label: str  #: how messages name it ("CSV/TSV")
    suffixes: tuple[str, ...]  #: the suffixes it is read from, the one it is written with first
    #: leading bytes that say it is this format whatever its suffix (binary formats); a file with one of its
    #: suffixes but not these bytes is refused as "not a valid <suffix> file"
    magic: bytes = b""
    #: export name (``scoring.io.export.FORMATS``' key) and MIME type, where the dashboard's downloads write it
    export: str | None = None
    mime: str = ""
    streamed: bool = False  #: the CLI can write it chunk by chunk (``--out``)


FORMATS: tuple[FileFormat, ...] = (
    FileFormat("csv", "CSV/TSV", (".csv", ".tsv", ".txt", ".tab"), export="csv", mime="text/csv", streamed=True),
    FileFormat(
        "jsonl",
        "JSON Lines",
        (".jsonl", ".ndjson", ".json"),
        export="jsonl",
        mime="application/x-ndjson",
        streamed=True,
    ),
    FileFormat(
        "parquet",
        "Parquet",
        (".parquet", ".pq"),
        magic=b"PAR1",
        export="parquet",
        mime="application/vnd.apache.parquet",
        streamed=True,
    ),
    FileFormat(
        "excel",
        "Excel",
        (".xlsx", ".xlsm"),
        magic=b"PK\x03\x04",
        export="xlsx",
        mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
)
#: suffixes (or leading bytes) refused with a reason: old binary Excel
REFUSED: dict[str, str] = {".xls": "old binary Excel (.xls) files are not supported; save it as .xlsx"}
REFUSED_MAGIC: dict[bytes, str] = {b"\xd0\xcf\x11\xe0": REFUSED[".xls"]}

_BY_SUFFIX = {suffix: f for f in FORMATS for suffix in f.suffixes}
#: what every "Accepted: ..." message lists
ACCEPTED = (
    ", ".join(f"{f.label} ({', '.join(f.suffixes)})" for f in FORMATS[:-1])
    + f" or {FORMATS[-1].label} ({', '.join(FORMATS[-1].suffixes)})"
)
#: the suffixes the Batch page's uploader offers (without the dot, as ``st.file_uploader`` takes them)
UPLOAD_TYPES: list[str] = [s.lstrip(".") for f in FORMATS for s in f.suffixes]
#: export name -> (suffix, MIME type): the downloads and ``write_export``
EXPORTS: dict[str, tuple[str, str]] = {f.export: (f.suffixes[0], f.mime) for f in FORMATS if f.export}
#: ``--out`` suffix -> format: the formats the CLI writes chunk by chunk
STREAMED: dict[str, str] = {f.suffixes[0]: f.name for f in FORMATS if f.streamed}


def format_of_suffix(suffix: str) -> str | None:
    """Return the format read from files ending in ``suffix`` (any case), or None."""
    found = _BY_SUFFIX.get(suffix.lower())
    return found.name if found else None


def sniff_magic(head: bytes) -> FileFormat | None:
    """Return the binary format whose leading bytes ``head`` starts with, or None."""
    return next((f for f in FORMATS if f.magic and head.startswith(f.magic)), None)
