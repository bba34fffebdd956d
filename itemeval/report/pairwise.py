"""The report's pairwise section: a win-rate matrix and a strengths plot with intervals
per pairwise judge, drawn from the `pairwise` and `strengths` lists of the results."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..result_values import ResultsReport


def pairwise_section(
    results: ResultsReport, slugs: dict[str, str], svg: Callable[[Any], str]
) -> str:
    """Per pairwise judge: the win-rate matrix (row beats column; ties half), a table of
    its biases per pair, and the Bradley–Terry strengths with 95% intervals."""
    parts = [
        '<h2>Pairwise judges</h2><p class="muted">Win rate of the row\'s condition '
        "over the column's (ties count half); strengths are Bradley–Terry "
        "log-strengths (the first condition by id at 0) with item-bootstrap 95% "
        "intervals; Elo = 1000 + 173.7 × strength.</p>"
    ]
    pairs = pd.DataFrame(results.pairwise)
    strengths = pd.DataFrame(results.strengths)
    for grade_id, rows in pairs.groupby("grade_condition_id", sort=False):
        name = html.escape(slugs.get(grade_id, grade_id))
        parts.append(f"<h3>{name}</h3>")
        parts.append(svg(_matrix(rows, slugs, name)))
        parts.append(_bias_table(rows, slugs))
        own = (
            strengths[strengths["grade_condition_id"] == grade_id]
            if len(strengths)
            else strengths
        )
        if len(own):
            parts.append(svg(_strength_plot(own, slugs, name)))
    return "".join(parts)


def _matrix(rows: pd.DataFrame, slugs: dict[str, str], title: str) -> Any:
    import matplotlib.pyplot as plt

    names = sorted(set(rows["a"]) | set(rows["b"]))
    matrix = np.full((len(names), len(names)), np.nan)
    for a, b, rate in zip(rows["a"], rows["b"], rows["win_rate"]):
        if rate is not None and rate == rate:
            i, j = names.index(a), names.index(b)
            matrix[i, j], matrix[j, i] = rate, 1.0 - rate
    figure, axes = plt.subplots(figsize=(0.7 * len(names) + 3, 0.6 * len(names) + 2))
    image = axes.imshow(matrix, cmap="RdBu", vmin=0.0, vmax=1.0)
    for (i, j), value in np.ndenumerate(matrix):
        if value == value:
            axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7)
    short = [slugs.get(n, n) for n in names]
    axes.set_xticks(range(len(names)), short, rotation=60, ha="right", fontsize=7)
    axes.set_yticks(range(len(names)), short, fontsize=7)
    axes.set_title(f"{html.unescape(title)}: win rate (row over column)", fontsize=10)
    figure.colorbar(image, ax=axes, shrink=0.8)
    return figure


def _strength_plot(rows: pd.DataFrame, slugs: dict[str, str], title: str) -> Any:
    import matplotlib.pyplot as plt

    rows = rows.sort_values("strength", na_position="first")
    labels = [slugs.get(c, c) for c in rows["gen_condition_id"]]
    value = rows["strength"].astype(float).to_numpy()
    low = value - rows["ci_low"].astype(float).to_numpy()
    high = rows["ci_high"].astype(float).to_numpy() - value
    figure, axes = plt.subplots(figsize=(6, 0.4 * len(rows) + 1.5))
    axes.errorbar(value, range(len(rows)), xerr=[low, high], fmt="o", capsize=3)
    axes.set_yticks(range(len(rows)), labels, fontsize=7)
    axes.axvline(0.0, color="grey", linewidth=0.5)
    axes.set_xlabel("Bradley–Terry log-strength (95% CI)")
    axes.set_title(f"{html.unescape(title)}: strengths", fontsize=10)
    return figure


def _bias_table(rows: pd.DataFrame, slugs: dict[str, str]) -> str:
    head = [
        "A",
        "B",
        "n",
        "win rate A",
        "95% CI",
        "flips",
        "first pos.",
        "length r",
        "flags",
    ]
    body = []
    for row in rows.itertuples(index=False):
        cells = [
            slugs.get(row.a, row.a),
            slugs.get(row.b, row.b),
            row.n,
            num(row.win_rate),
            f"{num(row.ci_low)}–{num(row.ci_high)}",
            num(row.flip_rate),
            num(row.first_position_rate),
            num(row.length_corr),
            ", ".join(row.flags),
        ]
        body.append(
            "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>"
        )
    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    return (
        f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def num(value: Any) -> str:
    return "–" if value is None or value != value else f"{value:.3f}"
