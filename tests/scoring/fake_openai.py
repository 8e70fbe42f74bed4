"""A real HTTP server on 127.0.0.1 that speaks OpenAI's Chat Completions protocol, replying from a script.

Each request to ``POST /v1/chat/completions`` takes the next :class:`Reply` of the script (the last one
repeats once the script runs out, or a function of the request body decides). The server records every
request (body and headers) so tests can check what the client sent, and :meth:`FakeOpenAI.wait_for`
waits for the n-th to arrive (a test's "the judge is now waiting" event).

Hostile replies: ``drip`` sends the body a byte at a time (``endless`` never ends it), ``padding`` puts
that many bytes of JSON whitespace before the body (a huge reply, streamed, never built in memory),
``gzip`` compresses the body (a small reply that inflates to ``padding`` bytes), and ``hang`` answers
nothing until the server stops. A redirect is ``Reply(status=307, headers={"Location": ...})``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer: ``content`` as the assistant message, or a raw ``body`` with ``status``."""

    content: str | None = None
    status: int = 200
    body: object = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    drip: float = 0.0  # seconds between body bytes (0: send at once)
    endless: bool = False  # with drip: whitespace forever, no Content-Length
    padding: int = 0  # bytes of whitespace before the body, streamed in 64 KB pieces
    declare_length: bool = True  # send Content-Length (False: the client only learns the size by reading)
    gzip: bool = False  # Content-Encoding: gzip
    hang: bool = False  # read the request, answer nothing until the server stops


def completion(content: str | None, model: str = "judge-model") -> dict[str, Any]:
    """Return a Chat Completions response body holding ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def error_body(message: str, kind: str = "server_error") -> dict[str, Any]:
    """Return an OpenAI-style error body."""
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


Script = Sequence[Reply] | Callable[[dict[str, Any]], Reply]


class FakeOpenAI:
    """A scripted Chat Completions server; use :func:`serve` to start and stop it."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def wait_for(self, count: int, timeout: float = 60.0) -> bool:
        """Wait until ``count`` requests have arrived (``timeout`` only guards against a hang)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            index = len(self.requests) - 1
        if callable(self.script):
            return self.script(body)
        return self.script[min(index, len(self.script) - 1)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - silence the default log
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                body = json.loads(raw or b"{}")
                with fake._arrived:
                    fake.requests.append(
                        {"path": self.path, "body": body, "headers": {k.lower(): v for k, v in self.headers.items()}}
                    )
                    fake._arrived.notify_all()
                reply = fake._next(body)
                if reply.hang:
                    fake.stopping.wait()
                    return
                time.sleep(reply.delay)
                payload = reply.body if reply.body is not None else completion(reply.content, body.get("model", "x"))
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
                    self._answer(reply, data)

            def _answer(self, reply: Reply, data: bytes) -> None:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                if reply.gzip:
                    self.send_header("Content-Encoding", "gzip")
                    data = _gzip(reply.padding, data)
                size = len(data) + (0 if reply.gzip else reply.padding)
                if reply.declare_length and not reply.endless:
                    self.send_header("Content-Length", str(size))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if not reply.gzip:
                    for start in range(0, reply.padding, 1 << 16):
                        self.wfile.write(b" " * min(1 << 16, reply.padding - start))
                if not reply.drip:
                    self.wfile.write(data)
                    return
                pieces = iter(data) if not reply.endless else iter(lambda: 32, None)  # whitespace forever
                for byte in pieces:
                    if fake.stopping.wait(reply.drip):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()

        return Handler


@contextmanager
def serve(script: Script) -> Iterator[FakeOpenAI]:
    """Run a :class:`FakeOpenAI` in a background thread for the duration of the block."""
    fake = FakeOpenAI(script)
    thread = threading.Thread(target=fake._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.stopping.set()
        fake._server.shutdown()
        fake._server.server_close()
        thread.join(timeout=5)


def _gzip(padding: int, data: bytes) -> bytes:
    """``padding`` spaces then ``data``, gzipped in pieces (a 100 MB reply is about 100 KB on the wire)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [packer.compress(b" " * min(1 << 20, padding - start)) for start in range(0, padding, 1 << 20)]
    return b"".join([*out, packer.compress(data), packer.flush()])


def unused_port() -> int:
    """Return a local port that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
