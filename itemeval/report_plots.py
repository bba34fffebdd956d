"""The report's plots: the forest of every cell, the marginals per facet, grader
agreement, calibration and item difficulty; matplotlib SVG inline (report_html.svg)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import report_headline
from .report_html import _num, _table, svg
from .result_values import AgreementRow, Calibration, ResultsReport
from .results import item_scores
from .results_agreement import scored_wide
from .study import Study

_SCATTER_POINTS = 2_000


def forest(results: ResultsReport, slugs: dict[str, str]) -> str:
    import matplotlib.pyplot as plt

    cells = [c for c in results.cells if c.mean is not None][:200]
    if not cells:
        return "<h2>Forest plot</h2><p>No graded cell yet.</p>"
    figure, axes = plt.subplots(figsize=(8, 0.28 * len(cells) + 1))
    labels = [
        f"{slugs[c.gen_condition_id]} · {slugs[c.grade_condition_id]}" for c in cells
    ]
    means = np.array([c.mean for c in cells])
    low = np.array([c.ci_low if c.ci_low is not None else c.mean for c in cells])
    high = np.array([c.ci_high if c.ci_high is not None else c.mean for c in cells])
    positions = np.arange(len(cells))[::-1]
    axes.errorbar(
        means,
        positions,
        xerr=[means - low, high - means],
        fmt="o",
        color="#1f5fa8",
        capsize=3,
    )
    axes.set_yticks(positions, labels, fontsize=7)
    axes.set_xlabel("mean score per item, 95% CI")
    axes.grid(axis="x", alpha=0.3)
    return "<h2>Forest plot</h2>" + svg(figure)


def marginal_plots(results: ResultsReport, slugs: dict[str, str]) -> str:
    import matplotlib.pyplot as plt

    parts = ["<h2>By facet</h2>"]
    frame = pd.DataFrame(results.marginals)
    for facet, rows in frame.groupby("facet", sort=False):
        figure, axes = plt.subplots(figsize=(8, 0.35 * len(rows) + 1))
        labels = [
            f"{level} · {slugs.get(grade, 'all') if grade else 'all'}"
            for level, grade in zip(rows["level"], rows["grade_condition_id"])
        ]
        means = rows["mean"].to_numpy(dtype=float)
        low, high = (
            rows["ci_low"].fillna(rows["mean"]).to_numpy(float),
            rows["ci_high"].fillna(rows["mean"]).to_numpy(float),
        )
        positions = np.arange(len(rows))[::-1]
        axes.errorbar(
            means,
            positions,
            xerr=[means - low, high - means],
            fmt="s",
            color="#2e7d32",
            capsize=3,
        )
        axes.set_yticks(positions, labels, fontsize=8)
        axes.set_title(f"by {facet}", fontsize=10)
        axes.grid(axis="x", alpha=0.3)
        parts.append(svg(figure))
    return "".join(parts)


_AGREEMENT_HEADERS = [
    *("A", "B", "n", "exact", "Spearman", "kappa (quadratic)", "alpha (interval)"),
    *("bias A − B [95% CI]", "threshold"),
    *("both pass", "A only", "B only", "both fail"),
]


def agreement(
    frame: pd.DataFrame, results: ResultsReport, slugs: dict[str, str]
) -> str:
    """The agreement table, then per pair (the first 12) a confusion table when both
    score 0/1, else a scatter of their scores."""
    wide = scored_wide(frame)
    rows = [_agreement_row(row, slugs) for row in results.agreement]
    parts = [
        "<h2>Grader agreement</h2>",
        _table(_AGREEMENT_HEADERS, rows, left=2),
    ]
    return "".join(parts + _pair_plots(wide, results, slugs))


def _agreement_row(r: AgreementRow, slugs: dict[str, str]) -> list[object]:
    return [
        *(slugs[r.a], slugs[r.b], r.n),
        *(_num(r.exact), _num(r.spearman)),
        *(_num(r.kappa_quadratic), _num(r.alpha_interval)),
        f"{_num(r.bias)} [{_num(r.bias_ci_low)}, {_num(r.bias_ci_high)}]",
        _num(r.threshold, 2),
        *r.confusion.values(),
    ]


def _pair_plots(
    wide: pd.DataFrame, results: ResultsReport, slugs: dict[str, str]
) -> list[str]:
    import matplotlib.pyplot as plt

    parts = []
    rng = np.random.default_rng(0)
    for row in results.agreement[:12]:
        both = wide[[row.a, row.b]].dropna()
        if report_headline.is_zero_one(both):
            parts.append(
                report_headline.confusion_table(both, slugs[row.a], slugs[row.b])
            )
            continue
        if (
            len(both) > _SCATTER_POINTS
        ):  # a sample keeps the SVG small; the table above uses every pair
            both = both.sample(_SCATTER_POINTS, random_state=0)
        figure, axes = plt.subplots(figsize=(3.6, 3.4))
        jitter = rng.uniform(-0.04, 0.04, size=(len(both), 2)) * (
            np.ptp(both.to_numpy()) or 1
        )
        axes.scatter(
            both[row.a] + jitter[:, 0],
            both[row.b] + jitter[:, 1],
            s=8,
            alpha=0.4,
            color="#6a1b9a",
        )
        axes.set_xlabel(slugs[row.a], fontsize=7)
        axes.set_ylabel(slugs[row.b], fontsize=7)
        parts.append(svg(figure))
    return parts


def reliability(results: ResultsReport, slugs: dict[str, str]) -> str:
    rows = [
        [
            *(slugs[r.gen_condition_id], slugs[r.grade_condition_id], r.n),
            *(_num(r.ece), _num(r.ece_equal_mass), _num(r.brier), _num(r.auc)),
        ]
        for r in results.calibration
    ]
    headers = ["solver", "scorer", "n", "ECE", "ECE (equal mass)", "Brier", "AUC"]
    parts = ["<h2>Calibration</h2>", _table(headers, rows, left=2)]
    parts += [_reliability_plot(row, slugs) for row in results.calibration[:12]]
    return "".join(parts)


def _reliability_plot(row: Calibration, slugs: dict[str, str]) -> str:
    """Observed rate against predicted probability per bin, sized by its count."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(3.6, 3.4))
    points = row.reliability
    axes.plot([0, 1], [0, 1], color="#999", linestyle="--", linewidth=1)
    axes.scatter(
        [p["predicted"] for p in points],
        [p["observed"] for p in points],
        s=[10 + 4 * p["count"] for p in points],
        color="#c62828",
        alpha=0.7,
    )
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("predicted P(positive)", fontsize=8)
    axes.set_ylabel("observed rate", fontsize=8)
    axes.set_title(
        f"{slugs[row.gen_condition_id]}\n{slugs[row.grade_condition_id]}",
        fontsize=7,
    )
    return svg(figure)


def difficulty(study: Study, metadata: list[str], frame: pd.DataFrame) -> str:
    import matplotlib.pyplot as plt

    items = item_scores(frame, "mean").groupby("item_id")["score"].mean()
    if items.empty:
        return "<h2>Item difficulty</h2><p>No graded item yet.</p>"
    meta = pd.DataFrame(
        [
            {"item_id": item.id, **{m: item.metadata.get(m) for m in metadata}}
            for item in study.items
        ]
    )
    joined = meta.merge(items.rename("mean_score").reset_index(), on="item_id")
    parts = [
        '<h2>Item difficulty</h2><p class="muted">Each item\'s mean score over '
        "every condition, against "
        "its metadata.</p>"
    ]
    for column in metadata[:6]:
        values = joined[[column, "mean_score"]].dropna()
        if values.empty:
            continue
        figure, axes = plt.subplots(figsize=(6, 3))
        if pd.api.types.is_numeric_dtype(values[column]):
            axes.scatter(values[column], values["mean_score"], s=10, alpha=0.5)
        else:
            levels = sorted(values[column].astype(str).unique())[:30]
            groups = [
                values.loc[values[column].astype(str) == level, "mean_score"]
                for level in levels
            ]
            axes.boxplot(groups, tick_labels=levels)
            axes.tick_params(axis="x", labelrotation=30, labelsize=7)
        axes.set_xlabel(column)
        axes.set_ylabel("mean score")
        parts.append(svg(figure))
    return "".join(parts)
