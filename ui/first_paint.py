"""A page's first screen in two steps: the score first, the chart and the tabs once the browser has painted it.

The Tone page's chart needs plotly.js (Streamlit's ``PlotlyChart`` chunk, 4.7 MB), which the browser evaluates
for 2-4 s of main-thread time on a loaded 2-CPU machine; Streamlit's frontend commits a script run's elements
together, so the score waited for that evaluation (docs/benchmarks.md, issue 14). On a session's first run of
a page, :func:`painted` draws a tiny component instead of the rest: once the browser has painted the frame with
the score, its JavaScript tells the server, and that rerun draws the chart and the tabs under the score (the
same page, no click needed). Every later run draws everything at once.

Only a browser runs the component, so a client that is not Streamlit's web frontend (a script speaking the
websocket protocol, Streamlit's AppTest) gets the whole page in its first run: ``st.context.url`` is set only
by the web frontend.
"""

from __future__ import annotations

import streamlit as st

# After React has mounted the component (its run's elements are committed), the next animation frame is the one
# the browser paints them in; a task queued from that frame's callback runs once it has been painted.
_AFTER_PAINT_JS = """
export default function ({ setStateValue }) {
  requestAnimationFrame(() => setTimeout(() => setStateValue("painted", true), 0));
}
"""
_acknowledge = st.components.v2.component("tone_explorer_first_paint", js=_AFTER_PAINT_JS)


def _from_browser() -> bool:
    """Whether this run's client is Streamlit's web frontend (only it sends the page's URL)."""
    return st.context.url is not None


def painted(page: str) -> bool:
    """Whether ``page`` may draw the rest of its first screen now (the browser has painted what came before).

    False only on this session's first run of ``page`` in a browser: it then mounts the component that reruns
    the page once that run is painted, and the page should stop. True in every other run, so the page is whole
    after the next run even where the component never reports (its script blocked): any click or edit draws it.
    """
    if st.session_state.get(f"{page}.painted") or not _from_browser():
        return True
    st.session_state[f"{page}.painted"] = True  # only this run waits for the paint
    _acknowledge(key=f"{page}.first_paint")  # its state change reruns the page (no callback needed)
    return False
