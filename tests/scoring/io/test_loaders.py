"""Loaders on awkward files: encodings, delimiters, quoting, ragged rows, empty and binary files."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from scoring.io.loaders import iter_table_chunks, read_table

ROWS = [["héllo, “world”", "q1"], ["second; row", "q2"]]


def _csv(delimiter: str, quote_all: bool = True) -> str:
    lines = [delimiter.join(["output", "input"])]
    lines += [delimiter.join(f'"{c}"' if quote_all else c for c in row) for row in ROWS]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("utf8.csv", _csv(",").encode("utf-8")),
        ("bom.csv", b"\xef\xbb\xbf" + _csv(",").encode("utf-8")),
        ("utf16.csv", _csv(";").encode("utf-16")),
        ("utf16le.csv", _csv("\t").encode("utf-16-le")),
        ("win.csv", _csv(";").encode("cp1252")),
        ("semicolon.csv", _csv(";").encode("utf-8")),
        ("tabs.tsv", _csv("\t", quote_all=False).encode("utf-8")),
        ("pipes.txt", _csv("|").encode("utf-8")),
        ("crlf.csv", _csv(",").replace("\n", "\r\n").encode("utf-8")),
    ],
)
def test_read_table_detects_encoding_and_delimiter(name: str, data: bytes) -> None:
    df = read_table(data, filename=name)
    assert list(df.columns) == ["output", "input"]
    assert df.to_numpy().tolist() == ROWS


def test_read_table_latin1_without_cp1252_bytes() -> None:
    df = read_table("output\ncafé crème\n".encode("latin-1"), filename="l1.csv")
    assert df["output"].tolist() == ["café crème"]


def test_read_table_keeps_quoted_newlines_and_text_exactly() -> None:
    df = read_table(b'id,output\n007,"line one\nline two"\n008,"say ""hi"""\n', filename="q.csv")
    assert df.to_numpy().tolist() == [["007", "line one\nline two"], ["008", 'say "hi"']]


def test_read_table_pads_short_rows_with_missing_cells() -> None:
    df = read_table(b"output,input,extra\nfine,q\n", filename="short.csv")
    assert df.loc[0, "output"] == "fine" and pd.isna(df.loc[0, "extra"])


@pytest.mark.parametrize("data", [b"output,input\na,b,c\n", b"output,input\na,b\na,b,c\n"])
def test_read_table_rejects_rows_longer_than_the_header(data: bytes) -> None:
    with pytest.raises(ValueError, match=r"long\.csv: .*(more fields|fields where the header names 2)"):
        read_table(data, filename="long.csv")


def test_read_table_renames_duplicate_columns() -> None:
    df = read_table(b"output,output\na,b\n", filename="dup.csv")
    assert list(df.columns) == ["output", "output.1"]


def test_read_table_header_only_gives_no_rows() -> None:
    df = read_table(b"output,input\n", filename="h.csv")
    assert list(df.columns) == ["output", "input"] and len(df) == 0


@pytest.mark.parametrize("data", [b"", b"  \n\n", b"\xef\xbb\xbf"])
def test_read_table_rejects_empty_file(data: bytes) -> None:
    with pytest.raises(ValueError, match=r"empty\.csv: the file is empty.*Accepted: CSV"):
        read_table(data, filename="empty.csv")


@pytest.mark.parametrize(
    "data", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), bytes(range(1, 32)) * 200]
)
def test_read_table_rejects_binary_renamed_csv(data: bytes) -> None:
    with pytest.raises(ValueError, match=r"image\.csv: the file is binary"):
        read_table(data, filename="image.csv")


def test_read_table_rejects_fake_parquet_and_xls() -> None:
    with pytest.raises(ValueError, match=r"x\.parquet: the file is not a valid \.parquet"):
        read_table(b"output\nhello\n", filename="x.parquet")
    with pytest.raises(ValueError, match=r"old binary Excel"):
        read_table(b"\xd0\xcf\x11\xe0" + bytes(100), filename="x.xls")


def test_read_table_jsonl_keeps_nested_messages_and_reports_bad_lines() -> None:
    data = b'{"output": [{"role": "assistant", "content": "hi"}], "n": 1}\n\n{"output": "yo"}\n'
    df = read_table(data, filename="r.jsonl")
    assert df["output"].tolist()[0] == [{"role": "assistant", "content": "hi"}] and len(df) == 2
    with pytest.raises(ValueError, match=r"r\.jsonl: line 2 is not valid JSON"):
        read_table(b'{"output": "a"}\n{oops\n', filename="r.jsonl")
    with pytest.raises(ValueError, match=r"line 1 must be a JSON object"):
        read_table(b'"just a string"\n', filename="r.jsonl")


def test_read_table_parquet_excel_from_path_bytes_and_file(tmp_path: Path) -> None:
    frame = pd.DataFrame({"output": ["a", "b"], "score": [1, 2]})
    frame.to_parquet(tmp_path / "t.parquet")
    frame.to_excel(tmp_path / "t.xlsx", index=False)
    for path in (tmp_path / "t.parquet", tmp_path / "t.xlsx"):
        pd.testing.assert_frame_equal(read_table(path), frame)
        pd.testing.assert_frame_equal(read_table(path.read_bytes(), filename=path.name), frame)
        with path.open("rb") as f:
            pd.testing.assert_frame_equal(read_table(f), frame)


def test_read_table_sniffs_format_without_extension() -> None:
    assert read_table(io.BytesIO(b'{"output": "x"}\n'), filename="upload")["output"].tolist() == ["x"]
    assert read_table(b"output;n\nx;1\n", filename="upload")["n"].tolist() == ["1"]


def test_parse_errors_say_what_to_do_not_the_parsers_words() -> None:
    with pytest.raises(ValueError) as caught:
        read_table(b"input,output\nq,a\nq,a,b,c\n", filename="long.csv")
    message = str(caught.value)  # before: "... (Error tokenizing data. C error: Expected 2 fields in line 3, saw 4)"
    assert "C error" not in message and "line 3 has 4 fields where the header names 2" in message
    assert "needs double quotes around it" in message
    with pytest.raises(ValueError) as caught:
        read_table(b"input,output\nq,a\n", filename="data.parquet")
    assert "first bytes" not in str(caught.value) and "b'" not in str(caught.value)  # no raw bytes


def test_read_table_missing_path_and_bad_source(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_table(tmp_path / "missing" / "file.csv")  # absent for sure, whatever the machine holds
    with pytest.raises(TypeError, match="source must be a path, bytes or a binary file"):
        read_table(42)  # type: ignore[arg-type]


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet", "xlsx"])
def test_iter_table_chunks_equals_read_table(tmp_path: Path, suffix: str) -> None:
    frame = pd.DataFrame({"output": [f"row {i}\nline" for i in range(11)], "input": ["q"] * 11})
    path = tmp_path / f"t.{suffix}"
    if suffix == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        {"csv": frame.to_csv, "parquet": frame.to_parquet, "xlsx": frame.to_excel}[suffix](path, index=False)
    chunks = list(iter_table_chunks(path, chunksize=4))
    assert [len(c) for c in chunks] == [4, 4, 3]
    assert [list(c.index) for c in chunks][-1] == [8, 9, 10]
    whole = pd.concat(chunks)
    pd.testing.assert_frame_equal(whole, read_table(path), check_dtype=False)
    assert whole["output"].tolist() == frame["output"].tolist()


def test_iter_table_chunks_gives_every_jsonl_chunk_every_column(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"output": "a"}\n{"output": "b", "model": "x"}\n{"output": "c", "late": 1}\n')
    assert {tuple(c.columns) for c in iter_table_chunks(path, chunksize=1)} == {("output", "model", "late")}


def test_iter_table_chunks_checks_chunksize(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="chunksize must be a positive integer"):
        next(iter_table_chunks(tmp_path / "x.csv", chunksize=0))


def _mixed(*lines: tuple[str, str]) -> bytes:
    """A file whose lines are each encoded as given: ("utf-8" | "cp1252", text)."""
    return b"".join(text.encode(encoding) + b"\n" for encoding, text in lines)


def test_mostly_utf8_file_is_decoded_line_by_line_and_the_other_lines_named() -> None:
    data = _mixed(("utf-8", "output,input"), ("utf-8", "café,q"), ("cp1252", "naïve “quotes”,q"),
                  ("utf-8", "über,q"), ("cp1252", "déjà,q"), ("utf-8", "plain,q"))  # fmt: skip
    df = read_table(data, filename="m.csv")
    assert df["output"].tolist() == ["café", "naïve “quotes”", "über", "déjà", "plain"]
    assert df.attrs["warnings"] == [
        "m.csv mixes text encodings: 2 line(s) are not UTF-8 and were read as Windows-1252 (the other lines are "
        "UTF-8): line 3, 5. Check the accents on those lines."
    ]


def test_mostly_cp1252_file_stays_cp1252_and_names_the_utf8_looking_lines() -> None:
    data = _mixed(("cp1252", "output"), ("cp1252", "naïve"), ("utf-8", "café"), ("cp1252", "déjà"))
    df = read_table(data, filename="w.csv")
    assert df["output"].tolist() == ["naïve", "cafÃ©", "déjà"]  # as the file says most of its lines are
    assert "1 line(s) look like UTF-8 but were read as Windows-1252" in df.attrs["warnings"][0]
    assert "line 3." in df.attrs["warnings"][0]


def test_utf8_files_carry_no_warning_and_legacy_ones_name_their_encoding() -> None:
    assert "warnings" not in read_table(_csv(",").encode("utf-8"), filename="x.csv").attrs
    for data in (_csv(";").encode("cp1252"), "output\ncafé\n".encode("latin-1")):
        assert read_table(data, filename="x.csv").attrs["warnings"] == [
            "x.csv is not UTF-8: it was read as Windows-1252 (detected from its bytes); check the text."
        ]


def test_a_byte_cp1252_leaves_undefined_falls_back_to_latin1_on_its_line() -> None:
    data = "output\ncafé\n".encode() + b"odd \x81 byte\n"
    assert read_table(data, filename="x.csv")["output"].tolist() == ["café", "odd \x81 byte"]


def test_mixed_encodings_stream_in_chunks_with_quoted_newlines(tmp_path: Path) -> None:
    rows = [("utf-8" if i % 3 else "cp1252", f'"réponse {i}\nsuite",q{i}') for i in range(1, 40)]
    path = tmp_path / "big.csv"
    path.write_bytes(_mixed(("utf-8", "output,input"), *rows))
    chunks = list(iter_table_chunks(path, chunksize=7))
    whole = pd.concat(chunks)
    assert whole["output"].tolist() == [f"réponse {i}\nsuite" for i in range(1, 40)]
    assert "13 line(s) are not UTF-8" in chunks[0].attrs["warnings"][0]
    assert all("warnings" not in c.attrs for c in chunks[1:])  # the file's warning comes once


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"output\nhello\n \nbye\n", ["hello", " ", "bye"]),
        (b"output\nhello\n\nbye\n", ["hello", None, "bye"]),
        (b"id,output\n1,hello\n\n2,bye\n", ["hello", None, "bye"]),
    ],
)
def test_blank_lines_stay_rows_so_nothing_is_dropped(data: bytes, expected: list[str | None]) -> None:
    column = read_table(data, filename="blank.csv")["output"]
    assert [None if pd.isna(v) else v for v in column] == expected
