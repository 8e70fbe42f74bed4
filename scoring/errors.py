"""The package's errors: one family under :class:`ScoringError`, for everything the package refuses.

A page or the CLI catches :class:`ScoringError` and shows its message (``user_message`` where one is set, for a
page's reader: :func:`scoring.limits.user_message`); anything else (``TypeError`` from a bug, ``KeyError``, ...) is a
programming error and surfaces as one. Each class also keeps the built-in base its place used to raise
(``ValueError``, ``TypeError``, ``RuntimeError``, ``LookupError``), so ``except ValueError`` still catches an
:class:`InputError`.

>>> issubclass(LimitError, InputError) and issubclass(InputError, ValueError)
True
>>> [c.__name__ for c in ScoringError.__subclasses__() if c.__module__ == __name__]
['InputError', 'InputTypeError', 'EngineUnavailable', 'JudgeError', 'RunStoreError', 'UnknownRunError']
"""

from __future__ import annotations

__all__ = [
    "EngineUnavailable",
    "InputError",
    "InputTypeError",
    "JudgeError",
    "LimitError",
    "RunStoreError",
    "ScoringError",
    "UnknownRunError",
    "error_name",
]


class ScoringError(Exception):
    """The package refused something, for a reason its message says (never a bug)."""


class InputError(ScoringError, ValueError):
    """A value, option, text or file the package does not accept; the message names it and what is accepted."""


class InputTypeError(ScoringError, TypeError):
    """An argument of a type the package does not accept (a list where a string goes, ...)."""


class LimitError(InputError):
    """Input over a limit: ``str()`` says which variable raises it; ``user_message`` speaks to a page's user."""

    def __init__(self, message: str, user_message: str) -> None:
        super().__init__(message)
        self.user_message = user_message


class EngineUnavailable(ScoringError, RuntimeError):
    """An engine cannot run on this machine (a wheel that does not exist for it, a library that does not load)."""


class JudgeError(ScoringError, RuntimeError):
    """The judge gave no usable answer; ``kind`` is one of ``unreachable``, ``timeout``, ``refused``,
    ``rate_limited``, ``server_error``, ``rejected``, ``redirected``, ``too_large``, ``unparseable``,
    ``cancelled``."""

    def __init__(self, message: str, *, kind: str, status: int | None = None, user_message: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.user_message = user_message or message  # what a dashboard page shows: no variable or argument names


class RunStoreError(ScoringError, RuntimeError):
    """The run store cannot be used: unreachable, busy, not a run store, or written by a newer version."""


class UnknownRunError(ScoringError, LookupError):
    """No run matches the id, name or ``latest`` asked for."""


def error_name(exc: BaseException) -> str:
    """The class name a message shows for ``exc``: :class:`InputError` and :class:`InputTypeError` by the built-in
    they took over from (``ValueError``, ``TypeError``), so every message reads as it did; others by their own.

    >>> error_name(InputError("x")), error_name(InputTypeError("x")), error_name(LimitError("x", "y"))
    ('ValueError', 'TypeError', 'LimitError')
    """
    return _SHOWN_AS.get(type(exc), type(exc).__name__)


_SHOWN_AS: dict[type[BaseException], str] = {InputError: "ValueError", InputTypeError: "TypeError"}
