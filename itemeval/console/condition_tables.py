"""Tables of conditions on the console: named by slug, or by id when the ids fit."""

from __future__ import annotations

from typing import Sequence

from rich.console import Console

from .tables import Column, Row, fits, fitted, money

CONDITION = Column("condition", lambda row: row["slug"], kind="name")
CONDITION_ID = Column("condition id", lambda row: row["condition_id"], kind="text")
SPEND = Column("spend", lambda row: money(row["usd"]))


def print_table(
    console: Console,
    title: str,
    columns: Sequence[Column],
    rows: Sequence[Row],
    *,
    ids: bool = False,
) -> None:
    """A table of conditions by slug; with `ids`, by id when the whole ids fit, else
    with the ids listed below it."""
    if ids:
        table = fitted(
            console,
            title,
            [CONDITION_ID if column is CONDITION else column for column in columns],
            rows,
        )
        if fits(console, table):
            console.print(table)
            return
    console.print(fitted(console, title, columns, rows))
    if ids and rows:
        console.print("condition ids:", highlight=False)
        for row in rows:
            console.print(
                f"  {row['condition_id']}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
