"""The package installs: ``pip install .`` from the checkout gives ``import scoring`` and the ``tone-explorer`` command.

The install runs into a fresh virtual environment under ``tmp_path`` that sees the project environment's installed
dependencies through a ``.pth`` file (no download: offline-safe), from a copy of the checkout's source (the
checkout itself gets no ``build/`` or ``egg-info``). The wheel's build compiles the C cores, so the installed
package loads them; everything then runs from outside the checkout. The dependencies ``pyproject.toml`` declares
must agree with the pins of ``requirements.txt`` (what ``make run`` and ``make test`` install).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "requirements.txt", "app.py", "pages", "ui",
          "scoring"]  # fmt: skip
CORES = {"_untrack_core", "_dice_core", "_language_core", "_split_core", "_afinn_core", "_vader_core", "_e5_lite_core"}


def _requirements(path: Path) -> dict[str, Requirement]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    found = [Requirement(line) for line in lines if line and not line.startswith("-")]
    return {canonicalize_name(r.name): r for r in found}


def test_pyproject_dependencies_agree_with_the_pins() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    build = {canonicalize_name(Requirement(r).name) for r in project["build-system"]["requires"]}
    declared = [Requirement(r) for r in project["project"]["dependencies"]]
    for extra in project["project"]["optional-dependencies"].values():  # "all" names the others: tone-explorer[...]
        declared += [r for r in map(Requirement, extra) if canonicalize_name(r.name) != "tone-explorer"]
    by_name = {canonicalize_name(r.name): r for r in declared}
    pins = _requirements(ROOT / "requirements.txt")
    assert set(pins) - set(by_name) == build, "requirements.txt pins a package pyproject.toml does not declare"
    assert set(by_name) <= set(pins), "pyproject.toml declares a package requirements.txt does not pin"
    for name, declared_req in by_name.items():
        (pinned,) = pins[name].specifier
        assert pinned.operator == "==", f"requirements.txt must pin {name} exactly"
        assert declared_req.specifier.contains(pinned.version), f"{name}: {pinned} is outside {declared_req.specifier}"
        assert declared_req.extras == pins[name].extras, name
        assert str(declared_req.marker or "") == str(pins[name].marker or ""), name


def test_the_dashboard_scripts_reach_the_wheel() -> None:
    """setup.py copies app.py and every page into ui/_dashboard/ (pages added later included, by glob)."""
    namespace: dict[str, object] = {}
    text = (ROOT / "setup.py").read_text(encoding="utf-8")
    cwd = Path.cwd()
    try:
        os.chdir(ROOT)
        exec(compile(text.split("\nsetup(", 1)[0], "setup.py", "exec"), namespace)
    finally:
        os.chdir(cwd)
    assert set(namespace["DASHBOARD"]) == {"app.py", *(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))}  # type: ignore[arg-type]


def _copy_source(target: Path) -> None:
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc", "build", "*.egg-info")
    for name in SOURCE:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, target / name, ignore=skip)
        else:
            shutil.copy2(src, target / name)


def _fresh_venv(path: Path) -> Path:
    """A virtual environment without pip that sees the project environment's packages (a .pth file)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip
    shared = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    (Path(site) / "project_env.pth").write_text("".join(f"{p}\n" for p in shared), encoding="utf-8")
    return python


def test_pip_install_from_the_checkout_gives_the_command_and_the_package(tmp_path: Path) -> None:
    source, outside = tmp_path / "src", tmp_path / "elsewhere"
    source.mkdir()
    outside.mkdir()
    _copy_source(source)
    python = _fresh_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_NO_INDEX"] = "1"  # offline: nothing may be fetched
    env["TONE_EXPLORER_DB"] = f"sqlite:///{tmp_path / 'runs.db'}"  # never the user's run store

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(args, cwd=outside, env=env, capture_output=True, text=True, timeout=600)
        if check:
            assert done.returncode == 0, done.stdout + done.stderr
        return done

    run(str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", str(source))
    assert not any(source.glob("scoring/**/*.so")), "the wheel is built out of place"

    where = run(str(python), "-c", "import scoring, scoring.cli.serve as s; print(scoring.__file__); "
                "print(s.dashboard_path())").stdout.split()  # fmt: skip
    installed = Path(where[0]).parent
    assert installed.is_relative_to(tmp_path / "venv"), where  # the installed copy, not the checkout
    assert Path(where[1]) == installed.parent / "ui" / "_dashboard" / "app.py"
    assert {p.name for p in (installed.parent / "ui" / "_dashboard" / "pages").glob("*.py")} == {
        p.name for p in (ROOT / "pages").glob("*.py")
    }
    for data in ("data/sample_responses.csv", "data/js_lowercase.json", "tone/data/e5_head.json",
                 "toxicity/data/e5_head.json", "toxicity/data/e5_neighbours.npy", "text/data/e5_lite.npz",
                 "tone/data/e5_lite_head.json",
                 "tone/data/e5_lite_tokens.json", "toxicity/data/e5_lite_head.json",
                 "courtesy/data/e5_lite_courtesy_head.json", "courtesy/data/e5_courtesy_head.json"):  # fmt: skip
        assert (installed / data).is_file(), data
    built = {p.name.split(".", 1)[0] for p in installed.rglob("*.so")}
    assert built == CORES  # the wheel compiled every core
    loaded = run(str(python), "-c", "from scoring import native; "
                 "print(native.load('scoring.tone._vader_core') is not None)").stdout.strip()  # fmt: skip
    assert loaded == "True"

    command = tmp_path / "venv" / "bin" / "tone-explorer"
    helped = run(str(command), "--help").stdout
    assert helped.startswith("usage: tone-explorer") and "evaluate" in helped and "serve" in helped
    assert "--port" in run(str(command), "serve", "--help").stdout
    out = tmp_path / "scored.csv"
    scored = run(str(command), "evaluate", str(installed / "data" / "sample_responses.csv"), "--out", str(out),
                 "--no-progress")  # fmt: skip
    assert "tone-scorer" in scored.stdout and out.is_file()
    refused = run(str(command), "evaluate", str(tmp_path / "missing.csv"), check=False)
    assert refused.returncode == 2 and "no such file" in refused.stderr


def test_without_a_compiler_the_wheel_installs_and_the_python_code_runs(tmp_path: Path) -> None:
    """No C compiler (CC=false): the wheel leaves the cores out with a warning; the package scores the same."""
    source, outside = tmp_path / "src", tmp_path / "elsewhere"
    source.mkdir()
    outside.mkdir()
    _copy_source(source)
    python = _fresh_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env |= {"PIP_NO_INDEX": "1", "CC": "false", "LDSHARED": "false"}
    command = [str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-v", str(source)]
    install = subprocess.run(command, cwd=outside, env=env, capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stdout + install.stderr
    assert "_vader_core was not built" in install.stdout + install.stderr
    script = (
        "import warnings; warnings.simplefilter('ignore'); import scoring, pathlib; "
        "from scoring import create_tone_scorer; "
        "print(sorted(p.name for p in pathlib.Path(scoring.__file__).parent.rglob('*.so'))); "
        "scorer = create_tone_scorer(engine='afinn', splitter='mastra'); "
        "print(repr(scorer.run(output='It was great. Thanks!').score))"
    )
    shown = subprocess.run([str(python), "-c", script], cwd=outside, env=env, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split("\n")[:2] == ["[]", "0.75"]  # no core installed; Mastra's number from the Python code
