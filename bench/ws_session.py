"""A Streamlit session without a browser: the dashboard's own websocket protocol, as the frontend speaks it.

Used by bench/load.py to time the server alone (no page rendering): a session opens
``/_stcore/stream``, asks for the Tone page, then sends the text area's new value as a widget state and
reads the score from the score card (``ui.score_card``: two markdown elements, label then number) or, on trees
from before that card (``--baseline``), the st.metric the rerun sends back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from ui.widgets import SCORE_LABEL_PATTERN, SCORE_VALUE_PATTERN

SCORE_LABEL = "Tone score"


@dataclass
class Run:
    """What one script run sent: the scores (cards and metrics) by label, the tone text area's id, the Tone page's
    hash."""

    metrics: dict[str, str] = field(default_factory=dict)
    text_id: str | None = None
    page_hash: str | None = None
    exception: str | None = None


async def _run(ws: websockets.ClientConnection, back: BackMsg) -> Run:
    await ws.send(back.SerializeToString())
    run = Run()
    previous = ""  # the body of the last markdown element: a score card's label comes just before its number
    while True:
        msg = ForwardMsg()
        msg.ParseFromString(await ws.recv())
        kind = msg.WhichOneof("type")
        if kind == "navigation":
            run.page_hash = next(
                (p.page_script_hash for p in msg.navigation.app_pages if p.url_pathname == "tone"), None
            )
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            what = element.WhichOneof("type")
            if what == "text_area" and element.text_area.id.endswith("-tone.text"):
                run.text_id = element.text_area.id
            elif what == "metric":
                run.metrics[element.metric.label] = element.metric.body
            elif what == "markdown":
                body = element.markdown.body
                label = SCORE_LABEL_PATTERN.fullmatch(previous)
                if label and (value := SCORE_VALUE_PATTERN.fullmatch(body)):
                    run.metrics[label[1].replace("\\", "")] = value[1]
                previous = body
            elif what == "exception":
                run.exception = element.exception.message
        elif kind == "script_finished":
            if msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return run
            # A new server's first session: the run stops early and reruns once the app's navigation is known;
            # what it sent so far (the file-based page list) is not this page.
            run = Run()


async def score_texts(url: str, texts: list[str]) -> tuple[list[str], list[float]]:
    """Open one session on the Tone page, set each text in turn; return the scores shown and the latencies."""
    shown: list[str] = []
    latencies: list[float] = []
    stream = url.replace("http://", "ws://", 1) + "/_stcore/stream"
    async with websockets.connect(stream, subprotocols=[websockets.Subprotocol("streamlit")], max_size=None) as ws:
        first = BackMsg()
        first.rerun_script.page_name = "tone"
        page = await _run(ws, first)
        if page.text_id is None or page.page_hash is None:
            raise RuntimeError(f"the Tone page did not render its text area (exception: {page.exception})")
        for text in texts:
            back = BackMsg()
            back.rerun_script.page_script_hash = page.page_hash
            widget = back.rerun_script.widget_states.widgets.add()
            widget.id, widget.string_value = page.text_id, text
            start = time.perf_counter()
            run = await _run(ws, back)
            latencies.append(time.perf_counter() - start)
            if run.exception is not None:
                raise RuntimeError(f"the page raised: {run.exception}")
            shown.append(run.metrics.get(SCORE_LABEL, "(no score)"))
    return shown, latencies
