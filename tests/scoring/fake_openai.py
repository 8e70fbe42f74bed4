"""A real HTTP server on 127.0.0.1 that speaks OpenAI's Chat Completions protocol, replying from a script.

Each request to ``POST /v1/chat/completions`` takes the next :class:`Reply` of the script (the last one
repeats once the script runs out, or a function of the request body decides). The server records every
request (body and headers) so tests can check what the client sent.
"""

from __future__ import annotations

import json
import socket
import threading
import time
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
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

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
                with fake._lock:
                    fake.requests.append(
                        {"path": self.path, "body": body, "headers": {k.lower(): v for k, v in self.headers.items()}}
                    )
                reply = fake._next(body)
                time.sleep(reply.delay)
                payload = reply.body if reply.body is not None else completion(reply.content, body.get("model", "x"))
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

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
        fake._server.shutdown()
        fake._server.server_close()
        thread.join(timeout=5)


def unused_port() -> int:
    """Return a local port that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
