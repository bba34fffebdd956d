"""Text rendering of `generate --race` and of the race beside `results` (the JSON form
is the race's `as_dict()`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from ..plan.pricing import format_usd


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def _names(ids: list[str], slugs: dict[str, str]) -> str:
    return ", ".join(slugs.get(c, c) for c in ids) or "-"


def elimination_lines(data: dict[str, Any]) -> list[str]:
    """One line per condition that left (or, ranking, was placed): when, and the
    pair that showed it worse (its best evidence)."""
    slugs = data["slugs"]
    lines = []
    for gone in data["eliminations"]:
        evidence = _proof(gone, slugs)
        how = "left" if gone.get("rank") is None else f"placed {gone['rank']}"
        lines.append(
            f"  {slugs.get(gone['condition'], gone['condition'])} {how} after round "
            f"{gone['round']} ({gone['items']} items): {evidence}"
        )
    return lines


def _proof(gone: dict[str, Any], slugs: dict[str, str]) -> str:
    """The closest call that put a condition out (or placed it): one pair's sequence."""
    pairs = gone["beaten_by"] or gone.get("beats") or []
    if not pairs:
        return "-"
    pair = pairs[0]
    a, b = (slugs.get(pair[k], pair[k]) for k in ("a", "b"))
    return (
        f"{a} - {b} in [{_num(pair['low'])}, {_num(pair['high'])}] over "
        f"{pair['items']} items"
    )


def summary_line(data: dict[str, Any]) -> str:
    """The race's end in one line: who won (or who is still in), why it stopped, and
    the calls and spend against the full grid."""
    slugs = data["slugs"]
    if data["decision"] != "decided":
        who = f"undecided, still in: {_names(data['alive'], slugs)}"
    elif data["top"] == "all":
        who = "ranking: " + " > ".join(slugs.get(c, c) for c in data["ranking"])
    else:
        who = f"top {data['top']}: {_names(data['winners'], slugs)}"
    share = data["share_of_full_grid"]
    used = "-" if share is None else f"{share:.0%}"
    return (
        f"race {data['run_id']}: {who}; stopped: {data['stopped']}; "
        f"{data['calls']:,} of {data['calls_full']:,} full-grid calls ({used}, "
        f"{data['calls_saved']:,} saved); its cells {format_usd(data['usd_cells'])} "
        f"(this run {format_usd(data['usd'])}), the full grid "
        f"{format_usd(data['usd_full'])}"
    )


def render_race(data: dict[str, Any], console: Console) -> None:
    """The race's end (each round was told as it ended)."""
    for line in elimination_lines(data):
        console.print(line)
    console.print(summary_line(data))
    console.print(f"manifest: {data['manifest']}")


def render_race_brief(data: dict[str, Any], console: Console) -> None:
    """Beside `results`: the last race's end and who left when."""
    console.print(summary_line(data))
    for line in elimination_lines(data):
        console.print(line)
