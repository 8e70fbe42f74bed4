"""Ctrl-C and SIGTERM during a CLI run are remembered: library code that swallows the exception cannot lose them."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

import pytest

from scoring.cli.main import Terminated, _raise_pending, _sigterm_unwinds


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """Ctrl-C as in a terminal (Python's KeyboardInterrupt handler), whatever the test runner set."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize(("sig", "stop"), [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)])
def test_a_stop_swallowed_where_it_was_raised_is_raised_again(
    ctrl_c_raises: None, sig: signal.Signals, stop: type[BaseException]
) -> None:
    with _sigterm_unwinds():
        _raise_pending()  # nothing arrived yet
        with contextlib.suppress(stop):  # as, say, a compiled library's look-up clearing any error it meets
            signal.raise_signal(sig)  # the handler raises here
        with pytest.raises(stop):
            _raise_pending()  # the CLI's next check (after each chunk, before the rename)
    _raise_pending()  # the run is over: nothing is left pending
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_an_ignored_ctrl_c_stays_ignored() -> None:
    """Started under nohup (or as a shell's background job), Ctrl-C is ignored: the run does not take it over."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _sigterm_unwinds():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)
            _raise_pending()
    finally:
        signal.signal(signal.SIGINT, previous)
