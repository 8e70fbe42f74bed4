"""No table names an engine, scorer, splitter or file format the registries do not know.

Facts live in one place each: a tone engine's on the engine (``scoring/tone/engines.py``), a scorer's on its
``ScorerInfo`` (``scoring/registry.py``), a format's in ``scoring/io/formats.py``. Every other table derives from
them; this test reads each of those tables (and the source, for literal scorer ids) and checks it against them.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import ui
from scoring.cli.main import build_parser
from scoring.cli.sink import OUT_FORMATS
from scoring.courtesy import e5 as courtesy_heads
from scoring.io import export, formats, loaders
from scoring.registry import COURTESY, DEFAULT_TONE_ENGINE, SCORER_INFO, TONE, TOXICITY
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
    assert _choices("--courtesy-engine") == list(COURTESY.engines)
    assert set(COURTESY.engines) == set(courtesy_heads.HEADS)  # each courtesy engine has its head file
    scorer_ids = re.compile(r"^[a-z-]+-scorer$")
    for path in [*ROOT.glob("scoring/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and scorer_ids.match(node.value):
                assert node.value in ids, f"{path.relative_to(ROOT)} names an unknown scorer {node.value!r}"


def test_toxicity_engine_tables_are_the_engines_facts() -> None:
    from scoring.toxicity import classifier, e5, e5_lite
    from scoring.toxicity.judge import client

    facts = toxicity.ENGINE_FACTS
    assert facts == {
        "e5": e5.FACTS,
        "classifier": classifier.FACTS,
        "judge": client.FACTS,
        "e5-lite": e5_lite.FACTS,
    }  # each on its engine; fmt: skip
    assert list(toxicity.ENGINES) == list(facts) == list(TOXICITY.engines)
    assert dict(TOXICITY.engines) == {name: f.label for name, f in facts.items()}
    assert TOXICITY.remote_engines == {name for name, f in facts.items() if f.remote} == {"judge"}
    assert TOXICITY.slow_engines == {name for name, f in facts.items() if f.slow} == {"e5"}
    assert dict(TOXICITY.speed_notes) == {name: f.speed for name, f in facts.items() if f.speed}
    assert {name: f.known_gaps for name, f in facts.items()} == toxicity.KNOWN_GAPS
    assert {name: f.measured_recall for name, f in facts.items()} == toxicity.MEASURED_RECALL
    assert {k: v for k, v in TOXICITY.retry_keeps.items() if k != "engine"} == dict(client.FACTS.retry_keeps)
    assert ui.DEFAULTS["toxicity.threshold"] == classifier.FACTS.threshold == toxicity.CLASSIFIER_THRESHOLD
    assert ui.DEFAULTS["toxicity.model"] == toxicity.DEFAULT_JUDGE_MODEL == client.FACTS.retry_keeps["model"]
    assert e5.FACTS.threshold is None  # e5: its measured defaults, a threshold per language
    assert e5_lite.FACTS.threshold == e5_lite.head().threshold == ui.DEFAULTS["toxicity.e5_lite_threshold"]
    assert not e5_lite.FACTS.slow  # scored in one batch, as the classifier
    for name, f in facts.items():  # what a scorer built with no threshold uses is the engine's
        if name != "e5" and (name != "judge" or client.FACTS.threshold is not None):
            options = {"base_url": "http://localhost:1/v1"} if f.remote else {}
            assert toxicity.create_toxicity_scorer(engine=name, **options).threshold == f.threshold
    retries = client.FACTS.retries
    assert retries is not None
    defaults = {k: p.default for k, p in inspect.signature(toxicity.create_toxicity_scorer).parameters.items()}
    assert {k: defaults[k] for k in ("max_retries", "parse_retries", "backoff", "max_backoff")} == {
        "max_retries": retries.max_retries, "parse_retries": retries.parse_retries, "backoff": retries.backoff,
        "max_backoff": retries.max_backoff}  # fmt: skip


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
