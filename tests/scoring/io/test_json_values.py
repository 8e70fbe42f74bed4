"""JSON values Python's reader handles quietly or in its own words (issue 28): a 5,000-digit integer, a key
given twice. Each is refused with the file and the line named, at the loader and at the CLI (exit 2)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from scoring.cli.main import main
from scoring.io.loaders import read_table

BIG = b"1" * 5_000
CASES = [
    ("big.jsonl", b'{"output": "ok"}\n{"output": "x", "n": ' + BIG + b"}\n",
     "line 2 holds an integer of more than 4,300 digits; write such a number as a string"),
    ("big.json", b'[{"output": ' + BIG + b"}]", "the JSON array holds an integer of more than 4,300 digits"),
    ("dup.jsonl", b'{"output": "kind", "output": "idiot"}\n',
     "line 1 names the key 'output' more than once in one object; each key must be given once"),
    ("dup.json", b'[{"output": "a", "meta": {"k": 1, "k": 2}}]', "the JSON array names the key 'k' more than once"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "data", "message"), CASES, ids=[c[0] for c in CASES])
def test_the_loader_names_the_file_and_the_line(name: str, data: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=r"^" + name.replace(".", r"\.") + ": ") as info:
        read_table(data, filename=name)
    assert message in str(info.value)


@pytest.mark.parametrize(("name", "data", "message"), CASES[::2], ids=[c[0] for c in CASES[::2]])
def test_the_cli_exits_2_with_one_line(name: str, data: bytes, message: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    code = main(["evaluate", str(path), "--scorers", "tone", "--no-progress"], out=out, err=err)
    assert code == 2 and err.getvalue() == f"error: {path}: {message}" + err.getvalue().split(message, 1)[1]
    assert err.getvalue().count("\n") == 1


def test_the_same_key_in_two_objects_is_fine() -> None:
    frame = read_table(b'{"output": "a", "meta": {"output": 1}}\n{"output": "b"}\n', filename="ok.jsonl")
    assert frame["output"].tolist() == ["a", "b"]
