"""Names used across packages are public: no module imports another package's ``_private`` name.

The direction of imports is checked by import-linter (``lint-imports``, run by ``make test``; contracts in
pyproject.toml). It sees modules, not names, so this test reads every import with ``ast``: in ``scoring/``,
``ui/``, ``pages/``, ``bench/`` and ``app.py``, a ``from scoring.x.y import _name`` (or ``y._name`` after
``from scoring.x import y``) from outside package ``scoring.x`` fails. Tests may reach into the module
they test, so ``tests/`` is not read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("scoring", "ui")
READ = [*sorted((ROOT / "scoring").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py")),
        *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "bench").glob("*.py")), ROOT / "app.py"]  # fmt: skip


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str, *, is_package: bool = False) -> str:
    """The package a module belongs to (a package belongs to itself)."""
    return module if is_package else module.rpartition(".")[0] or module


def _is_package(module: str) -> bool:
    return (ROOT / module.replace(".", "/") / "__init__.py").is_file()


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = _package(module, is_package=is_package).split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def violations(path: Path) -> list[str]:
    """Each import in ``path`` of a private name from a project module of another package."""
    where = str(path.relative_to(ROOT))
    return _violations(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py", where)


def _violations(source_text: str, module: str, is_package: bool, where: str) -> list[str]:
    own = _package(module, is_package=is_package)
    found: list[str] = []
    modules: dict[str, str] = {}  # local name -> project module it is bound to
    tree = ast.parse(source_text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, is_package)
            if source.split(".")[0] not in PROJECT:
                continue
            for alias in node.names:
                target = f"{source}.{alias.name}"
                if _is_package(target) or (ROOT / f"{target.replace('.', '/')}.py").is_file():
                    modules[alias.asname or alias.name] = target  # a module imported by name
                elif _private(alias.name) and _package(source, is_package=_is_package(source)) != own:
                    found.append(f"{where}:{node.lineno}: from {source} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PROJECT and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
            target = modules.get(node.value.id)
            if target is not None and _package(target, is_package=_is_package(target)) != own:
                found.append(f"{where}:{node.lineno}: {node.value.id}.{node.attr} ({target})")
    return found


def test_no_module_uses_another_packages_private_names() -> None:
    assert [v for path in READ for v in violations(path)] == []


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("from scoring.text.language import _detector\n", True),
        ("from scoring.text import language\nlanguage._detector()\n", True),
        ("import scoring.text.language as lang\nlang._strip_noise('x')\n", True),
        ("from scoring.text.language import detect_language\n", False),
        ("from scoring.batch.rows import _scorer\n", False),  # written inside scoring/batch/: its own package
        ("from scoring.batch import rows\nrows.__name__\n", False),  # dunder names are public
    ],
)
def test_the_check_flags_private_names_of_other_packages(source: str, flagged: bool) -> None:
    assert bool(_violations(source, "scoring.batch.probe", False, "probe")) is flagged
