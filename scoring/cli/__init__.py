"""The command line: ``python -m scoring evaluate FILE ...``."""

from scoring.cli.main import main

__all__ = ["main"]
