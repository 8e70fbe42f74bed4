"""No table names an engine, scorer, splitter or file format the registries do not know.

Facts live in one place each: a tone engine's on the engine (``scoring/tone/engines.py``), a scorer's on its
``ScorerInfo`` (``scoring/registry.py``), a format's in ``scoring/io/formats.py``. Every other table derives from
them; this test reads each of those tables (and the source, for literal scorer ids) and checks it against them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import ui
from scoring.cli.main import build_parser
from scoring.cli.sink import OUT_FORMATS
from scoring.io import export, formats, loaders
from scoring.registry import DEFAULT_TONE_ENGINE, SCORER_INFO, TONE, TOXICITY
from scoring.text import language
from scoring.text.splitters import DEFAULT_SPLITTER, SPLITTER_LABELS, SPLITTERS
from scoring.tone import engines as tone_engines
from scoring.tone.explain import OTHER_ENGINE, SENTIMENT_THRESHOLDS
from scoring.toxicity import scorer as toxicity
from ui.batch_input import FILE_TYPES
from ui.demo_examples import EXAMPLES
from ui.share import SHARED

ROOT = Path(__file__).resolve().parents[2]


def _choices(option: str) -> list[str]:
    parser = build_parser()
    evaluate = next(a for a in parser._actions if a.dest == "command").choices["evaluate"]  # type: ignore[index]
    return list(next(a for a in evaluate._actions if option in a.option_strings).choices)


def test_tone_engine_tables_are_the_engines() -> None:
    names = list(tone_engines.ENGINES)
    assert list(TONE.engines) == names and TONE.default_engine == DEFAULT_TONE_ENGINE == names[0]
    assert set(TONE.slow_engines) <= set(names)
    for table in (SENTIMENT_THRESHOLDS, ui.Y_LABELS, ui.DRIVER_NOTES):
        assert list(table) == names
    assert set(OTHER_ENGINE) <= set(names) and set(OTHER_ENGINE.values()) <= set(names)
    assert all(OTHER_ENGINE.get(partner) == engine for engine, partner in OTHER_ENGINE.items())  # both ways
    assert set(language.ENGINE_LANGUAGES) == set(names) and set(names) >= language.LEXICON_ENGINES
    assert _choices("--engine") == names


def test_scorer_tables_are_the_registry() -> None:
    ids = {info.id for info in SCORER_INFO}
    for info in SCORER_INFO:
        assert set(info.slow_engines) | set(info.remote_engines) | set(info.speed_notes) <= set(info.engines)
        assert info.batch_default is None or info.batch_default in info.engines
        assert info.retry_keeps.get("engine") in (None, *info.engines)
    assert list(TOXICITY.engines) == list(toxicity.ENGINES) == list(toxicity.MEASURED_RECALL)
    assert set(toxicity.KNOWN_GAPS) <= set(TOXICITY.engines)
    assert _choices("--toxicity-engine") == list(TOXICITY.engines)
    scorer_ids = re.compile(r"^[a-z-]+-scorer$")
    for path in [*ROOT.glob("scoring/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and scorer_ids.match(node.value):
                assert node.value in ids, f"{path.relative_to(ROOT)} names an unknown scorer {node.value!r}"


def test_the_pages_defaults_and_links_name_known_things() -> None:
    assert ui.DEFAULTS["tone.engine"] in TONE.engines and ui.DEFAULTS["toxicity.engine"] in TOXICITY.engines
    assert ui.DEFAULTS["tone.splitter"] == DEFAULT_SPLITTER and list(SPLITTER_LABELS) == list(SPLITTERS)
    assert _choices("--splitter") == list(SPLITTERS)
    known = {
        "tone.engine": set(TONE.engines),
        "tone.splitter": set(SPLITTERS),
        "toxicity.engine": set(TOXICITY.engines),
    }
    for example in EXAMPLES:
        for key, value in example.state.items():
            assert key not in known or value in known[key], f"demo {example.id!r}: {key}={value!r}"
    for shared in (s for group in SHARED.values() for s in group):
        if shared.key in known:
            assert set(shared.choices) == known[shared.key], shared.key


def test_file_formats_come_from_one_table() -> None:
    suffixes = {s for f in formats.FORMATS for s in f.suffixes}
    assert {f".{t}" for t in FILE_TYPES} == suffixes  # the uploader offers exactly what the loader reads
    assert not set(formats.REFUSED) & suffixes  # and nothing it refuses (.xls)
    assert loaders.ACCEPTED == formats.ACCEPTED and all(s in formats.ACCEPTED for s in suffixes)
    assert set(OUT_FORMATS) <= suffixes and all(formats.format_of_suffix(s) == n for s, n in OUT_FORMATS.items())
    assert {ext for ext, _ in export.FORMATS.values()} <= suffixes
    for suffix in suffixes:  # each suffix is read as its format
        assert formats.format_of_suffix(suffix.upper()) in {f.name for f in formats.FORMATS}
