"""Tables designed for 80 columns: names cut in the middle to fit, compact numbers,
extra columns where there is room.

The console renders every table through `fitted`; rich lays the columns out, and a name
cell (a condition slug, a facet level) shortens itself to whatever width rich gives its
column, so a wider terminal shows more of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

Row = Any
"""A mapping, or a typed row (result_values): `field` reads either."""


def money(value: float | None) -> str:
    """Dollars in at most 8 characters, so no column cuts them: $0, <$0.0001,
    $0.0720, $1.23, $12.3, $1,234."""
    if value is None:
        return "unknown"
    if value == 0:
        return "$0"
    if value < 0.0001:
        return "<$0.0001"
    if value < 1:
        return f"${value:.4f}"
    if value < 10:
        return f"${value:.2f}"
    if value < 100:
        return f"${value:.1f}"
    return f"${value:,.0f}"


def tokens(count: int) -> str:
    """A token count in at most 5 characters (2,138, 24.6k, 260k, 1.2M): they are
    estimates, three digits are plenty."""
    if count < 10_000:
        return f"{count:,}"
    value = float(count)
    for unit in ("k", "M", "B"):
        value /= 1000
        if value < 999.5 or unit == "B":
            break
    return f"{value:.3g}{unit}"


def cut(name: str, width: int, head: int | None = None) -> str:
    """`name` in `width` characters: its first `head` (default: half), an ellipsis,
    and its end."""
    if len(name) <= width:
        return name
    if width < 3:
        return name[:width]
    head = min(max(width // 2 if head is None else head, 1), width - 2)
    return name[:head] + "…" + name[len(name) - (width - 1 - head) :]


def distinct_head(names: Iterable[str], width: int) -> int:
    """Where to cut names that are too long for `width`: the middle, or the split
    nearest to it that keeps the most names apart ("arith-good_concise_default" and
    "arith-good_builtin-standard_default" both end "…_default")."""
    long = sorted({name for name in names if len(name) > width})
    middle = width // 2
    if len(long) < 2 or width < 4:
        return middle
    return min(
        range(1, width - 1),
        key=lambda head: (
            -len({cut(name, width, head) for name in long}),
            abs(head - middle),
            -head,
        ),
    )


class Names:
    """The name cells of one column: each is cut from the middle to the column's
    width, all at the same split."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self._heads: dict[int, int] = {}

    def cell(self, name: str) -> NameCell:
        self.names.add(name)
        self._heads.clear()
        return NameCell(name, self)

    def fit(self, name: str, width: int) -> str:
        if len(name) <= width:
            return name
        if width not in self._heads:
            self._heads[width] = distinct_head(self.names, width)
        return cut(name, width, self._heads[width])


@dataclass(frozen=True)
class NameCell:
    """A rich renderable: wide as its name when there is room, cut from the middle
    when rich narrows its column."""

    name: str
    column: Names

    def __rich_measure__(
        self, console: Console, options: ConsoleOptions
    ) -> Measurement:
        return Measurement(min(cell_len(self.name), 8), cell_len(self.name))

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> RenderResult:
        yield Text(
            self.column.fit(self.name, options.max_width),
            no_wrap=True,
            overflow="ellipsis",
        )


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[Row], str]
    kind: str = "number"
    """number: right-aligned, never cut; name: cut from the middle when the table is
    too wide; text: left, never cut."""
    optional: int = 0
    """0: always shown; otherwise shown only when the table fits the console with it,
    the highest dropped first."""
    min_width: int | None = None


def count(key: str) -> Callable[[Row], str]:
    return lambda row: f"{field(row, key):,}"


def field(row: Any, key: str) -> Any:
    """A row's `key`: a mapping's item or a typed row's attribute (result_values)."""
    return row[key] if isinstance(row, Mapping) else getattr(row, key)


def fitted(
    console: Console,
    title: str | None,
    columns: Sequence[Column],
    rows: Sequence[Row],
) -> Table:
    """The table with every optional column that lets it fit the console at full
    width; names are cut to fit."""
    shown = list(columns)
    while True:
        table = build(title, shown, rows)
        optional = [column for column in shown if column.optional]
        if not optional or fits(console, table):
            return table
        shown.remove(max(optional, key=lambda column: column.optional))


def fits(console: Console, table: Table) -> bool:
    """Whether the table fits the console without cutting anything."""
    return (
        console.measure(table, options=console.options.update_width(10_000)).maximum
        <= console.width
    )


def build(title: str | None, columns: Sequence[Column], rows: Sequence[Row]) -> Table:
    """No vertical rules, no edges, two spaces between columns: every character goes
    to the cells."""
    table = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        padding=(0, 1),
        collapse_padding=True,
        pad_edge=False,
    )
    for column in columns:
        # rich narrows only the columns that may wrap: the name columns, which cut
        # themselves instead of wrapping
        table.add_column(
            column.header,
            justify="right" if column.kind == "number" else "left",
            no_wrap=column.kind != "name",
            min_width=column.min_width,
        )
    names = [Names() if column.kind == "name" else None for column in columns]
    for row in rows:
        table.add_row(
            *(
                Text(column.cell(row)) if each is None else each.cell(column.cell(row))
                for column, each in zip(columns, names)
            )
        )
    return table
