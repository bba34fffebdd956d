"""The report's opening and the pieces that answer "which is better": the headline per
grade condition, the paired-difference heatmaps with the cells that stay significant
after Holm marked, and the confusion table of two graders that both score 0/1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from .cell_names import cell_name
from .report_html import _e, _table
from .result_values import ResultsReport

ALPHA = 0.05
MARK = "holm-significant"
"""The id prefix of a heatmap cell significant after Holm (`<g id="holm-significant-…">`
in the SVG), so a reader's script, and the tests, can find them."""


def names(results: ResultsReport) -> dict[str, str]:
    """Generate condition id -> its varying facets ("arith-good | concise | cold"),
    grade condition ids -> their slug."""
    shown = dict(results.slugs)
    for gen_id, facets in results.cell_facets.items():
        shown[gen_id] = cell_name(facets)
    return shown


def headline_section(results: ResultsReport) -> str:
    """The sentences `results` opens with, one per grade condition."""
    if not results.headline:
        return "<h2>Headline</h2><p>No graded cell yet.</p>"
    items = "".join(
        f'<li class="{"lead" if row.detectable else "tie"}">{_e(row.text)}</li>'
        for row in results.headline
    )
    return (
        '<h2>Headline</h2><p class="muted">Per grade condition: the generate '
        "condition with the highest mean and its lead over the next, the paired "
        "difference on the items both have (95% CI) with its p-value Holm-adjusted "
        "over every pair of that grade condition's conditions."
        f'</p><ul class="headline">{items}</ul>'
    )


def differences_section(results: ResultsReport, svg: Callable[[Any], str]) -> str:
    """One heatmap of row − column per grade condition; a cell whose Holm-adjusted
    p is below 0.05 is outlined and starred."""
    shown = names(results)
    frame = pd.DataFrame(results.comparisons)
    marked = sum(
        1 for p in frame["p_adjusted"] if p is not None and p == p and p < ALPHA
    )
    parts = [
        '<h2>Paired differences (row − column)</h2><p class="muted">On the items '
        "both conditions have. Outlined cells with a ★ differ after Holm's adjustment "
        "over the comparisons of their grade condition (adjusted p &lt; 0.05): "
        f"{marked} of {len(frame)}.</p>"
    ]
    for grade_id, rows in frame.groupby("grade_condition_id", sort=False):
        parts.append(svg(_heatmap(rows, shown, shown.get(grade_id, grade_id))))
    return "".join(parts)


def _heatmap(rows: pd.DataFrame, shown: dict[str, str], title: str) -> Any:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    ids = list(dict.fromkeys([*rows["a"], *rows["b"]]))
    matrix, significant = _matrices(rows, ids)
    figure, axes = plt.subplots(figsize=(0.6 * len(ids) + 3, 0.5 * len(ids) + 2))
    finite = np.isfinite(matrix)
    bound = np.nanmax(np.abs(matrix)) if finite.any() else 1.0
    image = axes.imshow(matrix, cmap="RdBu", vmin=-bound, vmax=bound)
    labels = [shown.get(i, i) for i in ids]
    axes.set_xticks(range(len(ids)), labels, rotation=60, ha="right", fontsize=7)
    axes.set_yticks(range(len(ids)), labels, fontsize=7)
    for i, j in zip(*np.nonzero(significant)):
        box = Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2, ec="black")
        box.set_gid(f"{MARK}-{i}-{j}")
        axes.add_patch(box)
        axes.text(j, i, "★", ha="center", va="center", fontsize=9)
    axes.set_title(title, fontsize=10)
    figure.colorbar(image, ax=axes, shrink=0.8)
    return figure


def _matrices(rows: pd.DataFrame, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(row − column differences, whether each is significant after Holm), both
    halves filled."""
    matrix = np.full((len(ids), len(ids)), np.nan)
    significant = np.zeros_like(matrix, dtype=bool)
    for a, b, diff, p in zip(rows["a"], rows["b"], rows["diff"], rows["p_adjusted"]):
        if diff is None or diff != diff:
            continue
        i, j = ids.index(a), ids.index(b)
        matrix[i, j], matrix[j, i] = diff, -diff
        if p is not None and p == p and p < ALPHA:
            significant[i, j] = significant[j, i] = True
    return matrix, significant


def is_zero_one(both: pd.DataFrame) -> bool:
    """Whether both graders' scores on these solutions are all 0 or 1."""
    return bool(both.isin([0.0, 1.0]).all().all()) and not both.empty


def confusion_table(both: pd.DataFrame, a: str, b: str) -> str:
    """Two 0/1 graders of the same solutions as a 2 × 2 table of counts: the whole
    story of their agreement, where a scatter would show four dots."""
    x, y = both.iloc[:, 0].to_numpy(), both.iloc[:, 1].to_numpy()
    counts = [
        [int(((x == r) & (y == c)).sum()) for c in (1.0, 0.0)] for r in (1.0, 0.0)
    ]
    body = _table(
        [f"{a} ↓ / {b} →", "1", "0"],
        [["1", *counts[0]], ["0", *counts[1]]],
    ).replace("<table>", '<table class="confusion">', 1)
    return f"<h3>{_e(a)} vs {_e(b)}</h3>{body}"
