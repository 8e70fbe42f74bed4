"""Share links: which query parameters a page reads and writes, and what a link leaves out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ui.share import MAX_SHARED_CHARS, SHARED, params_to_state, state_to_params
from ui.state import DEFAULTS


@pytest.mark.parametrize("page", sorted(SHARED))
def test_every_shared_value_is_a_page_setting_with_a_default(page: str) -> None:
    assert all(item.key in DEFAULTS and item.key.startswith(f"{page}.") for item in SHARED[page])
    assert len({item.param for item in SHARED[page]}) == len(SHARED[page])


@settings(max_examples=100, deadline=None)
@given(
    text=st.text(max_size=MAX_SHARED_CHARS),
    reference=st.text(max_size=50),
    mode=st.sampled_from(["stability", "comparison"]),
    engine=st.sampled_from(["vader", "afinn", "e5"]),
    both=st.booleans(),
)
def test_a_link_reopens_the_same_values(text: str, reference: str, mode: str, engine: str, both: bool) -> None:
    state = {"tone.text": text, "tone.reference": reference, "tone.mode": mode, "tone.engine": engine,
             "tone.splitter": "mastra", "tone.compare_engines": both}  # fmt: skip
    params, too_long = state_to_params("tone", state)
    assert too_long == []
    assert params_to_state("tone", params) == (state, [])


def test_a_text_too_long_for_a_link_is_left_out_not_cut() -> None:
    state = {"similarity.input": "x" * (MAX_SHARED_CHARS + 1), "similarity.output": "y" * MAX_SHARED_CHARS,
             "similarity.ignore_case": False, "similarity.ignore_whitespace": True}  # fmt: skip
    params, too_long = state_to_params("similarity", state)
    assert too_long == ["a"] and "a" not in params  # a shortened text would reopen with another score
    assert params == {"b": "y" * MAX_SHARED_CHARS, "case": "0", "ws": "1"}


@pytest.mark.parametrize(
    ("params", "ignored"),
    [
        ({"engine": "bert"}, "the link's engine 'bert' is not one of vader, afinn, e5, e5-lite"),
        ({"mode": "loud"}, "the link's mode 'loud' is not one of stability, comparison"),
        ({"compare": "maybe"}, "the link's compare 'maybe' is not 1 or 0"),
    ],
)
def test_a_bad_value_in_a_link_is_ignored_and_named(params: dict[str, str], ignored: str) -> None:
    state, problems = params_to_state("tone", {**params, "text": "Hi."})
    assert state == {"tone.text": "Hi."} and problems == [ignored]
