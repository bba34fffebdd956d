"""Tables of grader pairs (agreement, agreement per criterion) with A and B named by
the grader facets that vary (cell_names.grader_facets): "strict-judge | concise", not
a slug cut in its middle. Where even those names would be cut at the console's width,
each grader gets a key (G1, G2, …) listed in full above the table."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console
from rich.text import Text

from .cell_names import grader_name
from .result_values import ResultsReport
from .tables import Column, Row, field, fits, fitted


def print_grader_pairs(
    console: Console,
    results: ResultsReport,
    title: str,
    columns: Callable[[dict[str, str]], Sequence[Column]],
    rows: Sequence[Row],
) -> None:
    """`columns(names)` builds the table's columns with A and B read from `names`."""
    if not rows:
        return
    names = {
        **results.slugs,
        **{gid: grader_name(f) for gid, f in results.grader_facets.items()},
    }
    table = fitted(console, title, columns(names), rows)
    if fits(console, table):
        console.print(table)
        return
    shown = dict.fromkeys(field(row, side) for row in rows for side in ("a", "b"))
    keys = {gid: f"G{k}" for k, gid in enumerate(shown, start=1)}
    console.print(Text(f"{title} (graders by key)", style="italic"))
    for gid, key in keys.items():
        # wraps at the spaces of "name | rubric" on a narrow console, never cut
        console.print(Text(f"  {key}  {names.get(gid, gid)}"))
    console.print(fitted(console, None, columns(keys), rows))
