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
    FileCase(
        "row longer than the header",
        "long.csv",
        b"input,output\nq,a\nq,a,extra\n",
        None,
        "line 3 has 3 fields where the header names 2",
    ),
    FileCase("row shorter than the header", "short.csv", b"input,output,reference\nq,a\nq2\n", 2),
    FileCase("duplicate column names", "dupes.csv", b"output,output,input\na,b,q\n", 1),
    FileCase("quoted newlines and quotes", "quoted.csv", b'input,output\nq,"line one\nline ""two"""\n', 1),
    FileCase("UTF-16 with BOM", "utf16.csv", "input\toutput\nq\tcafé\n".encode("utf-16"), 1),
    FileCase("Windows-1252", "win.csv", "input;output\nq;naïve “quotes”\n".encode("cp1252"), 1),
    FileCase(
        "unclosed quote",
        "unclosed.csv",
        b'input,output\nq,"never closed\n',
        None,
        "a double quote opened a text that is never closed",
    ),
]
MIXED_ENCODINGS = "input,output\nq,café ok\n".encode() + "q2,naïve\n".encode("cp1252")


# --- Hostile files (issue 10): small files that unfold, nest or hide rows, and legacy encodings ----------------

_XLSX_PARTS = {
    "[Content_Types].xml": b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
    b'package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    b'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
    b'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    b'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.'
    b'spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/'
    b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
    "_rels/.rels": b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
    b'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
    b'2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    "xl/workbook.xml": b'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/'
    b'spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    b'<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels": b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
    b'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.'
    b'org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" '
    b'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" '
    b'Target="sharedStrings.xml"/></Relationships>',
}


def shared_string_bomb(rows: int = 1000, size: int = 10_000_000) -> bytes:
    """A ~13 KB .xlsx whose one shared string of ``size`` characters is the cell of every row (10 GB read)."""
    import zipfile

    sheet = [b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
             b'spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row>']  # fmt: skip
    sheet += [b'<row r="%d"><c r="A%d" t="s"><v>1</v></c></row>' % (i, i) for i in range(2, rows + 2)]
    sheet.append(b"</sheetData></worksheet>")
    strings = b'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
    strings += b'2006/main" count="2" uniqueCount="2"><si><t>output</t></si><si><t>' + b"a" * size + b"</t></si></sst>"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, part in {**_XLSX_PARTS, "xl/worksheets/sheet1.xml": b"".join(sheet),
                           "xl/sharedStrings.xml": strings}.items():  # fmt: skip
            archive.writestr(name, part)
    return buffer.getvalue()


def parquet_dictionary_bomb(rows: int = 1000, size: int = 10_000_000) -> bytes:
    """A ~1 KB Parquet file: a dictionary page holding one string of ``size`` characters, used by every row."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    indices = pa.array([0] * rows, pa.int32())
    table = pa.table({"input": pa.DictionaryArray.from_arrays(indices, pa.array(["q"])),
                      "output": pa.DictionaryArray.from_arrays(indices, pa.array(["a" * size]))})  # fmt: skip
    buffer = io.BytesIO()  # no Arrow schema stored: readers decode the column to plain strings
    pq.write_table(table, buffer, compression="zstd", dictionary_pagesize_limit=1 << 30, store_schema=False)
    return buffer.getvalue()


def parquet_plain(rows: int, size: int) -> bytes:
    """A Parquet file of ``rows`` plain (not dictionary) strings of ``size`` characters, zstd-compressed."""
    buffer = io.BytesIO()
    frame = pd.DataFrame({"output": ["b" * size] * rows})
    frame.to_parquet(buffer, compression="zstd", index=False, use_dictionary=False)
    return buffer.getvalue()


def workbook(sheets: dict[str, pd.DataFrame], hidden: tuple[str, ...] = ()) -> bytes:
    """An .xlsx with one sheet per entry (an empty frame makes an empty sheet); ``hidden`` sheets are hidden."""
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        for name, frame in sheets.items():
            frame.to_excel(writer, sheet_name=name, index=False, header=not frame.empty)
        for name in hidden:
            writer.book[name].sheet_state = "hidden"
    return buffer.getvalue()


def zip_of_csv() -> bytes:
    """A zip archive holding a CSV (what a .zip renamed .csv looks like)."""
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("replies.csv", "input,output\nq,Thanks!\n")
    return buffer.getvalue()


def deep_json(depth: int = 100_000) -> bytes:
    """One JSON Lines record whose value nests ``depth`` lists."""
    return b'{"output": ' + b"[" * depth + b"]" * depth + b"}\n"


#: Replies in legacy encodings: (encoding, how the reader names it, text). Long enough to tell apart.
LEGACY_TEXTS = [
    ("gb18030", "GB18030", "你好,谢谢你的帮助，我们很高兴为您服务。\n请问,订单已经发货了，请耐心等待。\n"),
    ("euc_kr", "EUC-KR", "안녕하세요,도와주셔서 감사합니다. 주문이 발송되었습니다.\n질문,배송은 내일 도착합니다.\n"),
    ("koi8_r", "KOI8-R", "Привет,Спасибо за помощь! Ваш заказ уже отправлен.\nВопрос,Доставка будет завтра.\n"),
    (
        "shift_jis",
        "Shift-JIS",
        "こんにちは,ご注文ありがとうございます。商品は明日届きます。\n質問,申し訳ありません、遅れています。\n",
    ),
    ("cp1251", "Windows-1251", "Привет,Спасибо за помощь! Ваш заказ уже отправлен.\nВопрос,Доставка будет завтра.\n"),
    ("big5", "Big5", "你好,謝謝你的幫助，我們很高興為您服務。\n請問,訂單已經發貨了，請耐心等待。\n"),
]


def _legacy(encoding: str, text: str) -> bytes:
    return ("input,output\n" + text).encode(encoding)


@dataclass(frozen=True)
class HostileCase(FileCase):
    warning: str = ""  # a phrase the reader's warning (df.attrs["warnings"], CLI stderr, page) must contain


# The bombs (shared_string_bomb, parquet_dictionary_bomb) are not in this table: read in-process by a reader
# that lost its limits they would take the machine's memory (over 20 GB). test_hostile_files runs them in a
# subprocess under an address-space cap.
_ONE = pd.DataFrame({"input": ["q1"], "output": ["Thanks, it arrived."]})
_TWO = pd.DataFrame({"input": ["q2", "q3"], "output": ["You are an idiot.", "Useless answer."]})
HOSTILE_CASES = [
    HostileCase("zip renamed .csv", "data.csv", zip_of_csv(), None, "it is a zip archive, not an Excel workbook"),
    HostileCase("JSON nested 100,000 deep", "deep.jsonl", deep_json(), None, "more than 64 levels deep"),
    HostileCase("JSON array nested 100,000 deep", "deep.json", b"[" + deep_json()[:-1] + b"]", None, "64 levels"),
    HostileCase(
        "stray NUL in a cell",
        "nul.csv",
        b"input,output\nq,fine\nq2,bro\x00ken\n",
        2,
        "",
        "holds the NUL character (\\x00) in 1 cell(s), kept as they are: row 2, column 'output'",
    ),
    HostileCase(
        "Excel, three sheets (one empty, one hidden)",
        "sheets.xlsx",
        workbook({"A": _ONE, "Empty": pd.DataFrame(), "B": _TWO}, hidden=("B",)),
        3,
        "",
        "read 2 of 3 sheets as one table: 'A' (row 1), 'B' (hidden, rows 2-3); skipped the empty sheet(s) 'Empty'",
    ),
    HostileCase(
        "Excel, sheets with different headers",
        "mixed.xlsx",
        workbook({"A": _ONE, "Notes": pd.DataFrame({"note": ["x"]})}),
        None,
        "its sheets have different headers",
    ),
    HostileCase(
        "Excel, one sheet",
        "one.xlsx",
        workbook({"Replies": _ONE}),
        1,
        "",
        "read sheet 'Replies' (row 1), the workbook's only sheet",
    ),
    *[
        HostileCase(f"{shown} CSV", f"{encoding}.csv", _legacy(encoding, text), 2, "", f"read as {shown}")
        for encoding, shown, text in LEGACY_TEXTS
    ],
]


def english_with_accents(encoding: str = "cp1252") -> bytes:
    """The 600 English VADER texts of tests/data, each with an accented word: what a Western CSV looks like.

    A real file's length matters: on it the detector measures a little less "mess" for Windows-1257 and
    more "coherence" for CP852 than for Windows-1252, differences that must count as noise.
    """
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "vader_sample.csv"
    with path.open(encoding="utf-8", newline="") as f:
        texts = [row["text"].replace('"', "") for row in csv.DictReader(f)]
    accents = ("café", "naïve", "déjà vu", "über", "señor")
    lines = [f'{i},"{text} {accents[i % len(accents)]}"\n' for i, text in enumerate(texts)]
    return ("id,output\n" + "".join(lines)).encode(encoding, "replace")
