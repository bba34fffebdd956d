"""Tables of pairs (grader agreement, agreement per criterion, paired differences)
with A and B named by the facets that vary: "strict-judge | concise" or "arith-good |
concise | cold", not a slug cut in its middle. Where even those names would be cut
at the console's width, each name gets a key (G1… for graders, C1… for generate
conditions) listed in full above the table; a key means the same condition in every
table of one output."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from ..result_values import ResultsReport
from ..study.cell_names import cell_name, grader_name
from .tables import Column, Row, field, fits, fitted


def print_grader_pairs(
    console: Console,
    results: ResultsReport,
    title: str,
    columns: Callable[[dict[str, str]], Sequence[Column]],
    rows: Sequence[Row],
) -> None:
    """`columns(names)` builds the table's columns with A and B read from `names`."""
    names = {gid: grader_name(f) for gid, f in results.grader_facets.items()}
    print_pairs(console, results, title, columns, rows, Naming(names, "G", "graders"))


def cell_names(results: ResultsReport) -> dict[str, str]:
    """Generate conditions by the facets that vary ("arith-good | concise | cold")."""
    return {gen_id: cell_name(facets) for gen_id, facets in results.cell_facets.items()}


@dataclass(frozen=True)
class Naming:
    """How a table of pairs names its A and B: by `names`, or where a name would be
    cut, by keys `prefix`1, `prefix`2, ... that stand for `what`."""

    names: dict[str, str]
    prefix: str
    what: str


def print_pairs(
    console: Console,
    results: ResultsReport,
    title: str,
    columns: Callable[[dict[str, str]], Sequence[Column]],
    rows: Sequence[Row],
    naming: Naming,
) -> None:
    """The table named by `naming` (a condition missing from it by its slug), or by
    keys listed whole above it when a name would be cut."""
    if not rows:
        return
    names = dict(naming.names)
    for row in rows:
        for side in ("a", "b"):
            names.setdefault(field(row, side), results.slugs.get(field(row, side), ""))
    table = fitted(console, None, columns(names), rows)
    if fits(console, table):
        console.print(Text(title, style="italic"))
        console.print(table)
        return
    prefix, what = naming.prefix, naming.what
    keys = {gid: f"{prefix}{k}" for k, gid in enumerate(names, start=1)}
    shown = dict.fromkeys(field(row, side) for row in rows for side in ("a", "b"))
    console.print(Text(f"{title} ({what} by key)", style="italic"))
    for gid in shown:
        # wraps at the spaces of "name | rubric" on a narrow console, never cut
        console.print(Text(f"  {keys.get(gid, gid)}  {names.get(gid, gid)}"))
    console.print(fitted(console, None, columns(keys), rows))
