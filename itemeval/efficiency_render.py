"""Text rendering of `plan`, `generate --until-decided` and `results --items` (the
JSON forms are their `as_dict()`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from .pricing import format_usd


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def render_plan(data: dict[str, Any], console: Console) -> None:
    slugs = data["slugs"]
    design = data["design"]
    console.print(
        f"plan: detect {data['detect']:+g} between "
        f"{slugs.get(data['a'], data['a'])} and {slugs.get(data['b'], data['b'])} "
        "(scores of "
        f"{slugs.get(data['grade_condition_id'])}), power {data['power']:g}, "
        f"alpha {data['alpha']:g}"
    )
    console.print(
        f"from {design['items']} items: sd of an item's difference "
        f"{_num(design['difference_sd'])}, correlation {_num(design['correlation'])}, "
        f"within-item variance {_num(design['a']['within'])} / "
        f"{_num(design['b']['within'])}"
    )
    table = Table(box=None)
    for column in ("items", "replications", "power", "usd", "method", ""):
        table.add_column(column, justify="right" if column != "method" else "left")
    best = data["recommended"]
    for option in data["options"]:
        marks = ["recommended"] if option == best else []
        marks += [] if option["feasible"] else ["more items than the study has"]
        table.add_row(
            f"{option['items']:,}",
            str(option["replications"]),
            _num(option["power"]),
            format_usd(option["usd"]),
            option["method"],
            ", ".join(marks),
        )
    console.print(table)
    for method, text in data["methods"].items():
        console.print(f"{method}: {text}")
    for note in data["notes"]:
        console.print(f"note: {note}")


def render_sequential(data: dict[str, Any], console: Console) -> None:
    for look in data["rounds"]:
        console.print(
            f"after {look['items']:>5} items: difference {_num(look['mean'])}, "
            f"confidence sequence [{_num(look['low'])}, {_num(look['high'])}] "
            f"-> {look['decision']}"
        )
    console.print(
        f"decision: {data['decision']} after {data['items_run']} of "
        f"{data['items_cap']} items ({data['items_saved']} not run); sequence "
        f"[{_num(data['cs_low'])}, {_num(data['cs_high'])}], fixed-n 95% CI on the "
        f"same items [{_num(data['fixed_low'])}, {_num(data['fixed_high'])}]; "
        f"spend {format_usd(data['usd'])}; outcome {data['outcome']}"
    )
    console.print(f"manifest: {data['manifest']}")


def render_sequential_compare(rows: list[dict[str, Any]], console: Console) -> None:
    for row in rows:
        console.print(
            f"sequential run {row['run_id']}: {row['decision']} after "
            f"{row['items_run']} of {row['items_cap']} items ({row['items_saved']} "
            f"saved); sequence [{_num(row['cs_low'])}, {_num(row['cs_high'])}] beside "
            f"fixed-n [{_num(row['fixed_low'])}, {_num(row['fixed_high'])}] "
            f"(on all {row.get('fixed_items', '?')} items now stored: "
            f"[{_num(row.get('all_low'))}, {_num(row.get('all_high'))}])"
        )


def render_items(
    rows: list[dict[str, Any]], console: Console, slugs: dict[str, str]
) -> None:
    table = Table(title="items", box=None)
    for column in ("grade", "item", "difficulty", "discr.", "irt a", "irt b", "flags"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            slugs.get(row["grade_condition_id"], row["grade_condition_id"]),
            row["item_id"],
            _num(row["difficulty"], 2),
            _num(row["discrimination"], 2),
            _num(row["irt_a"], 2),
            _num(row["irt_b"], 2),
            ", ".join(row["flags"]),
        )
    console.print(table)
    flagged = sum(bool(row["flags"]) for row in rows)
    console.print(f"{flagged} of {len(rows)} item rows flagged")
