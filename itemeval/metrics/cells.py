"""The declared metrics of a study, per grid cell and per `--by` level, each with its
item-bootstrap interval; the same item resamples serve every metric of a cell."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from ..records import GradeCondition, Item
from ..reference import reference_targets
from ..scorers.numeric import read_target_number
from ..scorers.registry import answer_holds
from ..scorers.text import normalise_text
from ..state import grade_state
from ..store import read_store
from ..study import Study
from .differences import Difference, bootstrap_p, holm_per_metric
from .figures import (
    PER_CLASS,
    Classification,
    Corpus,
    Kendall,
    Mean,
    Pearson,
    Spearman,
    UserFigure,
)
from .registry import PlannedMetric, plan_metrics
from .resample import RESAMPLES, percentile_interval, resample_counts

_USED = {"done": "scored", "parse_failed": "parse_failure"}
"""Grades a metric reads: scored ones and parse failures (whose answer is a miss)."""


@dataclass(frozen=True)
class MetricOptions:
    seed: int = 0
    by: tuple[str, ...] = ()
    items: frozenset[str] | None = None
    """Only these items (results --sample), None for all."""
    resamples: int = RESAMPLES


def study_metrics(
    study: Study,
    grade: list[GradeCondition],
    item_scores: pd.DataFrame,
    options: MetricOptions,
    levels: dict[str, dict[str, dict[str, Any]]] | None = None,
    pairs: Sequence[tuple[str, str]] = (),
) -> list[dict[str, Any]]:
    """The `metrics` rows of `results --json`: per cell, then per level of each `--by`
    facet (`levels[facet]` maps each grade row's gen condition or item to its level),
    then A − B per compared pair of generate conditions."""
    planned = plan_metrics(study.config.metrics, grade, study.loaded.config_dir)
    if not planned:
        return []
    frame = _answers(study, grade, planned, options.items)
    context = _Context(study, {c.id: c for c in grade}, item_scores, options)
    rows = []
    for (gen_id, grade_id), cell in frame.groupby(
        ["gen_condition_id", "grade_condition_id"], sort=True
    ):
        rows += context.rows(cell, planned, gen_id=gen_id, grade_id=grade_id)
    for facet, mapping in (levels or {}).items():
        rows += _level_rows(context, frame, planned, facet, mapping)
    differences: list[dict[str, Any]] = []
    for grade_id, graded in frame.groupby("grade_condition_id", sort=True):
        metrics = [m for m in planned if grade_id in m.grade_condition_ids]
        if metrics and pairs:
            differences += _difference_rows(context, graded, metrics, grade_id, pairs)
    return rows + holm_per_metric(differences)


def _difference_rows(context, graded, metrics, grade_id, pairs) -> list[dict[str, Any]]:
    """metric(A) − metric(B) per pair on the items both have, its interval from
    resampling those items once for both (a paired bootstrap). A condition's figures
    on a set of items are computed once: `--compare all` over cells of the same items
    costs k conditions' bootstraps, not k(k−1)."""
    cells = dict(tuple(graded.groupby("gen_condition_id", sort=False)))
    cache: dict[tuple[str, tuple[str, ...]], tuple[list, list[np.ndarray]]] = {}
    out = []
    for pair in pairs:
        if not all(gen_id in cells for gen_id in pair):
            continue
        items = [set(cells[gen_id]["item_id"]) for gen_id in pair]
        shared = np.array(sorted(items[0] & items[1]))
        if shared.size == 0:
            continue
        first, second = (
            _shared_draws(context, cells[gen_id], metrics, grade_id, shared, cache)
            for gen_id in pair
        )
        out += _pair_rows(metrics, first, second, grade_id, pair, shared.size)
    return out


def _shared_draws(context, cell, metrics, grade_id, shared, cache):
    """A condition's figures on `shared` items and their resampled values (the same
    resamples for every condition: they depend on the number of items and the seed)."""
    key = (cell["gen_condition_id"].iloc[0], tuple(shared))
    if key not in cache:
        index = pd.Series(np.arange(shared.size), index=shared)
        cell = cell[cell["item_id"].isin(shared)]
        columns = _Columns(context, cell, shared, grade_id)
        rows_items = index[cell["item_id"]].to_numpy()
        figures = [_figure(m, columns, rows_items, shared.size) for m in metrics]
        cache[key] = (figures, _bootstrap(figures, shared.size, context.options))
    return cache[key]


def _pair_rows(metrics, first, second, grade_id, pair, n_items):
    """One row per metric (per class for precision and recall) with the bootstrap
    p-value of its difference."""
    keys = {"gen_id": None, "grade_id": grade_id}
    out = []
    for k, metric in enumerate(metrics):
        a, b = first[0][k], second[0][k]
        if metric.name in PER_CLASS and a.classes != b.classes:
            continue
        both = first[1][k] - second[1][k]
        per_class = both.T if metric.name in PER_CLASS else [both]
        rows = _rows(metric, Difference(a, b), both, keys, n_items)
        for row, draws in zip(rows, per_class):
            out.append(row | {"a": pair[0], "b": pair[1], "p": bootstrap_p(draws)})
    return out


def _level_rows(context, frame, planned, facet, mapping) -> list[dict[str, Any]]:
    column, levels = mapping["column"], mapping["levels"]
    labelled = frame.assign(level=frame[column].map(levels)).dropna(subset=["level"])
    rows = []
    for (grade_id, level), group in labelled.groupby(
        ["grade_condition_id", "level"], sort=True
    ):
        rows += context.rows(
            group, planned, gen_id=None, grade_id=grade_id, facet=facet, level=level
        )
    return rows


def _answers(
    study: Study,
    grade: list[GradeCondition],
    planned: list[PlannedMetric],
    items: frozenset[str] | None,
) -> pd.DataFrame:
    """One row per graded replication the metrics read: ids, score, answer."""
    wanted = {gid for metric in planned for gid in metric.grade_condition_ids}
    conditions = [c for c in grade if c.id in wanted]
    state = grade_state(study, conditions, extra=("score", "answer"))
    state = state[state["state"].isin(list(_USED))]
    if items is not None:
        state = state[state["item_id"].isin(items)]
    columns = ["gen_condition_id", "grade_condition_id", "item_id", "epoch"]
    frame = state[[*columns, "score", "answer"]].reset_index(drop=True)
    whole = _keeping_the_reply(conditions, planned)
    return _with_replies(study, frame, whole) if whole else frame


def _keeping_the_reply(
    conditions: list[GradeCondition], planned: list[PlannedMetric]
) -> set[str]:
    """Grade conditions a text metric reads whose scorer stores no answer when its
    answer is the whole reply (inspect's match, includes, f1, exact; user scorers)."""
    texts = {
        gid for m in planned if m.kind == "corpus" for gid in m.grade_condition_ids
    }
    return {
        c.id
        for c in conditions
        if c.id in texts and "label" not in (answer_holds(c.scorer) or ())
    }


def _with_replies(study: Study, frame: pd.DataFrame, whole: set[str]) -> pd.DataFrame:
    """A missing answer of a `whole` condition filled with the reply it graded."""
    missing = frame["grade_condition_id"].isin(whole) & frame["answer"].isna()
    if not missing.any():
        return frame
    gens = sorted(set(frame.loc[missing, "gen_condition_id"]))
    replies = read_store(
        study.paths,
        "solutions",
        ["condition_id", "item_id", "epoch", "solution"],
        where={"condition_id": gens},
    ).to_pandas()
    replies = replies.rename(columns={"condition_id": "gen_condition_id"})
    keys = ["gen_condition_id", "item_id", "epoch"]
    text = frame[keys].merge(replies, on=keys, how="left")["solution"]
    frame = frame.copy()
    frame.loc[missing, "answer"] = text[missing.to_numpy()].to_numpy()
    return frame


class _Context:
    """What the metrics of every cell share: items, conditions, item scores, options."""

    def __init__(self, study, conditions, item_scores, options: MetricOptions):
        self.items: dict[str, Item] = {item.id: item for item in study.items}
        self.conditions: dict[str, GradeCondition] = conditions
        self.options = options
        self.item_scores = item_scores.set_index(
            ["gen_condition_id", "grade_condition_id", "item_id"]
        )["score"]
        self.config_dir = study.loaded.config_dir

    def rows(self, cell: pd.DataFrame, planned, **keys) -> list[dict[str, Any]]:
        grade_id = keys["grade_id"]
        metrics = [m for m in planned if grade_id in m.grade_condition_ids]
        if not metrics:
            return []
        item_ids, item_of_row = _factorize(cell["item_id"])
        columns = _Columns(self, cell, item_ids, grade_id)
        figures = [
            (m, _figure(m, columns, item_of_row, len(item_ids))) for m in metrics
        ]
        values = _bootstrap([f for _, f in figures], len(item_ids), self.options)
        return [
            row
            for (metric, figure), draws in zip(figures, values)
            for row in _rows(metric, figure, draws, keys, len(item_ids))
        ]


def _factorize(item_ids: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(item_ids, sort=True)
    return np.asarray(uniques), codes


class _Columns:
    """A cell's rows as the values metrics compare: labels, numbers, texts, targets."""

    def __init__(self, context: _Context, cell, item_ids, grade_id) -> None:
        reference = context.conditions[grade_id].reference
        targets = {
            item_id: reference_targets(context.items[item_id], reference)
            for item_id in item_ids
            if item_id in context.items
        }
        # plain lists first: iterating an arrow-backed column is ~10x slower
        row_items = cell["item_id"].tolist()
        self.targets = [targets.get(i, ()) for i in row_items]
        answers = cell["answer"].tolist()
        self.answers = [a if isinstance(a, str) else "" for a in answers]
        self.scores = cell["score"].to_numpy(dtype=float)
        self.metadata = [
            context.items[i].metadata if i in context.items else {} for i in row_items
        ]
        self.cell, self.item_ids, self.context = cell, item_ids, context
        self._classes: Classification | None = None

    def has_target(self) -> np.ndarray:
        return np.array([bool(t) for t in self.targets])

    def classification(self, item_of_row, n_items: int, metric: str) -> Classification:
        """The metric over the cell's labels; its class sums prepared once per cell,
        so every classification metric of the cell shares one resampled product."""
        if self._classes is None:
            predicted, true = self.labels()
            pick = np.flatnonzero(self.has_target())
            self._classes = Classification.prepare(
                item_of_row[pick],
                n_items,
                [predicted[i] for i in pick],
                [true[i] for i in pick],
                metric,
            )
        return replace(self._classes, metric=metric)

    def labels(self) -> tuple[list[str], list[str]]:
        return _labels(self.answers), _labels([t[0] if t else "" for t in self.targets])

    def numbers(self) -> tuple[np.ndarray, np.ndarray]:
        return _numbers(self.answers), _numbers(
            [t[0] if t else "" for t in self.targets]
        )

    def item_means(self, gen_id: str | None) -> np.ndarray:
        """The cell's reduced item scores (mean over conditions at a --by level)."""
        scores = self.context.item_scores
        grade_id = self.cell["grade_condition_id"].iloc[0]
        gens = self.cell["gen_condition_id"].unique()
        keys = pd.MultiIndex.from_tuples(
            [(g, grade_id, i) for g in gens for i in self.item_ids]
        )
        found = scores.reindex(keys).to_numpy(dtype=float).reshape(len(gens), -1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an item with no score
            return np.nanmean(found, axis=0)


def _labels(texts: list[str]) -> list[str]:
    """Answers and targets as class labels: a number by its value ("$1,234" is 1234),
    anything else as exact_match normalises it ("**Paris**." is "paris")."""
    codes, uniques = pd.factorize(pd.Series(texts, dtype=object))
    labels = np.array([_label(u) for u in uniques], dtype=object)
    return list(labels[codes]) if len(uniques) else []


@lru_cache(maxsize=100_000)
def _label(text: str) -> str:
    # memoised: every cell and --by level reads the same answers and targets again
    number = read_target_number(text) if text.strip() else None
    return repr(float(number)) if number is not None else normalise_text(text)


def _numbers(texts: list[str]) -> np.ndarray:
    codes, uniques = pd.factorize(pd.Series(texts, dtype=object))
    values = np.array(
        [_number(u) for u in uniques] if len(uniques) else [], dtype=float
    )
    return values[codes] if len(uniques) else np.array([], dtype=float)


@lru_cache(maxsize=100_000)
def _number(text: str) -> float:
    value = read_target_number(text) if text.strip() else None
    return float("nan") if value is None else float(value)


def _figure(metric: PlannedMetric, columns: _Columns, item_of_row, n_items):
    kind = metric.kind
    if kind == "mean":
        return Mean.prepare(columns.item_means(None))
    if kind == "user":
        return _user_figure(metric, columns, item_of_row)
    keep = columns.has_target()
    if kind == "classification":
        return columns.classification(item_of_row, n_items, metric.name)
    if kind == "correlation":
        x, y = columns.numbers()
        pick = np.flatnonzero(keep & ~np.isnan(x) & ~np.isnan(y))
        figure = {"pearson": Pearson, "spearman": Spearman, "kendall_tau": Kendall}
        return figure[metric.name].prepare(item_of_row[pick], n_items, x[pick], y[pick])
    return _corpus_figure(metric, columns, item_of_row, n_items, keep)


def _corpus_figure(metric, columns, item_of_row, n_items, keep):
    from sacrebleu.metrics import BLEU, CHRF

    sacre = (
        BLEU(**metric.params) if metric.name == "corpus_bleu" else CHRF(**metric.params)
    )
    pick = np.flatnonzero(keep)
    return Corpus.prepare(
        item_of_row[pick],
        n_items,
        sacre,
        [columns.answers[i] for i in pick],
        [list(columns.targets[i]) for i in pick],
    )


def _user_figure(metric, columns: _Columns, item_of_row) -> UserFigure:
    """The user's function over the scored rows (a parse failure has no score: left
    out, as the mean leaves it out)."""
    scored = np.flatnonzero(~np.isnan(columns.scores))
    arrays = (
        columns.scores[scored],
        np.array(columns.answers, dtype=object)[scored],
        np.array([list(t) for t in columns.targets] + [None], dtype=object)[scored],
        np.array(columns.metadata + [None], dtype=object)[scored],
    )
    function = metric.user.function
    if metric.params:
        from functools import partial

        function = partial(function, **metric.params)
    return UserFigure(
        function,
        metric.user.arity,
        item_of_row[scored],
        arrays,
        len(scored),
        name=metric.name,
    )


def _bootstrap(figures, n_items: int, options: MetricOptions) -> list[np.ndarray]:
    """Every figure on the same resamples (one pass over the blocks of counts)."""
    draws: list[list[np.ndarray]] = [[] for _ in figures]
    if n_items == 0:
        return [np.array([]) for _ in figures]
    for counts in resample_counts(
        n_items, seed=options.seed, resamples=options.resamples
    ):
        shared: dict[int, np.ndarray] = {}  # f1 and balanced accuracy: one product
        for collected, figure in zip(draws, figures):
            collected.append(figure.values(counts, shared))
    return [np.concatenate(collected) for collected in draws]


def _rows(metric, figure, draws, keys, n_items) -> list[dict[str, Any]]:
    """A metric's row, or one row per class (`class`: the target label) for
    precision and recall."""
    if metric.name not in PER_CLASS:
        return [_row(metric, figure, _point(figure, n_items), draws, keys, n_items)]
    if not n_items:
        return []
    point = figure.values(np.ones((1, n_items)))[0]
    return [
        _row(metric, figure, float(point[k]), draws[:, k], keys, n_items)
        | {"class": label}
        for k, label in enumerate(figure.classes)
    ]


def _point(figure, n_items: int) -> float:
    """The figure on the rows as observed: every item drawn once."""
    if not n_items:
        return float("nan")
    if isinstance(figure, UserFigure):
        return figure.point()
    return float(figure.values(np.ones((1, n_items)))[0])


def _row(metric, figure, value, draws, keys, n_items) -> dict[str, Any]:
    # no interval around a figure that is undefined on the data as observed
    low, high = percentile_interval(draws) if value == value else (np.nan, np.nan)
    row = {
        "gen_condition_id": keys["gen_id"],
        "grade_condition_id": keys["grade_id"],
        "metric": metric.name,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "n": int(figure.n),
        "items": n_items,
        "ci_method": "bootstrap",
    }
    if "facet" in keys:
        row["facet"], row["level"] = keys["facet"], keys["level"]
    if metric.source_hash:
        row["source_hash"] = metric.source_hash
    return row
