"""The LLM judge: any OpenAI-compatible Chat Completions endpoint, through the official ``openai`` client.

Network trouble (timeouts, refused connections, HTTP 429, 408/409 and 5xx) is retried ``max_retries``
times with exponential backoff (honouring ``Retry-After`` up to ``max_backoff``); a reply that is not the
JSON asked for is asked again ``parse_retries`` times. What still fails raises :class:`JudgeError`, a
``RuntimeError`` whose message says what went wrong and never contains the API key.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from scoring.toxicity.judge.prompts import SYSTEM_PROMPT, ReplyError, parse_verdicts, reason_prompt, verdicts_prompt

if TYPE_CHECKING:
    import openai

__all__ = ["DEFAULT_BASE_URL", "JudgeError", "ToxicityJudge"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUSES = frozenset({408, 409, 429})


class JudgeError(RuntimeError):
    """The judge gave no usable answer; ``kind`` is one of ``unreachable``, ``timeout``, ``refused``,
    ``rate_limited``, ``server_error``, ``rejected``, ``unparseable``."""

    def __init__(self, message: str, *, kind: str, status: int | None = None, user_message: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.user_message = user_message or message  # what a dashboard page shows: no variable or argument names


def _display_url(url: str) -> str:
    """Return ``url`` without any user:password part."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


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
    ) -> None:
        self.model = model
        self.base_url = base_url or DEFAULT_BASE_URL
        self.timeout, self.max_retries, self.parse_retries = timeout, max_retries, parse_retries
        self.backoff, self.max_backoff = backoff, max_backoff
        import openai  # imported here: it takes ~0.6 s, and only the judge needs it

        self._api_key = api_key
        self._client = openai.OpenAI(api_key=api_key, base_url=self.base_url, timeout=timeout, max_retries=0)
        self._where = _display_url(self.base_url)

    def __repr__(self) -> str:
        return f"ToxicityJudge(model={self.model!r}, base_url={self._where!r}, timeout={self.timeout:g})"

    def verdicts(self, input_text: str, opinions: Sequence[str]) -> list[dict[str, str]]:
        """Return one ``{"verdict", "reason"}`` per opinion, asking again while the reply is unreadable."""
        prompt = verdicts_prompt(input_text, opinions)
        problem, reply = "", ""
        for _ in range(self.parse_retries + 1):
            reply = self._complete(prompt)
            try:
                return parse_verdicts(reply, len(opinions))
            except ReplyError as exc:
                problem = str(exc)
        tries = self.parse_retries + 1
        raise JudgeError(
            f"the judge's reply could not be read as verdicts after {tries} tries: {problem}. "
            f"Last reply began: {self._redact(reply[:200])!r}",
            kind="unparseable",
        )

    def reason(self, score: float, scale: float, verdicts: Sequence[dict[str, object]]) -> str:
        """Return the judge's one overall reason for ``score``."""
        for _ in range(self.parse_retries + 1):
            reply = self._complete(reason_prompt(score, scale, verdicts)).strip()
            if reply:
                return reply
        raise JudgeError(f"the judge gave an empty reason {self.parse_retries + 1} times.", kind="unparseable")

    def _complete(self, prompt: str) -> str:
        """Send one chat request, retrying network trouble; return the reply's text ("" if it has none)."""
        import openai

        tries = self.max_retries + 1
        for attempt in range(tries):
            try:
                response = self._client.chat.completions.create(
                    model=self.model,
                    messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": prompt}],
                )
                return self._redact(_reply_text(response))  # a reply echoing the key must not carry it on
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
                what = f"cannot reach the judge at {self._where} ({tries} tries): {self._redact(str(exc))}"
                failure = JudgeError(
                    f"{what} Check the base URL (OPENAI_BASE_URL) and that the server is running.",
                    kind="unreachable",
                    user_message=f"{what} Check the judge base URL and that the server is running.",
                )
                wait = None
            if attempt + 1 < tries:
                time.sleep(min(self.max_backoff, wait if wait is not None else self.backoff * 2**attempt))
        raise failure

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
        detail = self._redact(_server_message(exc)).rstrip(". ") + "."
        if status == 429:
            text = f"the judge at {where} still answered HTTP 429 (rate limited) after {tries} tries: {detail}"
            return JudgeError(
                text + " Wait, or lower TONE_EXPLORER_JUDGE_CONCURRENCY.",
                kind="rate_limited",
                status=429,
                user_message=text + " Wait a minute and try again.",
            )
        if status >= 500 or status in _RETRY_STATUSES:
            text = f"the judge at {where} failed with HTTP {status} after {tries} tries: {detail}"
            return JudgeError(text, kind="server_error", status=status)
        hint = f" Is the model name {self.model!r} right?" if status == 404 else ""
        return JudgeError(
            f"the judge at {where} rejected the request (HTTP {status}): {detail}{hint}", kind="rejected", status=status
        )

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[API key]") if self._api_key else text


def _reply_text(response: Any) -> str:
    choices = getattr(response, "choices", None) or []
    if not choices:
        return ""
    content = getattr(choices[0].message, "content", None)
    return content if isinstance(content, str) else ""


def _server_message(exc: openai.APIStatusError) -> str:
    """Return the server's own error message, shortened."""
    body: object = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        body = inner.get("message", inner) if isinstance(inner, dict) else inner
    text = str(body if body is not None else exc.message)
    return text[:300] + ("…" if len(text) > 300 else "")


def _retry_after(exc: openai.APIStatusError) -> float | None:
    """Return the wait the server asked for in ``Retry-After`` (seconds), if any."""
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
