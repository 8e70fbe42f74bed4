"""A scorer taught by your team: a head fitted on a run's labelled rows, kept in the run store, versioned.

:func:`teach` takes the rows of a saved run labelled for one measure (their raters' consensus), and fits
a head on each reply's e5 embedding (multilingual-e5-small, ``passage:`` prefix) and the measure's own
score in that run: a logistic regression for yes/no labels (its score is the probability of "yes") or a
ridge regression for ratings (its score is the predicted rating scaled to 0-1 by the labels' range). Its
setting (the regularisation strength) is chosen by an inner cross-validation inside each of the outer
folds (nested CV), so the reported cross-validated agreement (ROC AUC or Spearman's rho, with a bootstrap
95% CI) is measured on rows no part of the fitting saw; the base scorer's agreement on the same rows is
reported beside it. The final head is then fitted on every labelled row, its setting chosen by the same
inner cross-validation, and saved as ``NAME`` version n+1 with the SHA-256 of its training rows (the
replies and their labels) and the hash of each training reply, so that agreement on a later run leaves
those rows out.

A taught scorer scores like any scorer (``evaluate(..., scorers=["taught:NAME"])`` once
:func:`load_taught` has registered it): it runs the base scorer with the options of the run it was taught
on (engine, splitter, reference tone, toxicity engine), compares the output with what that run compared
it with (the reference column, the input, or nothing), embeds the reply and applies the head. It never
sends a text anywhere (a base scorer using the LLM judge is refused) and scores in the process that loaded
it. Too few labels, or one answer only, are refused with what is needed.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import sqlalchemy as sa

from scoring.batch.rows import BatchSpec, forget_scorers
from scoring.errors import InputError
from scoring.registry import ScorerInfo, register_scorer, scorer_info
from scoring.result import Columns, RowsDone, ScoreResult, make_result
from scoring.runs.agreement import _auc_rows, _bootstrap, _spearman_rows, auc, text_hash
from scoring.runs.db import taught as taught_table
from scoring.runs.labels import label_kind, labels_frame, measure_of
from scoring.runs.record import check_name
from scoring.runs.store import RunStore

__all__ = [
    "MIN_LABELS",
    "MIN_PER_ANSWER",
    "TAUGHT_PREFIX",
    "TaughtModel",
    "TaughtScorer",
    "TeachError",
    "delete_taught",
    "format_cv",
    "get_taught",
    "list_taught",
    "load_taught",
    "load_taught_columns",
    "taught_hashes",
    "taught_line",
    "taught_measure",
    "teach",
]

TAUGHT_PREFIX = "taught:"
MIN_LABELS = 30  # labelled rows a head needs (5 outer folds of 6+ rows)
MIN_PER_ANSWER = 10  # yes/no: rows of each answer (every outer fold holds two of each)
OUTER_FOLDS = 5
INNER_FOLDS = 4
C_GRID = (0.001, 0.01, 0.1, 1.0, 10.0)  # logistic regression's inverse regularisation
ALPHA_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)  # ridge's regularisation
PREFIX = "passage"


class TeachError(InputError):
    """The labels cannot teach a scorer: too few, one answer only, or a base scorer that leaves the machine."""


@dataclass(frozen=True)
class TaughtModel:
    """A taught scorer as stored: its head, the base scorer's options, and how it did in cross-validation."""

    name: str
    version: int
    measure: str
    kind: str
    role: str  # what the base scorer compared the output with in the training run ("", "reference", "input", ...)
    base_options: Mapping[str, object]
    coef: tuple[float, ...]
    intercept: float
    center: tuple[float, ...]  # each feature's training mean (384 embedding dimensions, then the base score)
    scale: tuple[float, ...]  # and its standard deviation: the head reads standardised features
    setting: float  # C (yes/no) or alpha (rating)
    low: float = 0.0  # rating: the labels' range, mapped to 0-1
    high: float = 1.0
    rows: int = 0
    training_sha256: str = ""
    run_id: int | None = None
    run_label: str = ""
    created_at: datetime | None = None
    report: Mapping[str, object] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{TAUGHT_PREFIX}{self.name}"

    def head(self, embeddings: np.ndarray, base_scores: np.ndarray) -> np.ndarray:
        """The head's score for each row (embedding, base score)."""
        features = (np.column_stack([embeddings, base_scores]) - np.asarray(self.center)) / np.asarray(self.scale)
        raw = features @ np.asarray(self.coef) + self.intercept
        if self.kind == "yes/no":
            return np.asarray(1 / (1 + np.exp(-raw)))
        span = self.high - self.low
        return np.asarray(np.clip((raw - self.low) / span, 0.0, 1.0)) if span > 0 else np.full(raw.shape, 0.5)

    def model_json(self) -> dict[str, object]:
        return {"role": self.role, "baseOptions": dict(self.base_options), "coef": list(self.coef),
                "intercept": self.intercept, "center": list(self.center), "scale": list(self.scale),
                "setting": self.setting, "low": self.low, "high": self.high, "prefix": PREFIX}  # fmt: skip

    def info(self) -> ScorerInfo:
        """The scorer's facts, as the registry keeps them for the built-in scorers."""
        base = scorer_info(self.measure)
        column_role = self.role if self.role in ("reference", "input", "context") else ""
        return ScorerInfo(
            id=self.id, short_name=self.id, label=f"Taught: {self.name} (v{self.version}, on {base.label.lower()})",
            factory=partial(TaughtScorer, self), lower_is_better=base.lower_is_better,
            higher_means=base.higher_means, metrics=("baseScore", "version"),
            compares=(column_role,) if column_role else (),  # type: ignore[arg-type]
            alone="" if column_role in ("reference", "input") else "output",
            needs=f"was taught on a run comparing the output with the {column_role} column: choose one",
        )  # fmt: skip


@dataclass(frozen=True)
class TaughtScorer:
    """A taught scorer (see the module doc): the base scorer's score, the reply's embedding, the head."""

    model: TaughtModel

    @property
    def id(self) -> str:
        return self.model.id

    def _base(self) -> Any:
        info = scorer_info(self.model.measure)
        return info.factory(**dict(self.model.base_options))

    def run(self, *, input: object, output: object, ground_truth: object = None) -> ScoreResult:  # noqa: A002
        from scoring.inputs import to_text

        text = to_text(output, "output")
        base = self._base().run(input=input, output=output, ground_truth=ground_truth)
        score = float(self._scores([text], np.array([base.score], dtype=float))[0])
        return make_result(self.id, score, {"baseScore": base.score, "baseScorer": self.model.measure},
                           {"version": self.model.version, "kind": self.model.kind})  # fmt: skip

    def _scores(self, outputs: Sequence[str], base: np.ndarray) -> np.ndarray:
        from scoring.text.embeddings import embed

        vectors = np.asarray(embed(list(outputs), prefix=PREFIX), dtype=float)
        return self.model.head(vectors, base)

    def score_many(
        self,
        *,
        outputs: Sequence[str],
        inputs: Sequence[str | None] | None = None,
        ground_truths: Sequence[str | None] | None = None,
        on_row: RowsDone | None = None,
    ) -> Columns:
        found = dict(self._base().score_many(outputs=outputs, inputs=inputs, ground_truths=ground_truths))
        base = np.asarray([float(v) if v is not None else math.nan for v in found["score"]], dtype=float)
        errors: list[str | None] = list(found.get("error") or [None] * len(outputs))
        ok = [i for i in range(len(outputs)) if math.isfinite(base[i])]
        scores = np.full(len(outputs), math.nan)
        if ok:
            scores[ok] = self._scores([outputs[i] for i in ok], base[ok])
        for i in range(len(outputs)):
            if i not in ok and not errors[i]:
                errors[i] = f"the base scorer {self.model.measure} gave no score"
        if on_row is not None:
            on_row(len(outputs))
        out: Columns = {"score": [float(v) for v in scores], "baseScore": [float(v) for v in base],
                        "version": [float(self.model.version)] * len(outputs)}  # fmt: skip
        if "warnings" in found:  # the base score's warnings (a language it does not cover) hold for this one too
            out["warnings"] = [str(w or "") for w in found["warnings"]]
        if any(errors):
            out["error"] = errors
        return out


# -- teaching -------------------------------------------------------------------------------------------


def _base_options(measure: str, options: Mapping[str, object]) -> dict[str, object]:
    info = scorer_info(measure)
    out: dict[str, object] = {}
    for name in info.batch_options:
        value = options.get(name)
        if isinstance(value, Mapping):
            out.update(value)
        elif name in options:
            out[name] = value
    engine = out.get("engine")
    if engine in info.remote_engines:
        raise TeachError(f"the run scored {info.short_name} with the {engine} engine, which sends texts over "
                         "the network; a taught scorer never leaves the machine. Teach on an offline run.")  # fmt: skip
    out.pop("api_key", None)
    return out


def _role(measure: str, options: Mapping[str, object]) -> str:
    text = {k: v if isinstance(v, str) else None for k in ("input_column", "reference_tone", "reference_column")
            for v in [options.get(k)]}  # fmt: skip
    spec = BatchSpec(scorers=(measure,), output=str(options.get("output_column") or "output"),
                     input=text["input_column"], reference_tone=text["reference_tone"],
                     reference_column=text["reference_column"])  # fmt: skip
    return spec.compared_with(measure)[0]


def _training_rows(store: RunStore, ref: str | int, measure: str | None) -> tuple[Any, str, pd.DataFrame]:
    run = store.get(ref)
    labels = labels_frame(store, run.info.id)
    if labels.empty:
        raise TeachError(f"{run.info.label} has no labels: add at least {MIN_LABELS} (evaluate FILE --label-column "
                         "COL --save, or runs label RUN --file labels.csv).")  # fmt: skip
    measures = list(dict.fromkeys(labels["measure"]))
    if measure is None:
        if len(measures) > 1:
            raise TeachError(f"{run.info.label} has labels for {measures}: choose one with --measure.")
        chosen = measures[0]
    else:
        chosen = measure_of(measure, run.info.scorers)
    if chosen not in run.rows.columns:
        raise TeachError(f"{run.info.label} has no {chosen} scores: a taught scorer learns from them too. Teach on a "
                         f"run scored with {scorer_info(chosen).short_name}.")  # fmt: skip
    group = labels[labels["measure"] == chosen]
    if group.empty:
        raise TeachError(f"{run.info.label} has no {chosen} labels (it has labels for {measures}).")
    kind = label_kind(group["value"].to_numpy(float))
    means = group.groupby("row")["value"].mean()
    if kind == "yes/no":
        means = (means[means != 0.5] > 0.5).astype(float)
    by_row = run.rows.set_index("row")
    frame = pd.DataFrame({"label": means, "output": by_row["output"].reindex(means.index),
                          "score": pd.to_numeric(by_row[chosen], errors="coerce").reindex(means.index)})  # fmt: skip
    frame = frame[frame["output"].notna() & frame["score"].notna()]
    return run, chosen, frame.assign(kind=kind)


def check_enough(frame: pd.DataFrame, kind: str, measure: str) -> None:
    """Refuse too few labelled rows or a single answer, saying how many are needed."""
    n = len(frame)
    if kind == "yes/no":
        yes = int(frame["label"].sum())
        no = n - yes
        if yes == 0 or no == 0:
            raise TeachError(f"all {n} usable {measure} labels are {'yes' if yes else 'no'}: a scorer cannot learn "
                             f"from one answer. Label at least {MIN_PER_ANSWER} rows of each answer "
                             f"({MIN_LABELS} in all).")  # fmt: skip
        if n < MIN_LABELS or min(yes, no) < MIN_PER_ANSWER:
            raise TeachError(f"too few {measure} labels to teach: {n} usable ({yes} yes, {no} no); at least "
                             f"{MIN_LABELS} are needed with at least {MIN_PER_ANSWER} of each answer, for "
                             f"{OUTER_FOLDS}-fold nested cross-validation.")  # fmt: skip
    else:
        if frame["label"].nunique() < 2:
            raise TeachError(f"all {n} usable {measure} ratings are {frame['label'].iloc[0]:g}: a scorer cannot "
                             f"learn from one value. Give {MIN_LABELS} or more ratings, not all the same.")  # fmt: skip
        if n < MIN_LABELS:
            raise TeachError(f"too few {measure} ratings to teach: {n} usable; at least {MIN_LABELS} are needed for "
                             f"{OUTER_FOLDS}-fold nested cross-validation.")  # fmt: skip


def _estimator(kind: str, setting: float) -> Any:
    from sklearn.linear_model import LogisticRegression, Ridge

    if kind == "yes/no":
        return LogisticRegression(C=setting, solver="liblinear", intercept_scaling=10.0, max_iter=2000)
    return Ridge(alpha=setting)


def _inner_choice(kind: str, x: np.ndarray, y: np.ndarray) -> float:
    from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold

    grid = {"C": list(C_GRID)} if kind == "yes/no" else {"alpha": list(ALPHA_GRID)}
    folds = (StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=1) if kind == "yes/no"
             else KFold(INNER_FOLDS, shuffle=True, random_state=1))  # fmt: skip
    scoring = "neg_log_loss" if kind == "yes/no" else "neg_mean_squared_error"  # proper scores: calibrated heads
    search = GridSearchCV(_estimator(kind, 1.0), grid, cv=folds, scoring=scoring).fit(x, y)
    return float(next(iter(search.best_params_.values())))


def _predict(model: Any, kind: str, x: np.ndarray) -> np.ndarray:
    return np.asarray(model.predict_proba(x)[:, 1] if kind == "yes/no" else model.predict(x))


def _agreement(kind: str, y: np.ndarray, s: np.ndarray) -> dict[str, float | None]:
    if kind == "yes/no":
        value = auc(y, s)
        low, high = _bootstrap(_auc_rows, [y, s])
    else:
        value = float(_spearman_rows(y[None, :], s[None, :])[0])
        low, high = _bootstrap(_spearman_rows, [y, s])
    return {"value": value if math.isfinite(value) else None, "ciLow": low, "ciHigh": high}


def teach(
    store: RunStore,
    ref: str | int,
    *,
    name: str,
    measure: str | None = None,
    created_at: datetime | None = None,
) -> TaughtModel:
    """Teach a scorer on the labelled rows of run ``ref`` (see the module doc), save it and return it."""
    from sklearn.model_selection import KFold, StratifiedKFold

    from scoring.text.embeddings import embed

    name = check_name(name)
    if any(c in name for c in " :@,"):
        raise TeachError(f"a taught scorer's name has no spaces, ':', '@' or ','; got {name!r}.")
    run, chosen, frame = _training_rows(store, ref, measure)
    kind = str(frame["kind"].iloc[0]) if len(frame) else label_kind([])
    check_enough(frame, kind, chosen)
    base_options = _base_options(chosen, run.info.options)
    role = _role(chosen, run.info.options)
    y = frame["label"].to_numpy(float)
    base = frame["score"].to_numpy(float)
    texts = [str(t) for t in frame["output"]]
    vectors = np.asarray(embed(texts, prefix=PREFIX), dtype=float)
    raw = np.column_stack([vectors, base])
    center, scale = raw.mean(axis=0), raw.std(axis=0)
    scale[scale == 0] = 1.0
    x = (raw - center) / scale
    outer = (StratifiedKFold(OUTER_FOLDS, shuffle=True, random_state=0) if kind == "yes/no"
             else KFold(OUTER_FOLDS, shuffle=True, random_state=0))  # fmt: skip
    predicted = np.full(len(y), math.nan)
    chosen_settings = []
    for train, test in outer.split(x, y):
        setting = _inner_choice(kind, x[train], y[train])
        chosen_settings.append(setting)
        predicted[test] = _predict(_estimator(kind, setting).fit(x[train], y[train]), kind, x[test])
    setting = _inner_choice(kind, x, y)
    final = _estimator(kind, setting).fit(x, y)
    coef = np.asarray(final.coef_, dtype=float).ravel()
    intercept = float(np.asarray(final.intercept_, dtype=float).ravel()[0])
    statistic = "ROC AUC" if kind == "yes/no" else "Spearman rho"
    report: dict[str, object] = {
        "statistic": statistic, "n": len(y), "folds": OUTER_FOLDS, "innerFolds": INNER_FOLDS,
        "taught": _agreement(kind, y, predicted), "base": _agreement(kind, y, base),
        "settingsPerFold": chosen_settings, "setting": setting,
        "setting_name": "C" if kind == "yes/no" else "alpha",
    }  # fmt: skip
    if kind == "yes/no":
        report |= {"nYes": int(y.sum()), "nNo": int(len(y) - y.sum())}
    pairs = sorted([text_hash(t), float(v)] for t, v in zip(texts, y, strict=True))
    training_sha = hashlib.sha256(json.dumps(pairs).encode()).hexdigest()
    when = created_at or datetime.now(UTC)
    with store.transaction(write=True) as conn:
        newest = sa.select(sa.func.max(taught_table.c.version)).where(taught_table.c.name == name)
        latest = conn.execute(newest).scalar()
        version = int(latest or 0) + 1
        model = TaughtModel(
            name, version, chosen, kind, role, base_options, tuple(float(c) for c in coef), intercept,
            tuple(map(float, center)), tuple(map(float, scale)), setting, float(y.min()), float(y.max()), len(y),
            training_sha, run.info.id, run.info.label, when, report,
        )  # fmt: skip
        conn.execute(taught_table.insert().values(
            name=name, version=version, measure=chosen, kind=kind, created_at=when, run_id=run.info.id,
            run_label=run.info.label, training_sha256=training_sha, rows=len(y), model=model.model_json(),
            report=report, text_hashes=sorted({text_hash(t) for t in texts}),
        ))  # fmt: skip
    return model


# -- finding, loading, deleting -------------------------------------------------------------------------


def _model(m: Mapping[str, Any]) -> TaughtModel:
    j = m["model"]
    created = m["created_at"]
    created = created.replace(tzinfo=UTC) if created.tzinfo is None else created
    return TaughtModel(
        m["name"], int(m["version"]), m["measure"], m["kind"], j["role"], dict(j["baseOptions"]),
        tuple(float(c) for c in j["coef"]), float(j["intercept"]), tuple(map(float, j["center"])),
        tuple(map(float, j["scale"])),
        float(j["setting"]), float(j["low"]), float(j["high"]), int(m["rows"]), m["training_sha256"], m["run_id"],
        m["run_label"], created, dict(m["report"]),
    )  # fmt: skip


def _split(ref: str) -> tuple[str, int | None]:
    text = ref[len(TAUGHT_PREFIX) :] if ref.startswith(TAUGHT_PREFIX) else ref
    name, at, version = text.partition("@")
    if at and not version.isdigit():
        raise InputError(f"a taught scorer is taught:NAME or taught:NAME@VERSION; got {ref!r}.")
    return name.strip(), int(version) if at else None


def get_taught(store: RunStore, ref: str) -> TaughtModel:
    """Return the taught scorer ``NAME`` (its newest version) or ``NAME@VERSION`` (``taught:`` optional)."""
    name, version = _split(ref)
    query = sa.select(taught_table).where(taught_table.c.name == name)
    query = query.where(taught_table.c.version == version) if version else query
    with store.transaction(write=False) as conn:
        row = conn.execute(query.order_by(taught_table.c.version.desc()).limit(1)).first()
    if row is None:
        known = [f"{m.name}@{m.version}" for m in list_taught(store)]
        raise InputError(f"no taught scorer {ref!r} in {store.location}; taught scorers: {known or 'none yet'} "
                         "(python -m scoring teach RUN --name NAME makes one).")  # fmt: skip
    return _model(row._mapping)


_LOADED: dict[str, str] = {}  # taught scorer id -> its measure, for those registered in this process


_REGISTERED: dict[str, tuple[int, str, ScorerInfo]] = {}  # id -> (version, training hash, its facts)


def load_taught(store: RunStore, ref: str) -> ScorerInfo:
    """Load the taught scorer ``ref`` and register it (``taught:NAME``) so batch runs in this process can use it.

    Registering the same version again changes nothing (the scorers built so far are kept); another version
    replaces it, and scorers are built afresh.
    """
    model = get_taught(store, ref)
    known = _REGISTERED.get(model.id)
    if known is not None and known[:2] == (model.version, model.training_sha256):
        return known[2]
    info = model.info()
    register_scorer(info)
    forget_scorers()
    _LOADED[model.id] = model.measure
    _REGISTERED[model.id] = (model.version, model.training_sha256, info)
    return info


def load_taught_columns(store: RunStore, columns: Sequence[object]) -> list[str]:
    """Load the taught scorers whose score columns ``columns`` has (a run's rows), so that comparing runs sees
    them; one no longer in the store is skipped. Returns the ids loaded."""
    loaded = []
    for column in dict.fromkeys(str(c) for c in columns):
        if column.startswith(TAUGHT_PREFIX) and "." not in column:
            try:
                loaded.append(load_taught(store, column).id)
            except ValueError:
                continue
    return loaded


def taught_measure(scorer_id: str) -> str | None:
    """The measure of the taught scorer ``scorer_id`` loaded in this process (None for any other scorer)."""
    return _LOADED.get(scorer_id)


def list_taught(store: RunStore) -> list[TaughtModel]:
    """Every taught scorer version in the store, by name and version."""
    with store.transaction(write=False) as conn:
        rows = conn.execute(sa.select(taught_table).order_by(taught_table.c.name, taught_table.c.version)).all()
    return [_model(r._mapping) for r in rows]


def delete_taught(store: RunStore, ref: str) -> list[TaughtModel]:
    """Delete the taught scorer ``NAME`` (every version) or ``NAME@VERSION``; return what was deleted."""
    name, version = _split(ref)
    gone = [m for m in list_taught(store) if m.name == name and (version is None or m.version == version)]
    if not gone:
        get_taught(store, ref)  # raises, naming the taught scorers there are
    condition = taught_table.c.name == name
    if version is not None:
        condition &= taught_table.c.version == version
    with store.transaction(write=True) as conn:
        conn.execute(taught_table.delete().where(condition))
    return gone


def taught_hashes(store: RunStore, rows: pd.DataFrame) -> dict[str, tuple[str, frozenset[str]]]:
    """For each taught scorer column of a run's ``rows``: its measure and the hashes of the replies it was taught
    on (the version its ``.version`` column names)."""
    out: dict[str, tuple[str, frozenset[str]]] = {}
    for column in rows.columns:
        name = str(column)
        if not name.startswith(TAUGHT_PREFIX) or "." in name:
            continue
        versions = pd.to_numeric(rows.get(f"{name}.version"), errors="coerce").dropna().unique()
        hashes: set[str] = set()
        measure = ""
        with store.transaction(write=False) as conn:
            for version in versions:
                found = conn.execute(
                    sa.select(taught_table.c.measure, taught_table.c.text_hashes).where(
                        (taught_table.c.name == name[len(TAUGHT_PREFIX) :]) & (taught_table.c.version == int(version))
                    )
                ).first()
                if found is not None:
                    measure = found.measure
                    hashes |= set(found.text_hashes)
        if measure:
            out[name] = (measure, frozenset(hashes))
    return out


def taught_line(model: TaughtModel) -> str:
    """One line for a terminal: name, version, measure, rows, cross-validated agreement beside the base scorer's."""
    r = model.report
    taught, base = r.get("taught", {}), r.get("base", {})
    return (f"{model.id}@{model.version}: {model.kind} {model.measure}, taught on {model.rows} rows of "
            f"{model.run_label} ({model.created_at:%Y-%m-%d %H:%M} UTC); CV {r.get('statistic')} "
            f"{format_cv(taught)} vs {model.measure} {format_cv(base)}; training rows {model.training_sha256[:12]}")  # type: ignore[arg-type]  # fmt: skip


def format_cv(found: Mapping[str, object]) -> str:
    """``0.812 (95% CI 0.701 to 0.905)``, or ``n/a``."""
    value, low, high = found.get("value"), found.get("ciLow"), found.get("ciHigh")
    if not isinstance(value, float):
        return "n/a"
    ci = f" (95% CI {low:.3f} to {high:.3f})" if isinstance(low, float) and isinstance(high, float) else ""
    return f"{value:.3f}{ci}"
