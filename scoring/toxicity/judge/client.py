"""The LLM judge: any OpenAI-compatible Chat Completions endpoint, through the official ``openai`` client.

Network trouble (timeouts, refused connections, HTTP 429, 408/409 and 5xx) is retried ``max_retries``
times with exponential backoff (honouring ``Retry-After`` up to ``max_backoff``); a reply that is not the
JSON asked for (or not a chat completion at all) is asked again ``parse_retries`` times. What still fails
raises :class:`JudgeError`, a ``RuntimeError`` whose message says what went wrong in one short line, never
contains the API key, and quotes at most :data:`QUOTED_CHARS` characters of what the server sent.

Requests go through :func:`scoring.toxicity.judge.http.judge_http_client`: redirects are never followed,
``timeout`` is a deadline for the whole request (not for each read), a reply over ``max_reply_bytes`` is
refused, and :meth:`ToxicityJudge.cancel` stops the requests in flight of one batch (Ctrl-C).

The ``openai`` client reads an identity from the environment and sends it with every request:
``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID`` (as headers) and ``OPENAI_CUSTOM_HEADERS``. The judge sends them
only to the environment's own endpoint (``OPENAI_BASE_URL``, else OpenAI's), never to another URL (one a
dashboard visitor typed, say), and never sends ``OPENAI_ADMIN_KEY``. The API key is always the one given.
"""

from __future__ import annotations

import os
import re
import threading
import time
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from scoring.errors import JudgeError
from scoring.toxicity.judge.http import (
    ReplyTooLarge,
    RequestCancelled,
    RequestGuard,
    UnreadableReply,
    judge_http_client,
)
from scoring.toxicity.judge.prompts import SYSTEM_PROMPT, ReplyError, parse_verdicts, reason_prompt, verdicts_prompt

if TYPE_CHECKING:
    import openai

__all__ = ["DEFAULT_BASE_URL", "QUOTED_CHARS", "JudgeError", "ToxicityJudge", "excerpt", "same_endpoint"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: At most this many characters of a server's own words (an error message, a reply) appear in a message.
QUOTED_CHARS = 80
_RETRY_STATUSES = frozenset({408, 409, 429})
_SPACES = re.compile(r"\s+")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _endpoint(url: str) -> tuple[object, ...] | None:
    """``url`` as (scheme, host, port, path, user, password, query); None when it is not an http(s) URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    path = parts.path.rstrip("/")
    return scheme, parts.hostname, port or _DEFAULT_PORTS[scheme], path, parts.username, parts.password, parts.query


def same_endpoint(a: str, b: str) -> bool:
    """Whether two base URLs name the same endpoint (case of scheme and host, default port, final ``/`` aside).

    >>> same_endpoint("https://API.openai.com:443/v1/", "https://api.openai.com/v1")
    True
    >>> same_endpoint("https://api.openai.com/v1", "https://api.openai.com@attacker.example/v1")
    False
    """
    left = _endpoint(a)
    return left is not None and left == _endpoint(b)


def excerpt(text: str, limit: int = QUOTED_CHARS) -> str:
    """Return ``text`` on one line, without control or formatting characters, cut to ``limit`` characters.

    >>> excerpt("Bad\\u202e request\\n\\n  " + "x" * 100, 20)
    'Bad request xxxxxxx…'
    """
    kept = "".join(" " if c.isspace() else c for c in text if c.isspace() or unicodedata.category(c)[0] != "C")
    flat = _SPACES.sub(" ", kept).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _display_url(url: str) -> str:
    """Return ``url`` without any user:password part."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _origin(url: str) -> str:
    """Return the scheme://host[:port] of ``url`` (no path, query or credentials); "" when it has none."""
    try:
        parts = urlsplit(url.strip())
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return ""
    return f"{parts.scheme}://{parts.hostname}{port}" if parts.scheme and parts.hostname else ""


class ToxicityJudge:
    """Asks a chat model for toxicity verdicts; holds the API key privately (not in ``repr``)."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str,
        timeout: float,
        max_retries: int,
        parse_retries: int,
        backoff: float,
        max_backoff: float,
        max_reply_bytes: int | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url or DEFAULT_BASE_URL
        self.timeout, self.max_retries, self.parse_retries = timeout, max_retries, parse_retries
        self.backoff, self.max_backoff = backoff, max_backoff
        if max_reply_bytes is None:
            from scoring.limits import get_limits

            max_reply_bytes = get_limits().judge_max_reply_kb * 1024
        self.max_reply_bytes = max_reply_bytes
        import openai  # imported here: it takes ~0.6 s, and only the judge needs it

        self._api_key = api_key
        self._guard = RequestGuard()
        http = judge_http_client(self.base_url, timeout=timeout, max_reply_bytes=max_reply_bytes, guard=self._guard)
        self._client = openai.OpenAI(
            api_key=api_key, base_url=self.base_url, timeout=timeout, max_retries=0, http_client=http
        )
        self._client.admin_api_key = None  # OPENAI_ADMIN_KEY is never a judge's business
        own = os.environ.get("OPENAI_BASE_URL", "").strip() or DEFAULT_BASE_URL
        if not same_endpoint(self.base_url, own):  # the operator's organisation, project and headers stay home
            self._client.organization = self._client.project = None
            self._client._custom_headers = {}
            self._client._ambient_authorizations = frozenset()
        self._where = _display_url(self.base_url)

    def __repr__(self) -> str:
        return f"ToxicityJudge(model={self.model!r}, base_url={self._where!r}, timeout={self.timeout:g})"

    def bind_cancel(self, event: threading.Event | None) -> None:
        """Make ``event`` the cancel event of this thread's next requests (those :meth:`cancel` can stop)."""
        self._guard.bind(event)

    def cancel(self, event: threading.Event) -> None:
        """Stop every request made under ``event`` (see :meth:`verdicts`) now; their rows fail as ``cancelled``."""
        self._guard.cancel(event)

    def verdicts(
        self, input_text: str, opinions: Sequence[str], *, cancel: threading.Event | None = None
    ) -> list[dict[str, str]]:
        """Return one ``{"verdict", "reason"}`` per opinion, asking again while the reply is unreadable.

        ``cancel``: an event that :meth:`cancel` sets to stop this call's requests from another thread.
        """
        prompt = verdicts_prompt(input_text, opinions)
        problem, reply = "", ""
        for _ in range(self.parse_retries + 1):
            try:
                reply = self._complete(prompt, cancel)
                return parse_verdicts(reply, len(opinions))
            except ReplyError as exc:
                problem = str(exc)
        tries = self.parse_retries + 1
        began = f" Last reply began: {excerpt(self._redact(reply))!r}" if reply.strip() else ""
        raise JudgeError(
            f"the judge's reply could not be read as verdicts after {tries} tries: {problem}.{began}",
            kind="unparseable",
        )

    def reason(self, score: float, scale: float, verdicts: Sequence[dict[str, object]]) -> str:
        """Return the judge's one overall reason for ``score``."""
        problem = "it was empty"
        for _ in range(self.parse_retries + 1):
            try:
                reply = self._complete(reason_prompt(score, scale, verdicts)).strip()
            except ReplyError as exc:
                problem = str(exc)
                continue
            if reply:
                return reply
        raise JudgeError(f"the judge gave no reason in {self.parse_retries + 1} tries: {problem}.", kind="unparseable")

    def _complete(self, prompt: str, cancel: threading.Event | None = None) -> str:
        """Send one chat request, retrying network trouble; return the reply's text ("" if it has none).

        Raises:
            ReplyError: the server's reply is not a chat completion (not JSON, wrong shape, nested too deep).
            JudgeError: no reply after the retries, or one that must not be retried (refused key, redirect, ...).
        """
        import openai

        cancel = cancel if cancel is not None else self._guard.bound()
        self._guard.bind(cancel)
        tries = self.max_retries + 1
        for attempt in range(tries):
            self._check_cancel(cancel)
            try:
                response = self._client.chat.completions.create(
                    model=self.model,
                    messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}],
                )
                return self._redact(_reply_text(response))  # a reply echoing the key must not carry it on
            except RequestCancelled:
                raise JudgeError(
                    f"the request to the judge at {self._where} was stopped (interrupted).", kind="cancelled"
                ) from None
            except ReplyError:
                raise
            except ReplyTooLarge as exc:
                what = f"the judge at {self._where} sent a reply larger than {exc.limit // 1024:,} KB"
                raise JudgeError(
                    f"{what} (TONE_EXPLORER_JUDGE_MAX_REPLY_KB); a verdicts reply is a few KB.",
                    kind="too_large",
                    user_message=f"{what}; a verdicts reply is a few KB.",
                ) from None
            except UnreadableReply as exc:
                raise ReplyError(str(exc)) from None
            except openai.APIStatusError as exc:
                if exc.status_code not in _RETRY_STATUSES and exc.status_code < 500:
                    raise self._status_error(exc) from None
                failure = self._status_error(exc, tries)
                wait = _retry_after(exc)
            except openai.APITimeoutError:
                failure = JudgeError(
                    f"the judge at {self._where} did not answer within {self.timeout:g} s ({tries} tries).",
                    kind="timeout",
                )
                wait = None
            except openai.APIConnectionError as exc:
                what = f"cannot reach the judge at {self._where} ({tries} tries): {excerpt(self._redact(str(exc)))}"
                failure = JudgeError(
                    f"{what} Check the base URL (OPENAI_BASE_URL) and that the server is running.",
                    kind="unreachable",
                    user_message=f"{what} Check the judge base URL and that the server is running.",
                )
                wait = None
            except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
                # the body is not a chat completion: not JSON (JSONDecodeError), nested too deep, wrong shape
                raise ReplyError(f"the reply is not a chat completion ({type(exc).__name__})") from None
            if attempt + 1 < tries:
                delay = min(self.max_backoff, wait if wait is not None else self.backoff * 2**attempt)
                if cancel is None:
                    time.sleep(delay)
                elif cancel.wait(delay):  # stopped while waiting to retry
                    break
        self._check_cancel(cancel)
        raise failure

    def _check_cancel(self, cancel: threading.Event | None) -> None:
        if cancel is not None and cancel.is_set():
            raise JudgeError(f"the request to the judge at {self._where} was stopped (interrupted).", kind="cancelled")

    def _status_error(self, exc: openai.APIStatusError, tries: int = 1) -> JudgeError:
        status, where = exc.status_code, self._where
        if status in (401, 403):
            what = f"the judge at {where} refused the API key (HTTP {status})"
            return JudgeError(
                f"{what}: check OPENAI_API_KEY or the api_key argument, and that the key may use this model.",
                kind="refused",
                status=status,
                user_message=f"{what}: check the judge API key, and that it may use this model.",
            )
        if 300 <= status < 400:
            target = _origin(exc.response.headers.get("location", "")) if exc.response is not None else ""
            to = f" to {target}" if target else ""
            return JudgeError(
                f"the judge at {where} answered with a redirect (HTTP {status}){to}; redirects are not followed, "
                "so the prompts and the key stay with the address you set: set the base URL to the final address.",
                kind="redirected",
                status=status,
            )
        detail = _server_message(exc, self._redact)
        if status == 429:
            text = f"the judge at {where} still answered HTTP 429 (rate limited) after {tries} tries{detail}"
            return JudgeError(
                text + " Wait, or lower TONE_EXPLORER_JUDGE_CONCURRENCY.",
                kind="rate_limited",
                status=429,
                user_message=text + " Wait a minute and try again.",
            )
        if status >= 500 or status in _RETRY_STATUSES:
            text = f"the judge at {where} failed with HTTP {status} after {tries} tries{detail}"
            return JudgeError(text, kind="server_error", status=status)
        hint = f" Is the model name {self.model!r} right?" if status == 404 else ""
        return JudgeError(
            f"the judge at {where} rejected the request (HTTP {status}){detail}{hint}", kind="rejected", status=status
        )

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[API key]") if self._api_key else text


def _reply_text(response: Any) -> str:
    """Return the first choice's text ("" when it has none); raise ReplyError when the reply has no choices list."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list):
        raise ReplyError(f"the reply is not a chat completion: 'choices' is {type(choices).__name__}, not a list")
    if not choices:
        return ""
    content = getattr(getattr(choices[0], "message", None), "content", None)
    return content if isinstance(content, str) else ""


def _server_message(exc: openai.APIStatusError, redact: Any) -> str:
    """Return ``": <the server's own error message>."``, one short line, or "." when it gave none or an HTML page."""
    body: object = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        body = inner.get("message", inner) if isinstance(inner, dict) else inner
    text = str(body if body is not None else "")
    content_type = exc.response.headers.get("content-type", "") if exc.response is not None else ""
    if "html" in content_type.lower() or text.lstrip().startswith("<"):
        return " (an HTML page)."
    short = excerpt(redact(text)).rstrip(". ")
    return f": {short}." if short else "."


def _retry_after(exc: openai.APIStatusError) -> float | None:
    """Return the wait the server asked for in ``Retry-After`` (seconds), if any."""
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
