"""The dashboard's shared UI: session state, cached scoring, widgets, the judge panel, batch sections, escaping.

Pages import this package and call ``ui.<name>``; every number they show comes from ``scoring/``.
"""

from ui.cached import (
    drivers,
    similarity_result,
    tone_figure,
    tone_frame,
    tone_highlight,
    tone_result,
    toxicity_classified,
    toxicity_classifier,
    toxicity_engines,
    toxicity_judged,
)
from ui.courtesy import show_agent_comparison, show_courtesy
from ui.first_paint import painted
from ui.judge import (
    JudgeSettings,
    judge_access,
    judge_panel,
    judge_settings,
    toxicity_known_gaps,
    toxicity_recall,
)
from ui.markdown import HIGHLIGHT_LEGEND
from ui.state import (
    CHART_NOTES,
    DEFAULTS,
    DRIVER_NOTES,
    PAGE_FILES,
    SPLITTER_LABELS,
    Y_LABELS,
    init_state,
    load_example,
    toxicity_default_engine,
    under_router,
)
from ui.widgets import (
    METRIC_LABELS,
    attempt,
    engine_comparison,
    json_download,
    metric_row,
    processed_text,
    score_card,
    show_warnings,
    text_source,
    tone_chart,
    tone_score_card,
    word_diff_view,
)

__all__ = [
    "CHART_NOTES",
    "DEFAULTS",
    "DRIVER_NOTES",
    "HIGHLIGHT_LEGEND",
    "METRIC_LABELS",
    "PAGE_FILES",
    "SPLITTER_LABELS",
    "Y_LABELS",
    "JudgeSettings",
    "attempt",
    "drivers",
    "engine_comparison",
    "init_state",
    "json_download",
    "judge_access",
    "judge_panel",
    "judge_settings",
    "load_example",
    "metric_row",
    "painted",
    "processed_text",
    "score_card",
    "show_agent_comparison",
    "show_courtesy",
    "show_warnings",
    "similarity_result",
    "text_source",
    "tone_chart",
    "tone_figure",
    "tone_frame",
    "tone_highlight",
    "tone_result",
    "tone_score_card",
    "toxicity_classified",
    "toxicity_classifier",
    "toxicity_default_engine",
    "toxicity_engines",
    "toxicity_judged",
    "toxicity_known_gaps",
    "toxicity_recall",
    "under_router",
    "word_diff_view",
]
