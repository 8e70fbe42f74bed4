"""Which key may go to which judge URL (scoring.toxicity.judge.access): the decision the pages render."""

from __future__ import annotations

import pytest

from scoring.toxicity.judge.access import (
    ALLOW_VISITOR_URL,
    JudgeAccess,
    check_api_key,
    judge_access,
    same_endpoint,
    server_judge,
)
from scoring.toxicity.judge.client import DEFAULT_BASE_URL

SERVER_KEY = "sk-server-0123456789"
VISITOR_KEY = "sk-visitor-abcdef"
OPERATOR = "https://gateway.example/v1"
ELSEWHERE = "http://127.0.0.1:8765/v1"


def _server(allow: str | None = None, *, key: str = SERVER_KEY, url: str | None = OPERATOR) -> object:
    env = {"OPENAI_API_KEY": key}
    if url is not None:
        env["OPENAI_BASE_URL"] = url
    if allow is not None:
        env[ALLOW_VISITOR_URL] = allow
    return server_judge(env)


# (allow setting, typed url, typed key) -> (url the request goes to, key sent, owner) or the problem's words
CASES = [
    (None, "", "", (OPERATOR, SERVER_KEY, "server")),
    (None, OPERATOR, "", (OPERATOR, SERVER_KEY, "server")),
    (None, "HTTPS://Gateway.example:443/v1/", "", (OPERATOR, SERVER_KEY, "server")),
    (None, "", VISITOR_KEY, (OPERATOR, VISITOR_KEY, "visitor")),
    (None, ELSEWHERE, "", (ELSEWHERE, "", "")),  # never the server's key
    (None, ELSEWHERE, VISITOR_KEY, (ELSEWHERE, VISITOR_KEY, "visitor")),
    (None, "https://gateway.example@attacker.example/v1", "", ("https://gateway.example@attacker.example/v1", "", "")),
    (None, "https://gateway.example/v1?x=1", "", "must not hold a query (?...) or a fragment"),  # issue 28
    (None, "http://127.0.0.1:8765/admin/delete?x=", VISITOR_KEY, "must not hold a query"),  # the path POSTed to
    (None, "http://127.0.0.1:8765/v1#x", "", "must not hold a query (?...) or a fragment"),
    (None, "https://gateway.example/v2", "", ("https://gateway.example/v2", "", "")),
    ("1", ELSEWHERE, "", (ELSEWHERE, "", "")),
    ("0", ELSEWHERE, VISITOR_KEY, "sends judge requests only to https://gateway.example/v1"),
    ("0", "", "", (OPERATOR, SERVER_KEY, "server")),
    (f"{ELSEWHERE}, http://localhost:11434/v1", ELSEWHERE + "/", "", (ELSEWHERE + "/", "", "")),
    (f"{ELSEWHERE}, http://localhost:11434/v1", "http://127.0.0.1:9/v1", "", "or one of: http://127.0.0.1:8765/v1"),
    (None, "ftp://files.example/", "", "must be an http(s) URL"),
    (None, "", "sk-typed\nkey", "the API key you typed has a line break"),
]


@pytest.mark.parametrize(("allow", "url", "key", "expected"), CASES)
def test_judge_access_server_key_only_goes_to_the_operators_url(
    allow: str | None, url: str, key: str, expected: tuple[str, str, str] | str
) -> None:
    access = judge_access(_server(allow), url=url, key=key)  # type: ignore[arg-type]
    if isinstance(expected, str):
        assert access.problem is not None and expected in access.problem
        assert access.api_key == ""  # nothing to send with
    else:
        assert access.problem is None
        assert (access.base_url, access.api_key, access.key_owner) == expected
    if access.base_url != OPERATOR:
        assert access.api_key != SERVER_KEY


def test_judge_access_asks_the_visitor_for_a_key_for_another_url() -> None:
    server = _server()
    assert not judge_access(server).ask_key  # the server holds a key for its own URL
    other = judge_access(server, url=ELSEWHERE)  # type: ignore[arg-type]
    assert other.ask_key and "goes only to its own judge URL" in other.note
    assert judge_access(_server(key=""), url="").ask_key  # type: ignore[arg-type]


def test_judge_access_without_any_key_for_openai_says_where_to_put_one() -> None:
    access = judge_access(_server(key="", url=None))  # type: ignore[arg-type]
    assert access.base_url == DEFAULT_BASE_URL and access.problem is not None and "needs an API key" in access.problem
    local = judge_access(_server(key="", url="http://localhost:11434/v1"))  # type: ignore[arg-type]
    assert local.problem is None and local.api_key == ""  # a local server needs no key


def test_judge_access_repr_never_shows_a_key() -> None:
    server = _server()
    assert SERVER_KEY not in repr(server)
    assert SERVER_KEY not in repr(judge_access(server))  # type: ignore[arg-type]
    assert VISITOR_KEY not in repr(judge_access(server, url=ELSEWHERE, key=VISITOR_KEY))  # type: ignore[arg-type]
    assert "api_key" not in repr(JudgeAccess(OPERATOR, SERVER_KEY, "server", False))


@pytest.mark.parametrize(
    ("secrets", "env", "expected"),
    [
        ({"OPENAI_API_KEY": "sk-s", "OPENAI_BASE_URL": OPERATOR}, {}, (OPERATOR, "sk-s", "Streamlit secrets", None)),
        ({"OPENAI_API_KEY": "sk-s"}, {"OPENAI_API_KEY": "sk-e"}, (DEFAULT_BASE_URL, "sk-e", "environment", None)),
        ({ALLOW_VISITOR_URL: False}, {}, (DEFAULT_BASE_URL, "", "", ())),
        ({ALLOW_VISITOR_URL: [ELSEWHERE]}, {}, (DEFAULT_BASE_URL, "", "", (ELSEWHERE,))),
        ({ALLOW_VISITOR_URL: True}, {ALLOW_VISITOR_URL: "no"}, (DEFAULT_BASE_URL, "", "", ())),
    ],
)
def test_server_judge_reads_the_environment_then_secrets(
    secrets: dict[str, object], env: dict[str, str], expected: tuple[object, ...]
) -> None:
    server = server_judge(env, secrets)
    url, key, source, allowed = expected
    assert (server.base_url, server.api_key, server.allowed_urls) == (url, key, allowed)
    assert str(source) in server.key_source


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({ALLOW_VISITOR_URL: "maybe"}, "environment (TONE_EXPLORER_ALLOW_VISITOR_JUDGE_URL) must be 1"),
        ({ALLOW_VISITOR_URL: "http://ok.example/v1, not-a-url"}, "got 'not-a-url'"),
        ({"OPENAI_BASE_URL": "api.openai.com/v1"}, "environment (OPENAI_BASE_URL) must be an http(s) URL"),
        ({"OPENAI_API_KEY": "sk-a\nb"}, "environment (OPENAI_API_KEY) has a line break"),
    ],
)
def test_server_judge_names_a_malformed_setting(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        server_judge(env)
    assert "sk-a" not in str(caught.value)


def test_same_endpoint_ignores_only_spelling() -> None:
    assert same_endpoint("http://LOCALHOST:80/v1/", "http://localhost/v1")
    assert not same_endpoint("http://localhost/v1", "https://localhost/v1")
    assert not same_endpoint("http://localhost:8080/v1", "http://localhost/v1")
    assert not same_endpoint("not a url", "not a url")


def test_check_api_key_strips_and_refuses_what_http_cannot_carry() -> None:
    assert check_api_key("  sk-abc\r\n") == "sk-abc"
    with pytest.raises(ValueError, match="OPENAI_API_KEY has non-ASCII at character 3"):
        check_api_key("sk\u00a0abc", "OPENAI_API_KEY")
