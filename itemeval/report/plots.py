"""The report's plots: the forest of every cell and the marginals per facet (HTML
interval charts), grader agreement, calibration and item difficulty (matplotlib SVG
inline, html.svg)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..result_values import AgreementRow, Calibration, ResultsReport
from ..results.agreement import scored_wide
from ..stats.reducers import item_scores
from ..study.load import Study
from . import headline as report_headline
from .html import esc, html_table, num, svg
from .intervals import Interval, interval_chart

_SCATTER_POINTS = 2_000


FOREST_ROWS = 200
"""The forest's cells at most: `results` lists every one."""


def forest(results: ResultsReport, slugs: dict[str, str]) -> str:
    """Every graded cell's mean and 95% CI, in the results table's order; a chart
    per scale, so a 0–3 judge and 0/1 scorers never share an axis."""
    graded = [c for c in results.cells if c.mean is not None]
    if not graded:
        return "<h2>Forest plot</h2><p>No graded cell yet.</p>"
    shown = graded[:FOREST_ROWS]
    charts = []
    for scale, cells in _by_scale(results, shown, "grade_condition_id").items():
        rows = [
            Interval(
                f"{slugs[c.gen_condition_id]} · {slugs[c.grade_condition_id]}",
                c.mean,
                c.ci_low,
                c.ci_high,
                f"on {c.items} items",
            )
            for c in cells
        ]
        caption = "mean score per item, 95% CI" + (f", scores {scale}" if scale else "")
        charts.append(interval_chart(rows, caption, heading="generate · grade"))
    more = (
        f'<p class="muted">The first {FOREST_ROWS} of {len(graded)} graded cells; '
        "<code>itemeval results</code> lists them all.</p>"
        if len(graded) > FOREST_ROWS
        else ""
    )
    return "<h2>Forest plot</h2>" + "".join(charts) + more


def _by_scale(results: ResultsReport, rows: list, key: str) -> dict[str, list]:
    """Rows grouped by the scale of their grade condition (one group named "" when
    every row is on one scale, or the scale is not known)."""
    groups: dict[str, list] = {}
    for row in rows:
        grade_id = getattr(row, key)
        groups.setdefault(
            results.scales.get(grade_id, "") if grade_id else "", []
        ).append(row)
    return groups if len(groups) > 1 else {"": rows}


def marginal_plots(results: ResultsReport, slugs: dict[str, str]) -> str:
    """Per facet, each level's mean and 95% CI (per grade condition, or over all of
    them for a grade facet)."""
    parts = ["<h2>By facet</h2>"]
    by_facet: dict[tuple[str, str], list[Interval]] = {}
    several = len(set(results.scales.values())) > 1
    for m in results.marginals:
        if m.mean is None or m.mean != m.mean:
            continue
        grade = (
            slugs.get(m.grade_condition_id, "all") if m.grade_condition_id else "all"
        )
        scale = (m.scale or "") if several else ""
        by_facet.setdefault((m.facet, scale), []).append(
            Interval(
                f"{m.level} · {grade}",
                m.mean,
                m.ci_low,
                m.ci_high,
                f"on {m.items} items",
            )
        )
    for (facet, scale), rows in by_facet.items():
        caption = f"by {facet}" + (f", scores {scale}" if scale else "")
        parts.append(
            interval_chart(rows, caption, marker="square", heading=f"{facet} · grade")
        )
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
        html_table(_AGREEMENT_HEADERS, rows, left=2),
    ]
    if any(not row.common_scale for row in results.agreement):
        parts.append(
            '<p class="muted">Exact agreement and bias are left out (–) where A and '
            "B score on different scales (a 0/1 scorer beside a 0–3 judge): their "
            "numbers mean different things; Spearman, kappa and the pass-mark "
            "confusion compare their order.</p>"
        )
    return "".join(parts + _pair_plots(wide, results, slugs))


def _agreement_row(r: AgreementRow, slugs: dict[str, str]) -> list[object]:
    return [
        *(slugs[r.a], slugs[r.b], r.n),
        *(num(r.exact), num(r.spearman)),
        *(num(r.kappa_quadratic), num(r.alpha_interval)),
        f"{num(r.bias)} [{num(r.bias_ci_low)}, {num(r.bias_ci_high)}]",
        num(r.threshold, 2)
        if r.threshold_b in (None, r.threshold)
        else f"{num(r.threshold, 2)} / {num(r.threshold_b, 2)}",
        *r.confusion.values(),
    ]


def _pair_plots(
    wide: pd.DataFrame, results: ResultsReport, slugs: dict[str, str]
) -> list[str]:
    parts = []
    rng = np.random.default_rng(0)
    for row in results.agreement[:12]:
        both = wide[[row.a, row.b]].dropna()
        if report_headline.is_zero_one(both):
            parts.append(
                report_headline.confusion_table(both, slugs[row.a], slugs[row.b])
            )
            continue
        # a sample keeps the SVG small; the table above uses every pair
        if len(both) > _SCATTER_POINTS:
            both = both.sample(_SCATTER_POINTS, random_state=0)
        import matplotlib.pyplot as plt  # only here: 0/1 pairs need no plot

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
        # each plot under its own pair's caption, not the table or plot above it
        caption = f"<h3>{esc(slugs[row.a])} vs {esc(slugs[row.b])}</h3>"
        parts.append(caption + svg(figure))
    return parts


def reliability(results: ResultsReport, slugs: dict[str, str]) -> str:
    rows = [
        [
            *(slugs[r.gen_condition_id], slugs[r.grade_condition_id], r.n),
            *(num(r.ece), num(r.ece_equal_mass), num(r.brier), num(r.auc)),
        ]
        for r in results.calibration
    ]
    headers = ["solver", "scorer", "n", "ECE", "ECE (equal mass)", "Brier", "AUC"]
    parts = ["<h2>Calibration</h2>", html_table(headers, rows, left=2)]
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
        return "<h2>Items by their metadata</h2><p>No graded item yet.</p>"
    meta = pd.DataFrame(
        [
            {"item_id": item.id, **{m: item.metadata.get(m) for m in metadata}}
            for item in study.items
        ]
    )
    joined = meta.merge(items.rename("mean_score").reset_index(), on="item_id")
    parts = [
        '<h2>Items by their metadata</h2><p class="muted">Each item\'s mean score '
        "over every condition (its pass rate on a 0/1 scale: higher is easier), "
        "against its metadata.</p>"
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
