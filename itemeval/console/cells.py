"""Tables of `itemeval results` whose rows name cells by the facets that vary (model |
prompt | config), so nothing is cut in its middle at 80 columns, and the numbers
their columns show."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from ..result_values import ResultsReport
from ..study.cell_names import HEADERS
from .tables import Column, Row, count, field, fitted

SCALES_DIFFER = (
    "exact agreement is - where A and B score on different scales (a 0/1 scorer "
    "beside a 0-3 judge): their numbers mean different things; rho and kappa "
    "compare their order"
)

CI_NAMES = {  # README "Intervals" says how the bounded one differs
    "wilson": "Wilson",
    "wilson_bounded": "Wilson",
    "t": "t",
    "bootstrap": "bootstrap",
}


def render_headline(results: ResultsReport, console: Console) -> None:
    """Per grade condition, the sentence a reader can quote (headline.py)."""
    if not results.headline:
        return
    console.print(Text(f"{results.study}: headline", style="bold"))
    for row in results.headline:
        console.print(Text(f"- {row.text}"))
    console.print()


def facet_columns(results: ResultsReport) -> list[Column]:
    """One name column per varying facet of the generate conditions; the slug when
    the results carry no facets."""
    facets = results.cell_facets
    if not facets:
        slugs = results.slugs
        return [
            Column("solver", lambda row: slugs[field(row, "gen_condition_id")], "name")
        ]
    shown = next(iter(facets.values())).keys()
    return [
        Column(HEADERS[facet], level_of(facets, facet), kind="name") for facet in shown
    ]


def level_of(facets: dict[str, dict[str, str]], facet: str) -> Callable[[Row], str]:
    return lambda row: facets.get(field(row, "gen_condition_id"), {}).get(facet, "")


def per_grade(
    console: Console,
    results: ResultsReport,
    rows: Sequence[Row],
    title: Callable[[str, list[Row]], str],
    columns: Sequence[Column],
    named: bool = True,
) -> None:
    """`rows` as one table per grade condition (in the order they come), titled by
    `title(grade condition slug, its rows)`, its rows named by facet columns when
    `named`."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(field(row, "grade_condition_id"), []).append(row)
    for grade_id, group in groups.items():
        slug = results.slugs.get(grade_id, grade_id) or "every grade condition"
        shown = [*facet_columns(results), *columns] if named else list(columns)
        # the title on a line of its own: as the table's title it wraps at the
        # table's width, which is often narrower than the terminal
        console.print(Text(title(slug, group), style="italic"))
        console.print(fitted(console, None, shown, group))


def ci_names(rows: Sequence[Row]) -> str:
    """The interval methods the rows used ("Wilson, bounded Wilson")."""
    methods = dict.fromkeys(
        CI_NAMES.get(m, m) for r in rows if (m := field(r, "ci_method"))
    )
    return ", ".join(methods) or "-"


def cell_tables(
    console: Console, results: ResultsReport, numbers: Sequence[Column]
) -> None:
    """The grid's cells: a table per grade condition."""

    reducer = "" if results.reducer == "mean" else f" ({results.reducer})"

    def title(slug: str, rows: list[Row]) -> str:
        return f"{slug}: mean per item{reducer}, 95% CI ({ci_names(rows)})"

    counts = [("pend", "pending"), ("err", "errors"), ("pfail", "parse_failures")]
    zero = {key for _, key in counts if not any(field(c, key) for c in results.cells)}
    per_grade(
        console,
        results,
        results.cells,
        title,
        [
            *numbers,
            *(
                # a count that is 0 everywhere gives way first when space is short
                Column(header, count(key), min_width=len(header), optional=rank)
                if key in zero
                else Column(header, count(key), min_width=len(header))
                for rank, (header, key) in enumerate(counts, start=1)
            ),
        ],
    )


def p_text(value: Any) -> str:
    return "-" if value is None else f"{value:.4f}"


def num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def ci_text(row: Row) -> str:
    return (
        "-"
        if field(row, "ci_low") is None
        else f"{field(row, 'ci_low'):.3f}–{field(row, 'ci_high'):.3f}"
    )


def number_column(header: str, cell: Any, width: int) -> Column:
    """A results number: a fixed minimum width, so columns line up from table to
    table."""
    return Column(header, cell, min_width=width)


def named_column(slugs: dict[str, str], header: str, key: str) -> Column:
    """A column of condition slugs."""
    return Column(
        header, lambda row: slugs[field(row, key)] if field(row, key) else "", "name"
    )
