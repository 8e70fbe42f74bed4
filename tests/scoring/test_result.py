"""Results and run ids: random UUID4 strings, never handed out twice, not even by a forked worker."""

from __future__ import annotations

import dataclasses
import os
import uuid

import pytest

from scoring.result import ScoreResult, make_result, new_run_id


def test_make_result_builds_the_same_frozen_result_as_the_constructor() -> None:
    fields = ("tone-scorer", 0.5, {"score": 0.5}, {"avgSentiment": 0.1}, "run-1", "a reason", ("a warning",))
    made = make_result(*fields)
    assert made == ScoreResult(*fields) and repr(made) == repr(ScoreResult(*fields))
    assert made.to_dict() == ScoreResult(*fields).to_dict()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.score = 1.0  # type: ignore[misc]
    fresh = make_result("tone-scorer", 1.0, {}, {})
    assert uuid.UUID(fresh.run_id).version == 4 and fresh.reason is None and fresh.warnings == ()


def test_run_ids_are_distinct_uuid4_strings() -> None:
    ids = [new_run_id() for _ in range(2_000)]  # several draws of the pool
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and parsed.version == 4 and parsed.variant == uuid.RFC_4122


def test_a_forked_process_does_not_reuse_its_parents_ids() -> None:
    new_run_id()  # the pool now holds ids a fork would copy
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: send its next ids, then leave without running the parent's cleanup
        os.close(read)
        os.write(write, " ".join(new_run_id() for _ in range(50)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        child = set(pipe.read().split())
    os.waitpid(pid, 0)
    parent = {new_run_id() for _ in range(50)}
    assert len(child) == 50 and not child & parent
