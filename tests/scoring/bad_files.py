"""The bad-file cases of the table in docs/reliability.md, shared by the loader/CLI suite and the Batch page suite.

``loads`` is the number of data rows the file reads as, or None when reading it must fail with a
ValueError naming the file and containing ``message``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import pandas as pd


def _xlsx() -> bytes:
    buffer = io.BytesIO()
    pd.DataFrame({"input": ["Where is it?"], "output": ["On its way, thanks!"]}).to_excel(buffer, index=False)
    return buffer.getvalue()


@dataclass(frozen=True)
class FileCase:
    case: str
    filename: str
    data: bytes
    loads: int | None
    message: str = ""


FILE_CASES = [
    FileCase("empty file", "empty.csv", b"", None, "the file is empty"),
    FileCase("only whitespace", "blank.csv", b"\n \r\n\t\n", None, "the file is empty"),
    FileCase("header only", "header.csv", b"input,output\n", 0),
    FileCase("no usable text column", "numbers.csv", b"id,score\n1,2\n3,4\n", 2),
    FileCase("binary renamed .csv", "photo.csv", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, None, "binary"),
    FileCase("old Excel renamed .csv", "old.csv", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), None, ".xls"),
    FileCase("CSV named .xlsx", "data.xlsx", b"input,output\nq,a\n", None, "not a valid .xlsx file"),
    FileCase("Excel named .csv", "data.csv", _xlsx(), 1),
    FileCase("JSON Lines named .txt", "data.txt", b'{"input": "q", "output": "a"}\n', 1),
    FileCase("broken JSON line", "data.jsonl", b'{"output": "a"}\n{"output": \n', None, "line 2 is not valid JSON"),
    FileCase("JSON escape of a lone surrogate", "half.jsonl", b'{"output": "bad \\ud800 half"}\n', None, "lone UTF-16"),
    FileCase("row longer than the header", "long.csv", b"input,output\nq,a\nq,a,extra\n", None, "Expected 2 fields"),
    FileCase("row shorter than the header", "short.csv", b"input,output,reference\nq,a\nq2\n", 2),
    FileCase("duplicate column names", "dupes.csv", b"output,output,input\na,b,q\n", 1),
    FileCase("quoted newlines and quotes", "quoted.csv", b'input,output\nq,"line one\nline ""two"""\n', 1),
    FileCase("UTF-16 with BOM", "utf16.csv", "input\toutput\nq\tcafé\n".encode("utf-16"), 1),
    FileCase("Windows-1252", "win.csv", "input;output\nq;naïve “quotes”\n".encode("cp1252"), 1),
    FileCase("unclosed quote", "unclosed.csv", b'input,output\nq,"never closed\n', None, "cannot parse it"),
]
MIXED_ENCODINGS = "input,output\nq,café ok\n".encode() + "q2,naïve\n".encode("cp1252")
