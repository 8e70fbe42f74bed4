"""Which key may go to which judge URL, on a dashboard that many people share.

The server's operator sets the judge (environment first, then Streamlit secrets):

- ``OPENAI_API_KEY``: the key the server holds (optional);
- ``OPENAI_BASE_URL``: where the judge's requests go (default :data:`DEFAULT_BASE_URL`);
- ``TONE_EXPLORER_ALLOW_VISITOR_JUDGE_URL``: whether a visitor may type another base URL: ``1`` (default:
  any URL), ``0`` (none), or a comma-separated list of the URLs visitors may choose.

:func:`judge_access` then decides, for what a visitor typed: the server's key only ever goes to the
operator's URL; another URL is used only when the operator allows it, and only with the key the visitor
typed (or none, for a local server). The pages render its answer; they decide nothing themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from scoring.errors import InputError
from scoring.toxicity.judge.client import DEFAULT_BASE_URL, _endpoint, same_endpoint

__all__ = [
    "ALLOW_VISITOR_URL",
    "JudgeAccess",
    "ServerJudge",
    "check_api_key",
    "judge_access",
    "same_endpoint",
    "server_judge",
]

ALLOW_VISITOR_URL = "TONE_EXPLORER_ALLOW_VISITOR_JUDGE_URL"
_YES = frozenset({"1", "true", "yes", "on", "any"})
_NO = frozenset({"0", "false", "no", "off", "none", ""})


def check_api_key(key: str, name: str = "api_key") -> str:
    """Return ``key`` without the spaces and line breaks around it; raise ValueError (naming ``name``,
    never showing the key) when what is left is not one line of printable ASCII, as HTTP headers need.

    >>> check_api_key("sk-abc\\n")
    'sk-abc'
    >>> check_api_key("sk-a bc", "OPENAI_API_KEY")
    Traceback (most recent call last):
    ...
    scoring.errors.InputError: OPENAI_API_KEY has a space at character 5; a key is one line of ASCII: copy it again.
    """
    key = key.strip()
    for i, char in enumerate(key, start=1):
        if not " " < char <= "~":
            what = "a space" if char == " " else "a line break or control character" if char < " " else "non-ASCII"
            raise InputError(f"{name} has {what} at character {i}; a key is one line of ASCII: copy it again.")
    return key


@dataclass(frozen=True)
class ServerJudge:
    """The operator's judge settings: its URL, the key the server holds (never in ``repr``), what visitors may do.

    ``allowed_urls`` is None when visitors may choose any URL, ``()`` when none, else the URLs they may choose.
    """

    base_url: str
    api_key: str = field(repr=False)
    key_source: str  # where the key came from, for the page ("" when the server holds none)
    allowed_urls: tuple[str, ...] | None


def _setting(name: str, environ: Mapping[str, str], secrets: Mapping[str, object]) -> tuple[object, str]:
    """Return (value, where) of a setting: the environment first, then the secrets; ("", "") when unset."""
    if str(environ.get(name, "")).strip():
        return environ[name], f"environment ({name})"
    value = secrets.get(name)
    if value is not None and value != "":
        return value, f"Streamlit secrets ({name})"
    return "", ""


def _allowed(value: object, where: str) -> tuple[str, ...] | None:
    if isinstance(value, bool):
        return None if value else ()
    items = [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value).split(",")
    words = [item.strip() for item in items if item.strip()]
    if len(words) <= 1 and (not words or words[0].lower() in _YES | _NO):
        return () if not words or words[0].lower() in _NO else None
    if bad := [w for w in words if _endpoint(w) is None]:
        raise InputError(
            f"{where} must be 1 (visitors may choose any judge URL), 0 (none) or a comma-separated list of "
            f"http(s) URLs; got {bad[0][:80]!r}."
        )
    return tuple(words)


def server_judge(environ: Mapping[str, str], secrets: Mapping[str, object] | None = None) -> ServerJudge:
    """Read the operator's settings from ``environ`` (os.environ), then ``secrets`` (Streamlit secrets).

    >>> s = server_judge({"OPENAI_API_KEY": "sk-x\\n", "TONE_EXPLORER_ALLOW_VISITOR_JUDGE_URL": "0"})
    >>> s.base_url, s.api_key, s.key_source, s.allowed_urls
    ('https://api.openai.com/v1', 'sk-x', 'environment (OPENAI_API_KEY)', ())

    Raises:
        ValueError: a setting is malformed; the message names it (and never shows the key).
    """
    secrets = secrets or {}
    key, key_source = _setting("OPENAI_API_KEY", environ, secrets)
    url, url_source = _setting("OPENAI_BASE_URL", environ, secrets)
    base_url = str(url).strip() or DEFAULT_BASE_URL
    if _endpoint(base_url) is None:
        raise InputError(f"{url_source} must be an http(s) URL such as 'http://localhost:11434/v1'; got {url!r}.")
    allow, allow_source = _setting(ALLOW_VISITOR_URL, environ, secrets)
    allowed = None if allow_source == "" else _allowed(allow, allow_source)
    return ServerJudge(base_url, check_api_key(str(key), key_source or "the API key"), key_source, allowed)


@dataclass(frozen=True)
class JudgeAccess:
    """Where the judge's requests go and with which key, or why it cannot be asked (``problem``).

    ``key_owner`` is ``"server"``, ``"visitor"`` or ``""`` (no key: a local server needs none);
    ``ask_key`` says whether the page should offer the visitor a password field.
    """

    base_url: str
    api_key: str = field(repr=False)
    key_owner: str
    ask_key: bool
    problem: str | None = None
    note: str = ""


def judge_access(server: ServerJudge, *, url: str = "", key: str = "") -> JudgeAccess:
    """Decide where a visitor's judge request goes, and with whose key.

    ``url`` and ``key`` are what the visitor typed ("" for nothing). The server's key goes to the server's
    URL only; another URL needs the operator's permission and is sent the visitor's key or none.

    >>> server = server_judge({"OPENAI_API_KEY": "sk-server"})
    >>> judge_access(server).key_owner, judge_access(server, url="http://127.0.0.1:9/v1").key_owner
    ('server', '')
    """
    typed_url = url.strip()
    try:
        typed_key = check_api_key(key, "the API key you typed")
    except ValueError as exc:
        return JudgeAccess(server.base_url, "", "", True, str(exc))
    if not typed_url or same_endpoint(typed_url, server.base_url):
        owner = "visitor" if typed_key else "server" if server.api_key else ""
        api_key = typed_key or server.api_key
        needs_key = not api_key and same_endpoint(server.base_url, DEFAULT_BASE_URL)
        problem = (
            "The LLM judge needs an API key: type it under Judge API key in the sidebar (or ask whoever runs "
            "this dashboard to set one up). The offline classifier needs none."
            if needs_key
            else None
        )
        return JudgeAccess(server.base_url, api_key, owner, ask_key=not server.api_key, problem=problem)
    if _endpoint(typed_url) is None:
        problem = f"The judge base URL must be an http(s) URL such as 'http://localhost:11434/v1'; got {typed_url!r}."
        return JudgeAccess(server.base_url, "", "", True, problem)
    if "?" in typed_url or "#" in typed_url:  # "...?x=" would make "/chat/completions" a query: any path POSTed to
        problem = (
            "The judge base URL must not hold a query (?...) or a fragment (#...): requests go to its "
            f"/chat/completions. Got {typed_url!r}."
        )
        return JudgeAccess(server.base_url, "", "", True, problem)
    allowed = server.allowed_urls
    if allowed is not None and not any(same_endpoint(typed_url, a) for a in allowed):
        others = f" or one of: {', '.join(allowed)}" if allowed else ""
        problem = (
            f"This dashboard sends judge requests only to {server.base_url}{others}: whoever runs it turned other "
            "judge URLs off. Clear the Judge base URL in the sidebar to use that judge."
        )
        return JudgeAccess(server.base_url, "", "", False, problem)
    note = (
        "The server's API key goes only to its own judge URL: type your key for this one (a local server needs none)."
        if server.api_key
        else ""
    )
    return JudgeAccess(typed_url, typed_key, "visitor" if typed_key else "", ask_key=True, note=note)
