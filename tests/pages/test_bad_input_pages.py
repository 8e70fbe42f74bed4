"""Every page given bad input: a clear st.error / st.warning / st.info, never an exception, never raw HTML.

Text pages get the library's bad-text table (tests/scoring/test_bad_input.py); the Batch page gets the
bad-file table (tests/scoring/bad_files.py) plus files over the upload and row limits. A static check
keeps ``unsafe_allow_html`` (and ``st.html``) away from anything but string literals, and a hostile
payload shows that user text reaches markdown escaped.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from scoring.text.embeddings import encoder_available
from tests.pages.conftest import plain, score_cards
from tests.scoring.bad_files import FILE_CASES, HOSTILE_CASES, FileCase, HostileCase
from tests.scoring.test_bad_input import CASES, Case

ROOT = Path(__file__).resolve().parents[2]
UI_FILES = sorted([*ROOT.glob("*.py"), *ROOT.glob("pages/*.py")])
#: Static strings allowed through unsafe_allow_html / st.html, as (file, literal start). None today.
ALLOWED_STATIC_HTML: set[tuple[str, str]] = set()

# Lone surrogates cannot come from a browser: widget values travel as protobuf UTF-8, which replaces them.
TEXT_CASES = [c for c in CASES if isinstance(c.value, str) and c.name != "unpaired surrogates"]
PAYLOAD = (
    "<img src=x onerror=alert(1)><script>alert(2)</script> ![t](http://evil.example/t.png) [go](javascript:alert(3))"
)


def _html_sinks(source: str) -> list[tuple[int, str]]:
    """Calls that render HTML (unsafe_allow_html truthy, st.html, components.html) with a non-literal argument."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        flag = next((k.value for k in node.keywords if k.arg == "unsafe_allow_html"), None)
        unsafe = flag is not None and not (isinstance(flag, ast.Constant) and flag.value is False)
        named_html = isinstance(node.func, ast.Attribute) and node.func.attr == "html"
        if unsafe or named_html:
            args = [*node.args, *(k.value for k in node.keywords if k.arg in {"body", "html"})]
            literal = all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args)
            text = str(args[0].value)[:40] if literal and args else ast.unparse(node)[:80]  # type: ignore[attr-defined]
            found.append((node.lineno, text if literal else f"NON-LITERAL {text}"))
    return found


def test_the_html_sink_check_flags_user_text() -> None:
    bad = "import streamlit as st\nst.markdown(user, unsafe_allow_html=True)\nst.html(f'<b>{x}</b>')\n"
    assert [t.startswith("NON-LITERAL") for _, t in _html_sinks(bad)] == [True, True]
    assert _html_sinks("st.markdown(text)\nst.markdown('<b>x</b>', unsafe_allow_html=False)\n") == []


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_user_text_is_rendered_as_html(path: Path) -> None:
    sinks = _html_sinks(path.read_text(encoding="utf-8"))
    assert not [s for s in sinks if s[1].startswith("NON-LITERAL")], sinks
    assert {(path.name, text) for _, text in sinks} <= ALLOWED_STATIC_HTML, sinks


def _page(name: str, state: dict[str, Any]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def _messages(at: AppTest) -> list[str]:
    return [plain(e.value) for e in [*at.error, *at.warning, *at.info]]


# The one right outcome of each bad text on each page, as (kind, messages, shown score):
# "score": the score and no error or warning; "warning": the score and each of those warnings; "info": no
# score, a prompt to paste text; "error": no score, that error. A shown score of "" is any one value.
# Cases not listed are a plain score.
FEW = "there is not enough text to measure it"  # stability of fewer than two sentences with words
PAGE_OUTCOMES: dict[str, dict[str, tuple[str, tuple[str, ...], str]]] = {
    "tone": {
        "empty": ("info", ("Paste a response",), ""),
        "whitespace only": ("info", ("Paste a response",), ""),
        "one character": ("warning", (FEW,), "—"),
        "emoji only": ("warning", (FEW,), "—"),
        "control characters": ("warning", (FEW,), "—"),
        "all punctuation": ("warning", (FEW,), "—"),
        "right-to-left": ("warning", ("output looks like Persian",), "—"),  # VADER read none of it: not measured
        "mixed scripts": ("warning", ("output looks like", FEW), "—"),
    },
    "similarity": {
        "empty": ("info", ("Paste both texts",), ""),
        "whitespace only": ("info", ("Paste both texts",), ""),
    },
    "toxicity": {
        "empty": ("info", ("Paste a reply",), ""),
        "whitespace only": ("info", ("Paste a reply",), ""),
        # e5, the default where its wheel loads: its defaults were not measured on Arabic or Hebrew
        **({"right-to-left": ("warning", ("Language(s) not measured: ar, he",), "")} if encoder_available() else {}),
    },
}
SCORE_LABELS = {"tone": "Tone score", "similarity": "Dice similarity", "toxicity": "Toxicity score"}


def _check_text_page(at: AppTest, case: Case, page: str) -> None:
    assert not at.exception, [e.value for e in at.exception]
    if isinstance(case.expect, type):
        kind, texts, shown = "error", (case.match,), ""
    else:
        kind, texts, shown = PAGE_OUTCOMES[page].get(case.name, ("score", (), ""))
    scores = [value for label, value in score_cards(at).items() if label == SCORE_LABELS[page]]
    errors, warnings, infos = ([plain(e.value) for e in found] for found in (at.error, at.warning, at.info))
    found = {"warning": warnings, "info": infos, "error": errors}.get(kind, [])
    assert all(any(t in m for m in found) for t in texts), (kind, texts, errors, warnings, infos)
    if kind in ("score", "warning"):
        assert len(scores) == 1 and not errors and (kind == "warning" or not warnings), (scores, errors, warnings)
        assert not shown or scores[0] == shown, scores
    else:
        assert not scores and not (warnings if kind == "info" else []), (scores, warnings)


@pytest.mark.parametrize("case", TEXT_CASES, ids=lambda c: c.name)
def test_tone_page_bad_text(case: Case) -> None:
    _check_text_page(_page("tone", {"tone.text": case.value}), case, "tone")


@pytest.mark.parametrize("case", TEXT_CASES, ids=lambda c: c.name)
def test_similarity_page_bad_text(case: Case) -> None:
    at = _page("similarity", {"similarity.input": case.value, "similarity.output": "Thanks for the help."})
    _check_text_page(at, case, "similarity")


@pytest.mark.parametrize("case", TEXT_CASES, ids=lambda c: c.name)
def test_toxicity_page_bad_text(case: Case) -> None:
    _check_text_page(_page("toxicity", {"toxicity.output": case.value}), case, "toxicity")


def _markdown_bodies(node: Any) -> list[tuple[str, bool]]:
    proto = getattr(node, "proto", None)
    found = [(proto.body, proto.allow_html)] if proto is not None and hasattr(proto, "allow_html") else []
    children = getattr(node, "children", {})
    for child in children.values() if isinstance(children, dict) else children:
        found += _markdown_bodies(child)
    return found


@pytest.mark.parametrize(
    ("page", "state"),
    [
        ("tone", {"tone.text": f"Great work. {PAYLOAD} Terrible delay."}),
        ("tone", {"tone.mode": "comparison", "tone.text": "Fine.", "tone.reference": PAYLOAD}),
        ("similarity", {"similarity.input": PAYLOAD, "similarity.output": f"{PAYLOAD} and more"}),
        ("toxicity", {"toxicity.input": PAYLOAD, "toxicity.output": f"You are an idiot. {PAYLOAD}"}),
    ],
)
def test_hostile_markup_in_user_text_is_shown_escaped(page: str, state: dict[str, str]) -> None:
    at = _page(page, state)
    assert not at.exception, [e.value for e in at.exception]
    bodies = _markdown_bodies(at._tree)
    assert bodies, "the page rendered no markdown at all"
    for body, allow_html in bodies:
        assert not (allow_html and ("<img" in body or "<script" in body)), body[:200]
        for raw in ("![t](http://evil.example", "[go](javascript:", "<img src=x", "<script>"):
            assert raw not in body, f"unescaped user markup in markdown: {body[:200]!r}"


def _batch_upload(name: str, data: bytes) -> AppTest:
    at = _page("batch", {"batch.source": "file"})
    at.file_uploader(key="batch.upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


# Files that read but cannot run as they are: the page asks for the response column (never takes the first).
ASKS = {
    "no usable text column": "output: no column is named like the responses, and none holds text (numbers, IDs or "
    "short labels only). Choose one.",
    "duplicate column names": "output: 'output' or 'output.1' (the file names the same column more than once)? "
    "Choose one.",
}
PARTIAL = {
    "row shorter than the header": "tone-scorer: 1 of 2 rows not scored (output column 'output' is empty): row 2"
}


@pytest.mark.parametrize("case", FILE_CASES, ids=lambda c: c.case)
def test_batch_page_bad_files(case: FileCase) -> None:
    at = _batch_upload(case.filename, case.data)
    errors = [plain(e.value) for e in at.error]
    if case.loads is None:
        assert any(e.startswith(f"{case.filename}: ") and case.message in e for e in errors), errors
        return
    if case.loads == 0:
        assert any(f"{case.filename} has no data rows" in e for e in errors), errors
        return
    assert not errors and any(f"· {case.loads:,} rows ·" in c.value for c in at.caption)
    if case.case in ASKS:
        warnings = [w.value.replace("\\", "") for w in at.warning]
        assert warnings == [f"**Choose the columns before scoring.** {ASKS[case.case]}"], warnings
        assert at.button(key="batch.run_button").disabled
        return
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error and len(at.metric) == 2 and "–" not in [m.value for m in at.metric]
    if case.case in PARTIAL:
        assert [w for w in map(plain, (w.value for w in at.warning)) if PARTIAL[case.case] in w], at.warning
    else:
        banners = [b.value for b in [*at.success, *at.info] if b.value.startswith("All ")]
        done = f"All {case.loads:,} rows were scored by every scorer"
        notes = [w.value for w in at.warning if "Not enough text" in w.value or "English" in w.value]
        assert banners == [f"{done}; read the notes below before the numbers." if notes else f"{done}."], banners


@pytest.mark.parametrize(
    "case",
    [c for c in HOSTILE_CASES if c.case in {"zip renamed .csv", "stray NUL in a cell", "GB18030 CSV",
                                            "Excel, three sheets (one empty, one hidden)"}],
    ids=lambda c: c.case,
)  # fmt: skip
def test_batch_page_says_what_the_reader_did_with_a_hostile_file(case: HostileCase) -> None:
    at = _batch_upload(case.filename, case.data)
    if case.loads is None:
        assert any(plain(e.value).startswith(f"{case.filename}: ") and case.message in plain(e.value) for e in at.error)
    else:
        assert any(f"· {case.loads:,} rows ·" in c.value for c in at.caption)
        assert any(case.warning in plain(w.value) for w in at.warning), [w.value for w in at.warning]


def test_batch_page_file_over_the_upload_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamlit's uploader refuses it in the browser; the page checks again (AppTest bypasses the browser)."""
    monkeypatch.setenv("STREAMLIT_SERVER_MAX_UPLOAD_SIZE", "1")
    at = _batch_upload("big.csv", b"output\n" + b"A reply that is fine.\n" * 60_000)
    assert any("big.csv is 1.3 MB; files up to 1 MB are accepted" in plain(e.value) for e in at.error), [
        e.value for e in at.error
    ]


def test_batch_page_a_million_rows_is_refused_with_the_limit_named() -> None:
    at = _batch_upload("million.csv", b"output\n" + b"ok\n" * 1_000_000)
    message = "million.csv has 1,000,000 rows; one run scores at most 100,000: split the file, or score it with"
    assert any(message in plain(e.value) for e in at.error), [e.value for e in at.error]
    assert not any("TONE_EXPLORER" in plain(e.value) for e in at.error)  # the page speaks to its user


def test_batch_page_refuses_a_row_of_a_million_commas_and_lives_on() -> None:
    """Issue 28: the server process died (std::bad_alloc) inside pandas, ending every visitor's session."""
    from tests.scoring.io.test_unfolding_files import million_commas

    at = _batch_upload("commas.csv", million_commas())
    errors = [plain(e.value) for e in at.error]
    refused = "commas.csv: the first data row has more fields than the header's 2"
    assert any(e.startswith(refused) for e in errors), errors
    at.file_uploader(key="batch.upload").set_value(("ok.csv", b"input,output\nq,Fine thanks.\n", "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert any("· 1 row" in c.value for c in at.caption), [c.value for c in at.caption]
