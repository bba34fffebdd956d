"""The report's opening and the pieces that answer "which is better": the headline per
grade condition, the paired-difference heatmaps with the cells that stay significant
after Holm marked, and the confusion table of two graders that both score 0/1."""

from __future__ import annotations

import math

import pandas as pd

from ..result_values import ResultsReport
from ..study.cell_names import cell_name
from .html import esc, html_table

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
        f'<li class="{"lead" if row.detectable else "tie"}">{esc(row.text)}</li>'
        for row in results.headline
    )
    return (
        '<h2>Headline</h2><p class="muted">Per grade condition: the generate '
        "condition with the highest mean and its lead over the next, the paired "
        "difference on the items both have (95% CI) with its p-value Holm-adjusted "
        "over every pair of that grade condition's conditions."
        f'</p><ul class="headline">{items}</ul>'
    )


def differences_section(results: ResultsReport) -> str:
    """One heatmap of row − column per grade condition, as a table whose cells carry
    the difference; a cell whose Holm-adjusted p is below 0.05 is outlined and
    starred."""
    shown = names(results)
    frame = pd.DataFrame(results.comparisons)
    marked = sum(
        1 for p in frame["p_adjusted"] if p is not None and p == p and p < ALPHA
    )
    parts = [
        '<h2>Paired differences (row − column)</h2><p class="muted">On the items '
        "both conditions have; blue where the row's mean is higher, red where it is "
        "lower. Outlined cells with a ★ differ after Holm's adjustment over the "
        "comparisons of their grade condition (adjusted p &lt; 0.05): "
        f"{marked} of {len(frame)}. Hover a cell for its interval and p.</p>"
    ]
    for grade_id, rows in frame.groupby("grade_condition_id", sort=False):
        parts.append(_heatmap(rows, shown, shown.get(grade_id, grade_id)))
    return "".join(parts)


def _heatmap(rows: pd.DataFrame, shown: dict[str, str], title: str) -> str:
    """The matrix as an HTML table: numbers a reader can copy, colours from
    matplotlib's RdBu scaled to the largest difference, and drawn at no plotting
    cost (twenty conditions made five SVG heatmaps take ~5 s of a report)."""
    ids = list(dict.fromkeys([*rows["a"], *rows["b"]]))
    cells = _cells(rows, ids)
    finite = [abs(c["diff"]) for c in cells.values()]
    bound = max(finite) if finite and max(finite) > 0 else 1.0
    digits = min(4, max(2, 1 - math.floor(math.log10(bound))))
    colours = shades([cell["diff"] for cell in cells.values()], bound)
    for cell, colour in zip(cells.values(), colours):
        cell["shade"] = colour
    labels = [esc(shown.get(i, i)) for i in ids]
    head = "".join(f'<th class="c"><span>{label}</span></th>' for label in labels)
    body = []
    for i, label in enumerate(labels):
        row = [f'<th class="l">{label}</th>']
        for j in range(len(ids)):
            row.append(_cell(cells.get((i, j)), i, j, digits))
        body.append(f"<tr>{''.join(row)}</tr>")
    return (
        f'<div class="heat"><table><caption>{esc(title)}</caption><thead><tr><th>'
        f"</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _cells(rows: pd.DataFrame, ids: list[str]) -> dict[tuple[int, int], dict]:
    """(row, column) -> the comparison read as row − column, both halves filled;
    pairs with no difference (no shared items) are left out."""
    index = {id_: k for k, id_ in enumerate(ids)}
    cells = {}
    for row in rows.to_dict("records"):
        diff = row["diff"]
        if diff is None or diff != diff:
            continue
        i, j = index[row["a"]], index[row["b"]]
        p = row["p_adjusted"]
        common = {
            "n": row["n"],
            "p": p,
            "significant": p is not None and p == p and p < ALPHA,
        }
        low, high = row["ci_low"], row["ci_high"]
        cells[i, j] = {**common, "diff": diff, "ci": (low, high)}
        flipped = (-high if _finite(high) else None, -low if _finite(low) else None)
        cells[j, i] = {**common, "diff": -diff, "ci": flipped}
    return cells


def _cell(cell: dict | None, i: int, j: int, digits: int) -> str:
    """One difference, shown to `digits` places: two significant digits of the
    largest, so small differences do not all read +0.00."""
    if i == j:
        return '<td class="self"></td>'
    if cell is None:
        return '<td title="no items in common">–</td>'
    background, ink = cell["shade"]
    low, high = cell["ci"]
    interval = f" [{low:+.3f}, {high:+.3f}]" if _finite(low) and _finite(high) else ""
    p = cell["p"]
    tip = f"{_no_minus_zero(cell['diff'], 3)}{interval} on {cell['n']} items" + (
        f", Holm p {p:.3g}" if p is not None and p == p else ""
    )
    text = _no_minus_zero(cell["diff"], digits)
    mark = ""
    if cell["significant"]:
        mark = f' id="{MARK}-{i}-{j}" class="sig"'
        text += " ★"
    style = f"background:{background};color:{ink}"
    return f'<td{mark} style="{style}" title="{esc(tip)}">{text}</td>'


def _no_minus_zero(value: float, digits: int) -> str:
    """A signed difference; one that rounds to zero reads 0.00, not -0.00."""
    text = f"{value:+.{digits}f}"
    return f"{0:.{digits}f}" if float(text) == 0 else text


def shades(values: list[float], bound: float) -> list[tuple[str, str]]:
    """Each difference's background on RdBu from −bound (red) to +bound (blue), and
    black or white ink, whichever reads better on it. One call of the colormap for
    all of them: a call costs ~0.4 ms whatever its length."""
    import numpy as np
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    scaled = 0.5 + 0.5 * np.clip(np.asarray(values, dtype=float) / bound, -1.0, 1.0)
    rgba = colormaps["RdBu"](scaled)
    luminance = rgba[:, :3] @ np.array([0.2126, 0.7152, 0.0722]) if len(rgba) else []
    return [
        (to_hex(colour[:3]), "#000" if light > 0.45 else "#fff")
        for colour, light in zip(rgba, luminance)
    ]


def _finite(value: float | None) -> bool:
    return value is not None and value == value and abs(value) != float("inf")


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
    body = html_table(
        [f"{a} ↓ / {b} →", "1", "0"],
        [["1", *counts[0]], ["0", *counts[1]]],
    ).replace("<table>", '<table class="confusion">', 1)
    return f"<h3>{esc(a)} vs {esc(b)}</h3>{body}"
