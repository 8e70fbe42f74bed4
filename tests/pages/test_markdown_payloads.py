"""One table of hostile strings, shown as text on every page that shows user or file text (AppTest).

Streamlit renders markdown in st.markdown, captions, alerts (info/success/warning/error), labels and
help texts. Each page gets every payload of :data:`PAYLOADS` where a user or a file can put text (pasted
text, a reference, a file's name, its column names, its group values, its rows, an error naming them);
then every markdown string the page produced is checked by :func:`links`, which reads markdown as
Streamlit's renderer does: CommonMark links, images, autolinks and raw HTML in the source, then GFM's
autolink literals (``https://``, ``www.``, e-mail addresses) found in the text *after* its backslash
escapes are read. ``tests/browser/test_markdown_browser.py`` checks the same in Chromium.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from ui.markdown import WORD_JOINER, escape_markdown

ROOT = Path(__file__).resolve().parents[2]

PAYLOADS = {
    "markdown link": "[Session expired](https://attacker.example/login)",
    "markdown image": "![](https://attacker.example/track.png)",
    "reference link": "[Session expired][1] [1]: https://attacker.example/ref",
    "angle autolink": "<https://attacker.example/auto>",
    "bare URL": "see https://attacker.example/bare now",
    "www address": "visit www.attacker.example today",
    "e-mail": "write to phish@attacker.example",
    "mailto": "mailto:phish@attacker.example",
    "upper-case URL": "HTTP://ATTACKER.EXAMPLE/UP",
    "HTML link": "<a href='https://attacker.example/html'>x</a>",
    "HTML image": "<img src='https://attacker.example/img.png'>",
    "javascript link": "[go](javascript:alert(1))",
}
EVERYTHING = " ".join(f"{p} ." for p in PAYLOADS.values())

_ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")
_DIRECTIVE = re.compile(r":(?:green|red|gray|blue|orange|violet|rainbow)-(?:background|badge)\[|:[a-z]+\[")
_SOURCE_LINKS = ("](", "![", "][", "]:", "<")
# mdast-util-gfm-autolink-literal's patterns (what react-markdown + remark-gfm link in text nodes)
_URL_LITERAL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.IGNORECASE)
_EMAIL_LITERAL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)")


def links(markdown: str) -> list[str]:
    """What in ``markdown`` Streamlit would render as a link or an image (empty: it shows as text)."""
    bare = _DIRECTIVE.sub("", _ESCAPE.sub("", markdown))  # unescaped syntax, our own colour directives aside
    found = [s for s in _SOURCE_LINKS if s in bare]
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)  # the text once escapes are read
    found += [m.group(0) for m in _URL_LITERAL.finditer(text)] + [m.group(0) for m in _EMAIL_LITERAL.finditer(text)]
    return found


@pytest.mark.parametrize("payload", list(PAYLOADS.values()), ids=list(PAYLOADS))
def test_links_sees_the_raw_payload_and_not_the_escaped_one(payload: str) -> None:
    assert links(payload), "the checker would miss this payload"
    assert links(escape_markdown(payload)) == []
    assert escape_markdown(payload).replace(WORD_JOINER, "").replace("\\", "") == payload.replace("\\", "")


_PLAIN_ELEMENTS = {"Json", "Code", "Text", "Arrow", "PlotlyChart"}  # shown as text (or Plotly's escaped labels)


def _markdown_strings(proto: Any) -> Iterator[str]:
    """Every string a proto shows as markdown: bodies (markdown, captions, alerts), labels, help texts."""
    if proto.DESCRIPTOR.name in _PLAIN_ELEMENTS:
        return
    for descriptor, value in proto.ListFields():
        if descriptor.type == descriptor.TYPE_MESSAGE:
            for item in [value] if hasattr(value, "ListFields") else list(value):
                if hasattr(item, "ListFields"):  # (a map's keys are not markdown)
                    yield from _markdown_strings(item)
        elif descriptor.name in {"body", "label", "help"} and isinstance(value, str):
            yield value


def _tree(node: Any) -> Iterator[str]:
    proto = getattr(node, "proto", None)
    if proto is not None and hasattr(proto, "ListFields"):
        yield from _markdown_strings(proto)
    children = getattr(node, "children", {})
    for child in children.values() if isinstance(children, dict) else children:
        yield from _tree(child)


def _assert_shown_as_text(at: AppTest, *, expect: str = "attacker") -> None:
    assert not at.exception, [e.value for e in at.exception]
    shown = list(_tree(at._tree))
    assert any(expect in s.replace("\\", "").replace(WORD_JOINER, "") for s in shown), "the payload never showed"
    bad = {s[:160]: found for s in shown if (found := links(s))}
    assert not bad, bad


def _page(name: str, state: dict[str, Any]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def test_tone_page_shows_pasted_text_as_text() -> None:
    _assert_shown_as_text(_page("tone", {"tone.text": f"Great work. {EVERYTHING} Terrible delay."}))


def test_tone_page_shows_a_reference_as_text() -> None:
    state = {"tone.mode": "comparison", "tone.text": f"Fine. {EVERYTHING}", "tone.reference": EVERYTHING}
    _assert_shown_as_text(_page("tone", state))


def test_tone_page_shows_an_upload_error_naming_the_file_as_text() -> None:
    at = _page("tone", {})
    name = "[Session expired](https://attacker.example/login).txt"
    at.file_uploader(key="tone.upload").set_value((name, b"\x00binary", "text/plain")).run()
    assert at.error, "the upload was not refused"
    _assert_shown_as_text(at)


def test_similarity_page_shows_both_texts_as_text() -> None:
    state = {"similarity.input": EVERYTHING, "similarity.output": f"{EVERYTHING} and more www.attacker.example"}
    _assert_shown_as_text(_page("similarity", state))


def test_toxicity_page_shows_the_reply_and_the_reason_as_text() -> None:
    insult = "You are an idiot and " + " ".join(PAYLOADS.values())  # one toxic opinion: the reason quotes it
    state = {"toxicity.input": EVERYTHING, "toxicity.output": f"{insult}. {EVERYTHING}"}
    at = _page("toxicity", {**state, "toxicity.engine": "classifier"})  # its reason quotes the flagged opinion
    assert any("attacker" in m.value for m in at.markdown if m.value.startswith("**Why:**"))  # quoted in the reason
    _assert_shown_as_text(at)


def _batch(name: str, table: pd.DataFrame, state: dict[str, Any] | None = None) -> AppTest:
    at = _page("batch", {"batch.source": "file", **(state or {})})
    at.file_uploader(key="batch.upload").set_value((name, table.to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


GROUPS = list(PAYLOADS.values())[:6]


def _hostile_table() -> pd.DataFrame:
    rows = [(GROUPS[i % len(GROUPS)], f"Question {i // 2}", f"Thanks, that helps. {EVERYTHING}") for i in range(24)]
    return pd.DataFrame(rows, columns=["[model](https://attacker.example/col)", "input", "output"])


def test_batch_page_shows_file_name_columns_groups_and_verdicts_as_text() -> None:
    at = _batch("![](https://attacker.example/name.png).csv", _hostile_table())
    at.button(key="batch.run_button").click().run()
    at.selectbox(key="batch.ab.group").set_value("[model](https://attacker.example/col)").run()
    verdicts = [m.value for m in [*at.success, *at.info] if " minus " in m.value]
    assert len(verdicts) == 3, "one A/B verdict per score (tone, similarity) and warmth was expected"
    _assert_shown_as_text(at)


def test_batch_page_shows_an_error_naming_columns_as_text() -> None:
    table = pd.DataFrame({"[x](https://attacker.example/c1)": ["a"], "www.attacker.example": ["b"]})
    at = _batch("mail@attacker.example.csv", table, {"batch.scorers": ["similarity"]})
    at.selectbox(key="batch.col.output").set_value("[x](https://attacker.example/c1)").run()
    at.selectbox(key="batch.col.input").set_value("[x](https://attacker.example/c1)").run()  # the same column twice
    assert at.error, "the bad mapping was not reported"
    _assert_shown_as_text(at)


def test_batch_page_shows_a_file_error_naming_the_file_as_text() -> None:
    at = _page("batch", {"batch.source": "file"})
    name = "[Session expired](https://attacker.example/login).csv"
    at.file_uploader(key="batch.upload").set_value((name, b"", "text/csv")).run()
    assert at.error, "the empty file was not refused"
    _assert_shown_as_text(at)


def test_a_crafted_share_link_is_shown_as_text() -> None:
    """A link's values the page cannot use are quoted in a warning: as text, never as a link."""
    at = AppTest.from_file(str(ROOT / "pages" / "tone.py"), default_timeout=60)
    at.query_params["mode"] = "[Session expired](https://attacker.example/l)"
    at.query_params["engine"] = "www.attacker.example"
    at.run()
    assert any("Part of the link was not used" in w.value for w in at.warning)
    _assert_shown_as_text(at)
