"""The judge's HTTP client: no redirects, a total deadline and a size cap per reply, and requests that can be stopped.

The ``openai`` client on its own follows redirects (a judge endpoint could forward the prompts to another
host), applies its timeout to each read (a server sending one byte a second never times out) and reads
replies of any size. :func:`judge_http_client` builds the ``httpx2.Client`` it is given instead:

- redirects are never followed: a 3xx reply reaches the judge as an HTTP error naming where it pointed;
- each request has a total deadline: every connect, send and read waits at most the time left, so the
  whole request ends by ``timeout`` however the server spaces its bytes;
- a reply body over ``max_reply_bytes`` is refused, by its ``Content-Length`` or as the bytes arrive;
- :meth:`RequestGuard.cancel` stops the requests started under a cancel event at once (Ctrl-C): their
  sockets are shut down, which wakes a thread blocked reading them.

Proxies from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...) are honoured, through the same guard.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import urllib.request
import zlib
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpcore2
import httpx2

from scoring.errors import ScoringError

__all__ = ["ReplyTooLarge", "RequestCancelled", "RequestGuard", "UnreadableReply", "judge_http_client"]


class ReplyTooLarge(ScoringError):
    """The reply body is larger than the cap; ``limit`` is the cap in bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the reply is larger than {limit:,} bytes")
        self.limit = limit


class UnreadableReply(ScoringError):
    """The reply body is in an encoding the judge does not read (or its compression is broken)."""


class RequestCancelled(ScoringError):
    """The request was stopped by :meth:`RequestGuard.cancel`."""


class RequestGuard:
    """Per-thread deadlines and cancel events for the requests of one client, and the sockets in use.

    A request runs in one thread (``httpx2.Client`` is synchronous), so the deadline and cancel event of
    the request a thread is making are that thread's.
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._active: dict[socket.socket, threading.Event | None] = {}

    def begin(self, timeout: float) -> None:
        """Start a request in this thread: it must end within ``timeout`` seconds."""
        self._local.deadline = time.monotonic() + timeout

    def bind(self, cancel: threading.Event | None) -> None:
        """Make ``cancel`` the cancel event of this thread's next requests."""
        self._local.cancel = cancel

    def bound(self) -> threading.Event | None:
        """The cancel event bound to this thread, if any."""
        event: threading.Event | None = getattr(self._local, "cancel", None)
        return event

    def cancel(self, event: threading.Event) -> None:
        """Set ``event`` and shut down the sockets of every request running under it."""
        with self._lock:
            event.set()
            doomed = [sock for sock, owner in self._active.items() if owner is event]
        for sock in doomed:
            with contextlib.suppress(OSError):  # already closed
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's, also under TLS

    def _cancelled(self) -> bool:
        event = getattr(self._local, "cancel", None)
        return event is not None and event.is_set()

    def left(self, timeout: float | None, error: type[Exception]) -> float | None:
        """Return ``timeout`` cut to the time left before this thread's deadline; raise ``error`` when none is."""
        if self._cancelled():
            raise RequestCancelled("the request was stopped")
        deadline: float | None = getattr(self._local, "deadline", None)
        if deadline is None:
            return timeout
        left = deadline - time.monotonic()
        if left <= 0:
            raise error("the request's deadline passed")
        return left if timeout is None else min(timeout, left)

    def watch(self, sock: socket.socket | None) -> _Watch:
        """Register ``sock`` as in use by this thread's request while the ``with`` block runs."""
        return _Watch(self, sock)


class _Watch:
    def __init__(self, guard: RequestGuard, sock: socket.socket | None) -> None:
        self._guard, self._sock = guard, sock

    def __enter__(self) -> None:
        guard = self._guard
        if self._sock is None:
            return
        with guard._lock:
            guard._active[self._sock] = getattr(guard._local, "cancel", None)
            if guard._cancelled():  # cancelled between left() and registering: do not start blocking
                del guard._active[self._sock]
                raise RequestCancelled("the request was stopped")

    def __exit__(self, *exc: object) -> None:
        if self._sock is not None:
            with self._guard._lock:
                self._guard._active.pop(self._sock, None)
        if self._guard._cancelled():  # woken by cancel(): say so, not "the server closed the connection"
            raise RequestCancelled("the request was stopped")


class _GuardedStream(httpcore2.NetworkStream):
    """A network stream whose every operation ends by the request's deadline and can be cancelled."""

    def __init__(self, inner: httpcore2.NetworkStream, guard: RequestGuard) -> None:
        self._inner, self._guard = inner, guard

    def _socket(self) -> socket.socket | None:
        sock = self._inner.get_extra_info("socket")
        return sock if isinstance(sock, socket.socket) else None

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        left = self._guard.left(timeout, httpcore2.ReadTimeout)
        with self._guard.watch(self._socket()):
            return self._inner.read(max_bytes, left)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        left = self._guard.left(timeout, httpcore2.WriteTimeout)
        with self._guard.watch(self._socket()):
            self._inner.write(buffer, left)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.NetworkStream:
        left = self._guard.left(timeout, httpcore2.ConnectTimeout)
        with self._guard.watch(self._socket()):
            return _GuardedStream(self._inner.start_tls(ssl_context, server_hostname, left), self._guard)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _GuardedBackend(httpcore2.NetworkBackend):
    """The standard blocking backend, with connections that end by the request's deadline."""

    def __init__(self, guard: RequestGuard) -> None:
        self._inner, self._guard = httpcore2.SyncBackend(), guard

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        left = self._guard.left(timeout, httpcore2.ConnectTimeout)
        stream = self._inner.connect_tcp(host, port, left, local_address, socket_options)
        return _GuardedStream(stream, self._guard)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.NetworkStream:
        left = self._guard.left(timeout, httpcore2.ConnectTimeout)
        return _GuardedStream(self._inner.connect_unix_socket(path, left, socket_options), self._guard)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


_DECODED = frozenset({"identity", "gzip", "x-gzip", "deflate"})


class _CappedStream(httpx2.SyncByteStream):
    """A reply body (gunzipped when ``decode``) that raises :class:`ReplyTooLarge` past ``limit`` bytes."""

    def __init__(self, inner: httpx2.SyncByteStream, limit: int, *, decode: bool = False) -> None:
        self._inner, self._limit, self._decode = inner, limit, decode

    def __iter__(self) -> Iterator[bytes]:
        seen, raw = 0, 0
        inflate = zlib.decompressobj(zlib.MAX_WBITS | 32) if self._decode else None  # gzip or zlib header
        for chunk in self._inner:
            raw += len(chunk)
            if raw > self._limit:
                raise ReplyTooLarge(self._limit)
            while chunk:
                if inflate is None:
                    out, chunk = chunk, b""
                else:
                    try:
                        out = inflate.decompress(chunk, self._limit - seen + 1)
                    except zlib.error as exc:
                        raise UnreadableReply(f"the reply's compressed body is broken: {exc}") from None
                    chunk = inflate.unconsumed_tail
                seen += len(out)
                if seen > self._limit:
                    raise ReplyTooLarge(self._limit)
                if out:
                    yield out

    def close(self) -> None:
        self._inner.close()


class _GuardedTransport(httpx2.BaseTransport):
    """Starts each request's deadline and caps its reply; the connections come from the guarded backend."""

    def __init__(self, inner: httpx2.HTTPTransport, guard: RequestGuard, timeout: float, max_reply_bytes: int) -> None:
        self._inner, self._guard = inner, guard
        self._timeout, self._limit = timeout, max_reply_bytes

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self._guard.begin(self._timeout)
        response = self._inner.handle_request(request)
        length = response.headers.get("content-length", "")
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if (length.isdigit() and int(length) > self._limit) or encoding not in _DECODED:
            response.close()
            if encoding not in _DECODED:
                raise UnreadableReply(f"the reply is encoded as {encoding[:20]!r}; gzip or deflate are read")
            raise ReplyTooLarge(self._limit)
        assert isinstance(response.stream, httpx2.SyncByteStream)
        if encoding != "identity":  # decoded here, so the cap counts the decoded bytes (no zip bomb)
            del response.headers["content-encoding"]
        response.stream = _CappedStream(response.stream, self._limit, decode=encoding != "identity")
        return response

    def close(self) -> None:
        self._inner.close()


def _proxy_for(url: str) -> str | None:
    """The proxy the environment sets for ``url`` (``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``...), if any."""
    parts = urlsplit(url)
    proxies = urllib.request.getproxies()
    if not parts.hostname or urllib.request.proxy_bypass(parts.hostname):
        return None
    return proxies.get(parts.scheme) or proxies.get("all")


def judge_http_client(base_url: str, *, timeout: float, max_reply_bytes: int, guard: RequestGuard) -> httpx2.Client:
    """Return the client the judge's ``openai.OpenAI`` sends through (see the module's docstring)."""
    inner = httpx2.HTTPTransport(proxy=_proxy_for(base_url))
    pool = getattr(inner, "_pool", None)  # httpx2 has no public way to pass a network backend
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError("this httpx2 version hides its connection pool: the judge cannot guard its requests.")
    pool._network_backend = _GuardedBackend(guard)
    transport = _GuardedTransport(inner, guard, timeout, max_reply_bytes)
    return httpx2.Client(transport=transport, follow_redirects=False, trust_env=False, timeout=timeout)
