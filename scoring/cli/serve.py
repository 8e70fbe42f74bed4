"""``tone-explorer serve``: start the dashboard (Streamlit) from a checkout or from the installed package.

The dashboard is ``app.py`` (the router) and ``pages/``: scripts Streamlit runs by path. In a checkout they sit
beside ``scoring/``; a wheel carries them as ``ui/_dashboard/`` (``setup.py``). Neither is imported here (the library
never imports the dashboard): their place is looked up and Streamlit is started on it, in a child process.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path

from scoring.errors import InputError

__all__ = ["add_serve_parser", "dashboard_path", "serve"]


def dashboard_path() -> Path:
    """Return the dashboard's ``app.py``: the checkout's, else the installed ``ui/_dashboard/app.py``.

    Raises:
        InputError: neither is there (``scoring`` installed without the dashboard).
    """
    checkout = Path(__file__).resolve().parents[2] / "app.py"
    if checkout.is_file() and (checkout.parent / "pages").is_dir():
        return checkout
    spec = find_spec("ui")
    if spec is not None and spec.origin is not None:
        installed = Path(spec.origin).parent / "_dashboard" / "app.py"
        if installed.is_file():
            return installed
    raise InputError("the dashboard's files (app.py, pages/) are not installed: pip install tone-explorer.")


def add_serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve [--port N] [STREAMLIT OPTIONS]`` to the CLI."""
    serve_ = sub.add_parser("serve", help="start the dashboard in a browser (Streamlit)",
                            description="Start the dashboard; options after -- go to `streamlit run`.")  # fmt: skip
    serve_.add_argument("--port", type=int, default=8501, help="the port (default 8501)")
    serve_.add_argument("--address", default="localhost", help="the address to listen on (default localhost)")
    serve_.add_argument("streamlit_args", nargs=argparse.REMAINDER, metavar="...", help="more `streamlit run` options")


def serve(args: argparse.Namespace) -> int:
    """Run ``streamlit run app.py`` until it stops; return its exit code."""
    extra: Sequence[str] = [a for a in args.streamlit_args if a != "--"]
    command = [sys.executable, "-m", "streamlit", "run", str(dashboard_path()), "--server.port", str(args.port),
               "--server.address", args.address, *extra]  # fmt: skip
    return subprocess.call(command)
