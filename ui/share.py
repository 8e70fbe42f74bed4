"""Share a page by its address: the Tone and Similarity pages' texts and settings as URL query parameters.

On a page's first run in a session the parameters (if any) are read into session state, before its widgets
exist; on every run the current values are written back with ``st.query_params``, so the address bar is
always a link that reopens the same text and settings. A text longer than :data:`MAX_SHARED_CHARS` is left
out of the link (a link that cut it short would reopen another text with another score), and the page says so.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import streamlit as st

from scoring.registry import TONE
from ui.markdown import escape_markdown
from ui.state import SPLITTER_LABELS

__all__ = ["MAX_SHARED_CHARS", "SHARED", "Shared", "params_to_state", "read_link", "state_to_params", "write_link"]

MAX_SHARED_CHARS = 2_000
"""The longest text a link carries: with URL escaping up to ~18,000 characters, under what browsers,
proxies and chat apps keep (many servers stop at 8 KB of request line; 2,000 plain characters stay well
under it; non-ASCII letters take 6-9 characters each once escaped)."""


@dataclass(frozen=True, slots=True)
class Shared:
    """One value a page shares: its query parameter, its session-state key, and what it may be."""

    param: str
    key: str
    choices: Collection[str] = ()  # allowed values for a choice (a live table, e.g. the engines); () for free text
    flag: bool = False  # a toggle, written "1"/"0"


SHARED: dict[str, tuple[Shared, ...]] = {
    "tone": (
        Shared("text", "tone.text"),
        Shared("mode", "tone.mode", ("stability", "comparison")),
        Shared("ref", "tone.reference"),
        Shared("engine", "tone.engine", TONE.engines.keys()),
        Shared("split", "tone.splitter", tuple(SPLITTER_LABELS)),
        Shared("compare", "tone.compare_engines", flag=True),
    ),
    "similarity": (
        Shared("a", "similarity.input"),
        Shared("b", "similarity.output"),
        Shared("case", "similarity.ignore_case", flag=True),
        Shared("ws", "similarity.ignore_whitespace", flag=True),
    ),
}

_FLAGS = {"1": True, "0": False, "true": True, "false": False}


def params_to_state(page: str, params: Mapping[str, str]) -> tuple[dict[str, object], list[str]]:
    """Return the session-state values a link's ``params`` set on ``page``, and what was ignored and why.

    >>> state, problems = params_to_state("tone", {"text": "Hi!", "engine": "bert", "compare": "1"})
    >>> state
    {'tone.text': 'Hi!', 'tone.compare_engines': True}
    >>> problems
    ["the link's engine 'bert' is not one of vader, afinn, e5, e5-lite"]
    """
    state: dict[str, object] = {}
    ignored: list[str] = []
    for item in SHARED[page]:
        if item.param not in params:
            continue
        raw = str(params[item.param])
        if item.flag:
            if raw.lower() not in _FLAGS:
                ignored.append(f"the link's {item.param} {raw[:40]!r} is not 1 or 0")
                continue
            state[item.key] = _FLAGS[raw.lower()]
        elif item.choices and raw not in item.choices:
            ignored.append(f"the link's {item.param} {raw[:40]!r} is not one of {', '.join(item.choices)}")
        else:
            state[item.key] = raw
    return state, ignored


def state_to_params(page: str, state: Mapping[str, object]) -> tuple[dict[str, str], list[str]]:
    """Return the query parameters for ``page``'s current values, and the texts left out for their length.

    >>> state_to_params("similarity", {"similarity.input": "a", "similarity.output": "b" * 2_001,
    ...                                "similarity.ignore_case": True, "similarity.ignore_whitespace": False})
    ({'a': 'a', 'case': '1', 'ws': '0'}, ['b'])
    """
    params: dict[str, str] = {}
    too_long: list[str] = []
    for item in SHARED[page]:
        value = state.get(item.key)
        if value is None:
            continue
        if item.flag:
            params[item.param] = "1" if value else "0"
        elif len(str(value)) > MAX_SHARED_CHARS:
            too_long.append(item.param)
        else:
            params[item.param] = str(value)
    return params, too_long


def read_link(page: str) -> None:
    """Copy a link's values into session state on the page's first run in this session (call before its widgets)."""
    if st.session_state.get(f"share.read.{page}"):
        return
    st.session_state[f"share.read.{page}"] = True
    found, ignored = params_to_state(page, {k: st.query_params[k] for k in st.query_params})
    for key, value in found.items():
        st.session_state[key] = value
    if ignored:
        st.session_state[f"share.ignored.{page}"] = ignored


def write_link(page: str, labels: Mapping[str, str]) -> None:
    """Write the page's current values to the address bar and say what the link holds.

    ``labels`` names the texts for the note (e.g. ``{"text": "response"}``).
    """
    params, too_long = state_to_params(page, st.session_state)
    if dict(st.query_params) != params:
        st.query_params.from_dict(params)
    if ignored := st.session_state.get(f"share.ignored.{page}"):
        # Kept on every run until the user dismisses it (it once vanished with the page's next run, a second
        # later). The link's own values are quoted: a crafted link must not put a link or an image on the page.
        note, dismiss = st.columns([12, 1], vertical_alignment="center")
        note.warning(
            escape_markdown(f"Part of the link was not used: {'; '.join(ignored)}. The defaults are shown instead.")
        )
        if dismiss.button("OK", key=f"share.dismiss.{page}", help="Hide this note."):
            del st.session_state[f"share.ignored.{page}"]
            st.rerun()
    if too_long:
        names = " and ".join(labels.get(p, p) for p in too_long)
        st.caption(
            f":material/link: The address bar links to these settings, but not to the {names}: a link carries "
            f"texts of up to {MAX_SHARED_CHARS:,} characters. Share the text itself."
        )
    else:
        st.caption(":material/link: The address bar links to this text and these settings: copy it to share them.")
