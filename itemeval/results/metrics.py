"""The declared metrics of a study, per grid cell and per `--by` level, each with its
item-bootstrap interval; the same item resamples serve every metric of a cell."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..records import GradeCondition
from ..stats.correlations import Kendall, Pearson, Spearman
from ..stats.metric_differences import Difference, bootstrap_p, holm_per_metric
from ..stats.metric_figures import PER_CLASS, Classification, Corpus, Mean, UserFigure
from ..stats.resample import (
    percentile_interval,
    resample_counts,
    stratified_counts,
)
from ..study.load import Study
from ..study.metrics import PlannedMetric, plan_metrics
from .metric_rows import CellContext, Columns, MetricOptions, answers


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
    frame = answers(study, grade, planned, options.items)
    context = CellContext.of(study, grade, item_scores, options)
    rows = []
    for (gen_id, grade_id), cell in frame.groupby(
        ["gen_condition_id", "grade_condition_id"], sort=True
    ):
        rows += _cell_rows(context, cell, planned, gen_id=gen_id, grade_id=grade_id)
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
        columns = Columns(context, cell, shared, grade_id)
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
        rows += _cell_rows(
            context,
            group,
            planned,
            gen_id=None,
            grade_id=grade_id,
            facet=facet,
            level=level,
        )
    return rows


def _cell_rows(
    context: CellContext, cell: pd.DataFrame, planned, **keys
) -> list[dict[str, Any]]:
    grade_id = keys["grade_id"]
    metrics = [m for m in planned if grade_id in m.grade_condition_ids]
    if not metrics:
        return []
    item_ids, item_of_row = _factorize(cell["item_id"])
    columns = Columns(context, cell, item_ids, grade_id)
    figures = [(m, _figure(m, columns, item_of_row, len(item_ids))) for m in metrics]
    values = _bootstrap([f for _, f in figures], len(item_ids), context.options)
    return [
        row
        for (metric, figure), draws in zip(figures, values)
        for row in _rows(metric, figure, draws, keys, len(item_ids))
    ]


def _factorize(item_ids: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(item_ids, sort=True)
    return np.asarray(uniques), codes


def _figure(metric: PlannedMetric, columns: Columns, item_of_row, n_items):
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


def _user_figure(metric, columns: Columns, item_of_row) -> UserFigure:
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
        name=metric.label,
    )


def _bootstrap(figures, n_items: int, options: MetricOptions) -> list[np.ndarray]:
    """Every figure on the same resamples (one pass over the blocks of counts).

    Classification figures take the items resampled within each target class (a
    stratified bootstrap): every class keeps its count in every resample, so a macro
    average always averages every class. A plain resample that drew no item of a
    rare class would average over fewer classes and set the interval's upper end."""
    draws: list[list[np.ndarray]] = [[] for _ in figures]
    if n_items == 0:
        return [np.array([]) for _ in figures]
    plain = resample_counts(n_items, seed=options.seed, resamples=options.resamples)
    strata = next((s for f in figures if (s := _strata(f)) is not None), None)
    by_class = (
        stratified_counts(strata, seed=options.seed, resamples=options.resamples)
        if strata is not None
        else itertools.repeat(None)
    )
    for counts, within in zip(plain, by_class):
        shared: dict[int, np.ndarray] = {}  # f1 and balanced accuracy: one product
        for collected, figure in zip(draws, figures):
            use = within if _strata(figure) is not None else counts
            collected.append(figure.values(use, shared))
    return [np.concatenate(collected) for collected in draws]


def _strata(figure) -> np.ndarray | None:
    """A classification figure's item classes (a paired difference's too)."""
    inner = figure.first if isinstance(figure, Difference) else figure
    return inner.item_class if isinstance(inner, Classification) else None


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
        "metric": metric.label,
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
