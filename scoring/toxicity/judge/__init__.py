"""The LLM judge: an OpenAI-compatible client, its prompts, and batched verdicts."""

from scoring.toxicity.judge.client import DEFAULT_BASE_URL, JudgeError, ToxicityJudge

__all__ = ["DEFAULT_BASE_URL", "JudgeError", "ToxicityJudge"]
