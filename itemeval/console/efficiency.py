"""Text rendering of `plan`, `generate --until-decided` and `results --items` (the
JSON forms are their `as_dict()`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from ..plan.pricing import format_usd
from .race import render_race_brief
from .tables import Column, fitted


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
    available = data.get("available_items")
    over = f"over the study's {available} items" if available else "too few items"
    best = data["recommended"]

    def marks(option: dict[str, Any]) -> str:
        said = ["recommended"] if option == best else []
        return ", ".join(said + ([] if option["feasible"] else [over]))

    columns = [
        Column("items", lambda o: f"{o['items']:,}"),
        Column("reps", lambda o: str(o["replications"])),
        Column("power", lambda o: _num(o["power"])),
        Column("usd", lambda o: format_usd(o["usd"])),
        Column("method", lambda o: o["method"], kind="text"),
        Column("", marks, kind="text"),
    ]
    console.print(fitted(console, None, columns, data["options"]))
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
        f"{data['items_cap']} items ({data['items_saved']} saved); sequence "
        f"[{_num(data['cs_low'])}, {_num(data['cs_high'])}], fixed-n 95% CI on the "
        f"same items [{_num(data['fixed_low'])}, {_num(data['fixed_high'])}]; "
        f"spend {format_usd(data['usd'])}; outcome {data['outcome']}"
    )
    console.print(f"manifest: {data['manifest']}")


def render_beside_results(data: dict[str, Any], console: Console) -> None:
    """Under `results`: a sequential comparison's lines and the last race's."""
    if data.get("sequential"):
        render_sequential_compare(data["sequential"], console)
    if data.get("race"):
        render_race_brief(data["race"], console)


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


def _item_columns(group: list[dict[str, Any]]) -> list[Column]:
    # the JSON's `difficulty` is classical test theory's p: the mean score of the
    # item over the conditions, higher is easier; a pass rate only on a 0-1 scale
    values = [row["difficulty"] for row in group if row.get("difficulty") is not None]
    share = all(0 <= value <= 1 for value in values)
    return [
        Column("item", lambda row: row["item_id"], kind="name"),
        *(
            Column(header, lambda row, key=key: _num(row[key], 2), min_width=5)
            for header, key in (
                ("pass rate" if share else "mean", "difficulty"),
                ("discr.", "discrimination"),
                ("irt a", "irt_a"),
                ("irt b", "irt_b"),
            )
        ),
        Column("flags", lambda row: ", ".join(row["flags"]), kind="text"),
    ]


def render_items(
    rows: list[dict[str, Any]], console: Console, slugs: dict[str, str]
) -> None:
    """A table per grade condition, designed for 80 columns like the results tables:
    an item id too long for its column is cut in its middle, flags are never cut."""
    from rich.text import Text

    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["grade_condition_id"], []).append(row)
    for grade_id, group in groups.items():
        console.print(Text(f"{slugs.get(grade_id, grade_id)}: items", style="italic"))
        console.print(fitted(console, None, _item_columns(group), group))
    flagged = sum(bool(row["flags"]) for row in rows)
    console.print(f"{flagged} of {len(rows)} item rows flagged")
