"""How well do the engines agree with people? Correlations with human ratings, in English and beyond.

Run ``python -m bench.engines_vs_humans [--data DIR] [--no-e5] [--speed] [--similarity] [--explanations]``.

* English: every ``*.csv`` (``id``, ``text``, ``human_rating`` from -4 to +4) of the VADER ground-truth
  folder (default: the shared data folder beside the repository). Per file and overall, Pearson's r and
  Spearman's rho between the human mean rating and VADER's compound, AFINN's comparative (what
  ``@mastra/evals`` uses), AFINN's raw sum and the e5 engine. e5's numbers on the sets its head is trained
  on (tweets, movie and Amazon snippets) are nested 5-fold cross-validated (each text scored by a head that
  never saw it; ``tools/train_e5_tone.py``); the NYT editorials are held out of training entirely and
  scored by the shipped head.
* Korean: the NSMC sample (2,000 movie reviews, label = 9-10 stars vs 1-4): accuracy of the sign, ROC AUC
  and Spearman's rho against the stars, for e5 cross-validated (Hangul head), e5 trained on English only (no
  Korean seen), VADER and AFINN.
* Chinese and Japanese: ``tests/scoring/data/support_replies_cjk.csv`` (48 hand-written support replies per
  language, labelled +1/-1; never trained on): sign accuracy (0 counts as wrong) and ROC AUC.
* ``--speed``: e5 texts/s cold and cached, the Tone page's work and the page itself (AppTest) for a new
  5-sentence reply in a warm process, and the memory the loaded encoder takes (in a fresh process).
* ``--similarity``: the e5 similarity's calibration on ``tests/scoring/data/similarity_pairs.csv`` (written
  pairs: unrelated, same topic, paraphrase): per half (even rows calibrate the anchors, odd rows check
  them) and kind, the mean raw cosine and the rescaled score's mean, min and max.
* ``--explanations``: the occlusion drivers against VADER's lexicon: on 73 rated sentences (up to 25 per
  set), the share of strong lexicon words (|valence| >= 1.5) whose e5 driver value has the lexicon's sign,
  with the word replaced by a blank (shipped) and deleted outright.

The e5 embeddings of the data sets come from the disk cache (``tools/e5_data.py``); a missing one is
computed first (about an hour per 10,000 texts on 2 busy cores).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.metrics import roc_auc_score

from scoring.tone.afinn import analyze
from scoring.tone.engines import get_engine
from tools.e5_data import DEFAULT_DATA as SHARED_DATA
from tools.e5_data import SETS

DEFAULT_DATA = SHARED_DATA / "vader-ground-truth"
CJK_REPLIES = Path(__file__).resolve().parents[1] / "tests" / "scoring" / "data" / "support_replies_cjk.csv"
SIMILARITY_PAIRS = CJK_REPLIES.with_name("similarity_pairs.csv")
COLUMNS = {"VADER compound": "vader", "AFINN comparative": "afinn", "AFINN score (sum)": "afinn_sum"}
E5_COLUMN = {"e5 (CV; NYT held out)": "e5"}
E5_LITE_COLUMN = {"e5-lite (CV; NYT held out)": "e5_lite"}
FILE_OF_SET = {name: Path(rel).stem for name, (rel, _) in SETS.items() if rel.startswith("vader-ground-truth/")}


def load(folder: Path) -> pd.DataFrame:
    """All ground-truth files in ``folder``, with a ``file`` column."""
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise ValueError(f"data folder must hold the VADER ground-truth *.csv files; found none in {folder}.")
    frames = [pd.read_csv(f, dtype={"id": str, "text": str}, keep_default_na=False).assign(file=f.stem) for f in files]
    return pd.concat(frames, ignore_index=True)


def score(df: pd.DataFrame) -> pd.DataFrame:
    """Add one column per lexicon engine score."""
    vader, afinn = get_engine("vader"), get_engine("afinn")
    texts = df["text"].tolist()
    return df.assign(
        vader=[vader.polarity(t) for t in texts],
        afinn=[afinn.polarity(t) for t in texts],
        afinn_sum=[float(analyze(t).score) for t in texts],
    )


def add_e5(df: pd.DataFrame, training: object, column_name: str = "e5") -> pd.DataFrame:
    """Add the e5 column (or another learned engine's, ``column_name``): out-of-fold predictions on training
    sets, the shipped head's on held-out ones."""
    predictions = {**training.cv_predictions, **training.held_out_predictions}  # type: ignore[attr-defined]
    column = np.full(len(df), np.nan)
    for name, stem in FILE_OF_SET.items():
        rows = np.flatnonzero(df["file"].to_numpy() == stem)
        if len(rows):
            expected = training.sets[name].frame["text"].tolist()  # type: ignore[attr-defined]
            if df["text"].iloc[rows].tolist() != expected:
                raise ValueError(f"{stem}: rows differ from the training data's; is --data the same folder?")
            column[rows] = predictions[name]
    return df.assign(**{column_name: column})


def correlations(df: pd.DataFrame, columns: dict[str, str]) -> list[dict[str, object]]:
    """Pearson and Spearman of each engine column with ``human_rating``, per file and overall."""
    rows = []
    groups = [*df.groupby("file", sort=True), ("all files", df)]
    for name, part in groups:
        row: dict[str, object] = {"file": name, "texts": len(part)}
        for label, col in columns.items():
            row[f"{label} r"] = stats.pearsonr(part["human_rating"], part[col]).statistic
            row[f"{label} rho"] = stats.spearmanr(part["human_rating"], part[col]).statistic
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, object]], columns: dict[str, str]) -> str:
    """The correlations as a markdown table (r = Pearson, rho = Spearman)."""
    head = ["file", "texts"] + [f"{label} {k}" for label in columns for k in ("r", "rho")]
    lines = ["| " + " | ".join(head) + " |", "| --- " * len(head) + "|"]
    for row in rows:
        cells = [str(row["file"]), f"{row['texts']:,}"] + [f"{row[h]:.3f}" for h in head[2:]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "| --- " * len(head) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def korean(training: object | None, lite: object | None = None) -> str:
    """Accuracy, ROC AUC and Spearman (stars) on the NSMC sample, per engine (e5 and e5-lite where given)."""
    from tools.train_e5_tone import fit_on

    some = training if training is not None else lite
    frame = some.sets["nsmc"].frame  # type: ignore[union-attr]
    label, stars = frame["label"].to_numpy(), frame["rating"].to_numpy()
    engines = {}
    for name, run in (("e5", training), ("e5-lite", lite)):
        if run is not None:
            engines[f"{name} with the Hangul head, nested 5-fold CV"] = run.cv_predictions["nsmc"]  # type: ignore[attr-defined]
            english = getattr(run, "english_only", None)  # e5-lite's heads have their own fit (tools.train_e5_lite)
            engines[f"{name} heads trained on English only"] = (
                english("nsmc") if english else fit_on(run, ["tweets", "movies", "amazon"], "nsmc")  # type: ignore[arg-type]
            )
    engines |= {
        "VADER": np.array(get_engine("vader").polarities(frame["text"].tolist())),
        "AFINN": np.array(get_engine("afinn").polarities(frame["text"].tolist())),
    }
    rows = [
        [
            name,
            f"{np.mean((pred > 0) == (label == 1)):.3f}",
            f"{roc_auc_score(label, pred):.3f}",
            f"{stats.spearmanr(stars, pred).statistic:.3f}",
        ]
        for name, pred in engines.items()
    ]
    return _table(["engine", "accuracy (sign)", "ROC AUC", "Spearman rho vs stars"], rows)


def cjk_replies(engines: Sequence[str] = ("e5", "e5-lite", "vader", "afinn")) -> str:
    """Sign accuracy and ROC AUC on the hand-written Chinese and Japanese support replies, per engine."""
    frame = pd.read_csv(CJK_REPLIES, keep_default_na=False)
    rows = []
    for lang, part in frame.groupby("lang", sort=False):
        label = part["label"].to_numpy()
        for engine in engines:
            pred = np.array(get_engine(engine).polarities(part["text"].tolist()))
            auc = roc_auc_score(label, pred) if np.ptp(pred) > 0 else 0.5
            rows.append([str(lang), engine, f"{len(part)}", f"{np.mean(np.sign(pred) == label):.3f}", f"{auc:.3f}"])
    return _table(["language", "engine", "replies", "sign accuracy", "ROC AUC"], rows)


def _best_ms(fn: Callable[[], object], rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


REPLIES = [  # new 5-sentence replies: each timing uses one the process has not seen
    "Thanks for reaching out! I checked your order this morning. The parcel left our warehouse yesterday. "
    "Sorry that the tracking page was confusing. Let me know if anything else comes up!",
    "Hello and thank you for your patience. Your refund has been approved. It should arrive within five days. "
    "We apologise for the delay. Have a great weekend!",
    "Good morning! I looked into the login problem. It was caused by an expired session. I have reset it for "
    "you. Please try again and tell me how it goes.",
    "Hi there, thanks for the detailed report. The crash happens when the camera opens. Our team has a fix "
    "ready. It will ship in tomorrow's update. Thanks again for your help!",
    "Thank you for writing to us. The invoice had a wrong total. A corrected one is attached. I'm sorry for "
    "the mix-up. Wishing you a pleasant day!",
    "Hey, thanks for asking! The museum opens at nine. Tickets are cheaper online. Children under five go "
    "free. Enjoy your visit!",
]


def speed() -> str:
    """e5 throughput, the Tone page's time for a new 5-sentence reply, and the loaded encoder's memory."""
    from scoring import create_tone_scorer
    from scoring.text.embeddings import clear_cache, require_encoder
    from scoring.tone.explain import word_drivers

    lines = []
    texts = pd.read_csv(DEFAULT_DATA / "tweets.csv", keep_default_na=False)["text"].tolist()[:300]
    require_encoder()
    engine = get_engine("e5")
    clear_cache()
    start, cpu = time.perf_counter(), time.process_time()
    engine.polarities(texts)
    cold, cpu = time.perf_counter() - start, time.process_time() - cpu
    warm = _best_ms(lambda: engine.polarities(texts)) / 1000
    lines.append(f"- e5 polarity, 300 tweets: {len(texts) / cold:,.0f} texts/s cold (embedding; "
                 f"{len(texts) / cpu:,.0f} texts per CPU-second, this process had {cpu / cold:.2f} CPUs on average), "
                 f"{len(texts) / warm:,.0f} texts/s cached.")  # fmt: skip
    for name in ("vader", "afinn"):
        other = get_engine(name)
        ms = _best_ms(lambda o=other: [o._polarity(t) for t in texts])  # type: ignore[attr-defined]
        lines.append(f"- {name} polarity, same tweets, uncached: {len(texts) / ms * 1000:,.0f} texts/s.")

    replies = iter(REPLIES)

    def page_work(reply: str) -> None:
        result = create_tone_scorer(engine="e5").run(output=reply).to_dict()
        word_drivers([s["text"] for s in result["preprocessStepResult"]["sentences"]], "e5")  # type: ignore[index]

    page_work(next(replies))  # warm the process (imports, model, language detector)
    reply = next(replies)
    start = time.perf_counter()
    create_tone_scorer(engine="e5").run(output=reply)
    score_ms = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    page_work(reply)  # the sentences are cached now: this is the drivers' (occlusion) cost
    drivers_ms = (time.perf_counter() - start) * 1000
    again_ms = _best_ms(lambda: page_work(reply))
    lines.append(
        f"- Tone page's scoring for a new 5-sentence reply, warm process: {score_ms:,.0f} ms for the score and "
        f"sentences, {drivers_ms:,.0f} ms more for the word drivers (occlusion); {again_ms:,.0f} ms for the "
        "same reply again (cached)."
    )
    lines.append(_apptest_line(replies))
    lines.append(_memory_line())
    return "\n".join(lines)


def lite_speed() -> str:
    """e5-lite's texts/s beside VADER's (same tweets, caches cleared), and the Tone page's work for a new
    100,000-character text (score, sentences and word drivers; the page itself: ``python -m bench.tone_page_long
    --engine e5-lite --chars 100000``)."""
    from bench.long_text import text_of
    from scoring import create_tone_scorer
    from scoring.text.e5_lite import model
    from scoring.tone.explain import word_drivers

    texts = pd.read_csv(DEFAULT_DATA / "tweets.csv", keep_default_na=False)["text"].tolist()
    lite, vader = get_engine("e5-lite"), get_engine("vader")

    def cold() -> None:
        lite.cache_clear()  # type: ignore[attr-defined]
        model().cache_clear()
        lite.polarities(texts)

    lite_ms = _best_ms(cold)
    vader_ms = _best_ms(lambda: [vader._polarity(t) for t in texts])  # type: ignore[attr-defined]
    lines = [
        f"- e5-lite polarity, {len(texts):,} tweets, cold (no polarity or word cached): "
        f"{len(texts) / lite_ms * 1000:,.0f} texts/s; VADER uncached: {len(texts) / vader_ms * 1000:,.0f} texts/s."
    ]
    text = text_of(100_000, kind="prose")
    cold()
    start = time.perf_counter()
    result = create_tone_scorer(engine="e5-lite").run(output=text).to_dict()
    score_s = time.perf_counter() - start
    sentences = [s["text"] for s in result["preprocessStepResult"]["sentences"]]  # type: ignore[index]
    start = time.perf_counter()
    word_drivers(sentences, "e5-lite")
    drivers_s = time.perf_counter() - start
    lines.append(
        f"- Tone page's scoring of a new 100,000-character text ({len(sentences):,} sentences), e5-lite, warm "
        f"process: {score_s:.2f} s for the score and sentences, {drivers_s:.2f} s more for the word drivers."
    )
    return "\n".join(lines)


def _apptest_line(replies: object) -> str:
    """The Tone page itself (Streamlit AppTest, e5): a new reply, warm process, without and with word drivers."""
    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parents[1] / "app.py")
    at = AppTest.from_file(app, default_timeout=120)
    at.session_state["tone.engine"] = "e5"
    at.run()
    at.switch_page("pages/tone.py").run()
    at.text_area(key="tone.text").set_value(next(replies)).run()  # type: ignore[call-overload]

    def timed_new_reply() -> float:
        at.text_area(key="tone.text").set_value(next(replies))  # type: ignore[call-overload]
        start = time.perf_counter()
        at.run()
        return (time.perf_counter() - start) * 1000

    plain_ms = timed_new_reply()
    start = time.perf_counter()
    at.run()
    repeat_ms = (time.perf_counter() - start) * 1000
    at.toggle(key="tone.e5_drivers").set_value(True).run()
    drivers_ms = timed_new_reply()
    if at.exception:
        raise RuntimeError(f"the Tone page failed: {[e.value for e in at.exception]}")
    return (
        f"- Tone page (AppTest, e5, warm process), a new 5-sentence reply: {plain_ms:,.0f} ms (score, chart, "
        f"highlights, sentence table; word drivers off, the default), {drivers_ms:,.0f} ms with 'Explain the "
        f"words' on; {repeat_ms:,.0f} ms to rerun an unchanged reply."
    )


_MEMORY_PROBE = """
import re
def rss():
    return int(re.search(r"VmRSS:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024
import numpy
from scoring.text.embeddings import embed, require_encoder
base = rss()
require_encoder()
loaded = rss()
embed([f"Sentence number {i} of the memory probe, about a refund." for i in range(200)])
english = rss()
import csv
embed([row["text"] for row in csv.DictReader(open(CJK, encoding="utf-8"))])
print(f"{base:.0f} {loaded:.0f} {english:.0f} {rss():.0f}")
"""


def _memory_line() -> str:
    repo = str(Path(__file__).resolve().parents[1])
    out = subprocess.run(
        [sys.executable, "-c", f"CJK = {str(CJK_REPLIES)!r}\n" + _MEMORY_PROBE], capture_output=True, text=True,
        check=True, cwd=repo, env={**os.environ, "PYTHONPATH": repo},
    ).stdout.split()  # fmt: skip
    base, loaded, english, used = map(float, out)
    return (
        f"- Memory (fresh process, RSS): +{loaded - base:,.0f} MB once the encoder is loaded (its weights are "
        f"mapped, read as used), +{english - base:,.0f} MB after embedding 200 English sentences, "
        f"+{used - base:,.0f} MB after 96 Chinese and Japanese replies more (model, buffers and cache)."
    )


def similarity_calibration() -> str:
    """The e5 similarity's anchors and what the rescaled score gives per kind of written pair, per half."""
    from scoring import create_content_similarity_scorer
    from scoring.similarity.e5 import PARAPHRASE_COSINE, UNRELATED_COSINE
    from scoring.text.embeddings import embed

    pairs = pd.read_csv(SIMILARITY_PAIRS, keep_default_na=False)
    a, b = embed(pairs["a"].str.lower().tolist()), embed(pairs["b"].str.lower().tolist())
    pairs["cosine"] = np.einsum("ij,ij->i", a, b)
    scorer = create_content_similarity_scorer(algorithm="e5")
    pairs["score"] = [scorer.run(input=x, output=y).score for x, y in zip(pairs["a"], pairs["b"], strict=True)]
    pairs["half"] = np.where(np.arange(len(pairs)) % 2 == 0, "calibration (even rows)", "check (odd rows)")
    rows = []
    for (half, kind), part in pairs.groupby(["half", "kind"], sort=True):
        cells = [f"{part['cosine'].mean():.3f}", *(f"{f(part['score']):.2f}" for f in (np.mean, np.min, np.max))]
        rows.append([str(half), str(kind), str(len(part)), *cells])
    head = ["half", "kind", "pairs", "mean cosine", "score mean", "score min", "score max"]
    anchors = f"Anchors: unrelated cosine {UNRELATED_COSINE}, paraphrase cosine {PARAPHRASE_COSINE}.\n\n"
    return anchors + _table(head, rows)


def explanations(training: object) -> str:
    """How often e5's occlusion drivers have the sign of VADER's strong lexicon words, blank vs deletion.

    Up to 25 sentences of 5-16 words with a strong lexicon word (|valence| >= 1.5) from each of the movie,
    tweet and Amazon sets (every 53rd row, no random generator), 73 in all. A word's value is the drop of the
    head's unclipped output when the word is replaced by the engine's blank, or deleted outright.
    """
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    from scoring.tone.e5 import BLANK, load_head, occlusion_words

    lexicon = SentimentIntensityAnalyzer().lexicon
    chosen = []
    for name in ("movies", "tweets", "amazon"):
        texts = training.sets[name].frame["text"].tolist()  # type: ignore[attr-defined]
        picked = [
            t
            for t in texts[::53]
            if 5 <= len(words := occlusion_words(t)) <= 16
            and any(abs(lexicon.get(w.lower(), 0)) >= 1.5 for w, _, _ in words)
        ]
        chosen += picked[:25]
    head = load_head()
    ways = {
        f"replaced by {BLANK} (shipped)": lambda t, a, b: t[:a] + BLANK + t[b:],
        "deleted": lambda t, a, b: " ".join((t[:a] + t[b:]).split()),
    }
    lines = []
    for label, occlude in ways.items():
        agree = total = top = 0
        for text in chosen:
            words = occlusion_words(text)
            base = head.raw(head.embed([text]), [text])[0]
            variants = [occlude(text, a, b) for _, a, b in words]
            values = base - head.raw(head.embed(variants), variants)
            valences = np.array([lexicon.get(w.lower(), 0) for w, _, _ in words])
            strong = np.abs(valences) >= 1.5
            total += int(strong.sum())
            agree += int((np.sign(values[strong]) == np.sign(valences[strong])).sum())
            top += int(valences[int(np.argmax(np.abs(values)))] != 0)
        lines.append(
            f"- word {label}: {agree} of {total} strong VADER-lexicon words get the lexicon's sign "
            f"({agree / total:.1%}); the top driver is a lexicon word in {top} of {len(chosen)} sentences."
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with the ground-truth CSV files")
    parser.add_argument(
        "--no-e5", action="store_true", help="no e5 column: the lexicons and e5-lite (no embeddings needed)"
    )
    parser.add_argument("--speed", action="store_true", help="also time the e5 engine and measure its memory")
    parser.add_argument("--similarity", action="store_true", help="also show the e5 similarity's calibration")
    parser.add_argument("--explanations", action="store_true", help="also check e5's word drivers against VADER")
    args = parser.parse_args(argv)
    df = score(load(args.data))
    columns = dict(COLUMNS)
    training = None
    if not args.no_e5:
        from tools.train_e5_tone import run_training

        training = run_training(args.data.parent)
        df = add_e5(df, training)
        columns |= E5_COLUMN
    from tools.train_e5_lite import tone_training

    lite = tone_training(args.data.parent)  # e5-lite's heads, trained and scored by e5's protocol (seconds)
    df = add_e5(df, lite, "e5_lite")
    columns |= E5_LITE_COLUMN
    print(f"Human mean ratings (-4..+4) vs engine scores, {len(df):,} texts from {args.data.name}/.\n")
    print(markdown(correlations(df, columns), columns))
    print("\nKorean: NSMC sample (nsmc-ko/nsmc_sample.csv), label 1 = 9-10 stars, 0 = 1-4 stars.\n")
    print(korean(training, lite))
    print("\nChinese and Japanese: hand-written support replies (tests/scoring/data/support_replies_cjk.csv).\n")
    print(cjk_replies(("e5-lite", "vader", "afinn") if training is None else ("e5", "e5-lite", "vader", "afinn")))
    if args.speed:
        print(f"\nSpeed ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start):\n")
        print(lite_speed())
    if training is None:
        return
    if args.speed:
        print(f"\nSpeed and memory ({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start):\n")
        print(speed())
    if args.similarity:
        print("\ne5 similarity calibration (tests/scoring/data/similarity_pairs.csv):\n")
        print(similarity_calibration())
    if args.explanations:
        print("\nExplanations:\n")
        print(explanations(training))


if __name__ == "__main__":
    main()
