"""Limits: defaults, environment overrides, and the upload limit agreeing with Streamlit's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scoring.inputs import to_text
from scoring.limits import (
    ENV_VARS,
    STREAMLIT_CONFIG,
    LimitError,
    check_row_count,
    check_text_length,
    check_upload_size,
    get_limits,
    max_text_chars,
    user_message,
)

ROOT = Path(__file__).resolve().parents[2]


def _streamlit_upload_mb(env: dict[str, str]) -> int:
    """Ask `streamlit config show` (which reads env vars as `streamlit run` does) for maxUploadSize."""
    out = subprocess.run(
        [sys.executable, "-m", "streamlit", "config", "show"],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "HOME": str(ROOT), **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("maxUploadSize ="))
    return int(line.split("=")[1])


@pytest.mark.parametrize("env", [{}, {"STREAMLIT_SERVER_MAX_UPLOAD_SIZE": "7"}])
def test_upload_limit_is_the_one_streamlit_enforces(env: dict[str, str]) -> None:
    assert get_limits(env).max_upload_mb == _streamlit_upload_mb(env)


def test_defaults() -> None:
    limits = get_limits({})
    assert STREAMLIT_CONFIG.is_file()
    assert (limits.max_rows, limits.max_text_chars, limits.judge_timeout_s, limits.judge_concurrency) == (
        100_000,
        1_000_000,
        30.0,
        4,
    )
    assert limits.max_upload_bytes == limits.max_upload_mb * 2**20


@pytest.mark.parametrize("field", sorted(ENV_VARS))
def test_every_limit_is_set_by_its_variable(field: str) -> None:
    var = ENV_VARS[field][0]
    assert getattr(get_limits({var: " 3 "}), field) == 3


@pytest.mark.parametrize("raw", ["abc", "0", "-5", "1.5e", "inf", "nan"])
@pytest.mark.parametrize("field", ["max_rows", "judge_timeout_s"])
def test_bad_values_name_the_variable(field: str, raw: str) -> None:
    var = ENV_VARS[field][0]
    with pytest.raises(ValueError, match=rf"{var} must be a positive (whole )?number; got '{raw}'"):
        get_limits({var: raw})


def test_reads_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TONE_EXPLORER_JUDGE_CONCURRENCY", "9")
    assert get_limits().judge_concurrency == 9


def test_the_text_limit_follows_its_variable_as_it_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit is kept between texts, but setting, changing or unsetting the variable takes effect at once."""
    var = "TONE_EXPLORER_MAX_TEXT_CHARS"
    monkeypatch.delenv(var, raising=False)
    assert max_text_chars() == 1_000_000
    monkeypatch.setenv(var, "5")
    assert max_text_chars() == 5 and max_text_chars() == 5
    with pytest.raises(ValueError, match="output is 6 characters long; at most 5 are scored"):
        to_text("123456")
    monkeypatch.setenv(var, "6")
    assert to_text("123456") == "123456"
    monkeypatch.setenv(var, "zero")
    with pytest.raises(ValueError, match=f"{var} must be a positive whole number; got 'zero'"):
        to_text("1")
    monkeypatch.delenv(var)
    assert max_text_chars() == 1_000_000


def test_checks_name_what_is_over_the_limit() -> None:
    limits = get_limits({"TONE_EXPLORER_MAX_TEXT_CHARS": "5", "TONE_EXPLORER_MAX_ROWS": "2"})
    assert check_text_length("12345", limits=limits) == "12345"
    with pytest.raises(ValueError, match="ground_truth is 6 characters long; at most 5 are scored"):
        check_text_length("123456", "ground_truth", limits=limits)
    check_row_count(2, "a.csv", limits=limits)
    with pytest.raises(ValueError, match=r"a\.csv has 3 rows; one run scores at most 2"):
        check_row_count(3, "a.csv", limits=limits)
    mb = limits.max_upload_mb
    check_upload_size(mb * 2**20, "big.csv", limits=limits)
    with pytest.raises(ValueError, match=rf"big\.csv is {mb}\.0 MB; files up to {mb} MB are accepted"):
        check_upload_size(mb * 2**20 + 1, "big.csv", limits=limits)


def test_limit_errors_speak_to_a_page_user_without_variable_names() -> None:
    limits = get_limits({"TONE_EXPLORER_MAX_TEXT_CHARS": "5", "TONE_EXPLORER_MAX_ROWS": "2"})
    checks = [
        lambda: check_text_length("123456", "notes.txt", limits=limits),
        lambda: check_row_count(3, "a.csv", limits=limits),
        lambda: check_upload_size(limits.max_upload_bytes + 1, "big.csv", limits=limits),
    ]
    for check in checks:
        with pytest.raises(LimitError) as caught:
            check()
        developer, user = str(caught.value), user_message(caught.value)
        assert any(var in developer for var, _, _ in ENV_VARS.values())  # the CLI says how to change it
        assert not any(var in user for var, _, _ in ENV_VARS.values()) and "config.toml" not in user
        assert user.split(";")[0] == developer.split(";")[0]  # the same fact, worded for the page
    assert user_message(ValueError("plain")) == "plain"
