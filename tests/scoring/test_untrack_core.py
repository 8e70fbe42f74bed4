"""The records core: kept ``run_evals`` records stop being walked by the garbage collector, and nothing else does."""

from __future__ import annotations

import copy
import gc
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import create_content_similarity_scorer, create_tone_scorer, evals, run_evals
from tests.scoring.native_cores import assert_missing_core_warns, required_core

DATA = [
    {"input": "Where is my order?", "output": "It ships today. Thanks for waiting!"},
    {"input": "Refund?", "output": "We are sorry. Your refund is on its way.", "groundTruth": "calm and kind"},
    {"input": "x", "output": ""},  # an error-free empty output: warnings, one sentence
]


@pytest.fixture
def core() -> ModuleType:
    return required_core(evals._CORE)


def _containers(tree: object) -> list[object]:
    """Every dict, list and tuple in ``tree``, itself included."""
    found, todo = [], [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (dict, list, tuple)):
            found.append(node)
            todo.extend(node.values() if isinstance(node, dict) else node)
    return found


def _without_run_ids(items: list[dict[str, object]]) -> list[dict[str, object]]:
    out = copy.deepcopy(items)
    for record in out:
        for result in record["scorerResults"].values():  # type: ignore[attr-defined]
            result.pop("runId", None)
    return out


def test_kept_records_are_untracked_and_unchanged(core: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    scorers = [create_tone_scorer(), create_content_similarity_scorer()]
    untracked = run_evals(DATA, scorers)
    assert not any(gc.is_tracked(c) for record in untracked["items"] for c in _containers(record))  # type: ignore[attr-defined]
    monkeypatch.setattr(evals, "_CORE", None)
    tracked = run_evals(DATA, scorers)
    assert all(gc.is_tracked(record) for record in tracked["items"])  # type: ignore[attr-defined]
    assert untracked["scores"] == tracked["scores"] and untracked["summary"] == tracked["summary"]
    assert _without_run_ids(untracked["items"]) == _without_run_ids(tracked["items"])  # type: ignore[arg-type]


def test_an_output_the_caller_shares_keeps_its_record_tracked(core: ModuleType) -> None:
    messages = [{"role": "assistant", "content": "It ships today. Thanks!"}]
    record = run_evals([{"input": "x", "output": messages}], [create_tone_scorer()])["items"][0]  # type: ignore[index]
    assert record["output"] is messages
    assert gc.is_tracked(messages) and gc.is_tracked(record)
    assert not gc.is_tracked(record["scorerResults"])  # the record's own parts are still untracked


def test_records_are_not_untracked_when_not_kept(core: ModuleType) -> None:
    seen: list[dict[str, object]] = []
    run_evals(DATA, [create_tone_scorer()], on_item_complete=seen.append, keep_items=False)
    assert all(gc.is_tracked(record) for record in seen)


def test_only_containers_the_tree_alone_holds(core: ModuleType) -> None:
    shared = ["kept elsewhere"]
    tree = {"own": [1, 2.5, "three"], "nested": {"deeper": [None, (4, [5])]}, "shared": shared}
    assert core.untrack_plain(tree) is False  # it holds a list someone else holds too
    assert gc.is_tracked(tree) and gc.is_tracked(shared)
    assert not gc.is_tracked(tree["own"]) and not gc.is_tracked(tree["nested"])
    assert not gc.is_tracked(tree["nested"]["deeper"])


def test_an_object_of_another_type_keeps_its_parents_tracked(core: ModuleType) -> None:
    class Note:
        pass

    tree = {"note": [Note()], "plain": [1]}
    assert core.untrack_plain(tree) is False
    assert gc.is_tracked(tree) and gc.is_tracked(tree["note"]) and not gc.is_tracked(tree["plain"])


def test_a_dict_given_a_container_is_tracked_again(core: ModuleType) -> None:
    record = run_evals(DATA[:1], [create_tone_scorer()])["items"][0]  # type: ignore[index]
    assert not gc.is_tracked(record)
    record["notes"] = ["mine"]  # CPython tracks a dict again when a tracked value goes in
    assert gc.is_tracked(record)
    gc.collect()
    assert record["notes"] == ["mine"]


def _nested_lists(depth: int) -> list[object]:
    """A list inside a list ``depth`` times over, each held by its parent only."""
    root: list[object] = ["leaf"]
    for _ in range(depth):
        root = [root]
    return root


def _deepest(root: list[object]) -> list[object]:
    while isinstance(root[0], list):
        root = root[0]
    return root


def test_a_tree_deeper_than_the_limit_stays_tracked(core: ModuleType) -> None:
    root = _nested_lists(200)
    assert core.untrack_plain(root) is False
    assert gc.is_tracked(root) and gc.is_tracked(_deepest(root))  # not entered below the limit
    root = _nested_lists(40)
    assert core.untrack_plain(root) is True
    assert not gc.is_tracked(root) and not gc.is_tracked(_deepest(root))


def test_a_shared_tuple_or_dict_is_untracked_only_as_cpython_would(core: ModuleType) -> None:
    enabled = gc.isenabled()
    gc.disable()  # a collection CPython started by itself here would untrack the plain tuple before the core does
    try:
        plain_tuple, tuple_of_list = tuple(["a", 1]), tuple([[1]])
        plain_dict: dict[str, object] = {"a": []}
        plain_dict["a"] = 1.5  # tracked since it held a list, and holding nothing tracked now
        tree = {"t": plain_tuple, "d": plain_dict, "tl": tuple_of_list}  # each also held by this test
        assert gc.is_tracked(plain_tuple) and gc.is_tracked(plain_dict)
        assert core.untrack_plain(tree) is False  # the shared tuple holds a list: not entered
        assert not gc.is_tracked(plain_tuple) and not gc.is_tracked(plain_dict)
        assert gc.is_tracked(tuple_of_list) and gc.is_tracked(tuple_of_list[0])
    finally:
        if enabled:
            gc.enable()


def test_the_core_takes_a_dict_or_a_list(core: ModuleType) -> None:
    with pytest.raises(TypeError, match="untrack_plain takes a dict or a list; got tuple"):
        core.untrack_plain((1, 2))  # type: ignore[arg-type]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4) | st.tuples(inner, inner)
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=3), JSON, max_size=5))
def test_any_plain_tree_is_untracked_whole_and_unchanged(tree: dict[str, object]) -> None:
    core = required_core(evals._CORE)
    fresh = copy.deepcopy(tree)  # every container held once, by the tree
    before = copy.deepcopy(fresh)
    assert core.untrack_plain(fresh) is True
    assert not any(gc.is_tracked(c) for c in _containers(fresh))
    assert fresh == before  # (a full collection after untracking: test_a_dict_given_a_container_is_tracked_again)


def test_a_missing_core_warns_and_records_stay_tracked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert_missing_core_warns(monkeypatch, "scoring._untrack_core", evals._load_core)
    monkeypatch.setattr(evals, "_CORE", None)
    record = run_evals(DATA[:1], [create_tone_scorer()])["items"][0]  # type: ignore[index]
    assert gc.is_tracked(record)
