"""The tables of `results --judges` (a card per judge) and `results --variance` (the
G-study and the D-study's designs)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from .tables import Column, fitted, money


def figure(key: str) -> Any:
    """A figure with its interval: `0.81 [0.72, 0.88]`; `-` where undefined."""

    def cell(row: dict[str, Any]) -> str:
        value = row.get(key)
        if value is None:
            return "-"
        low, high = row.get(f"{key}_ci_low"), row.get(f"{key}_ci_high")
        if low is None or high is None:
            return f"{value:.2f}"
        return f"{value:.2f} [{low:.2f}, {high:.2f}]"

    return cell


def preference(row: dict[str, Any]) -> str:
    found = row.get("self_preference")
    if not found:
        return "-"
    return (
        f"{found['estimate']:+.2f} [{found['ci_low']:+.2f}, {found['ci_high']:+.2f}]"
        f" p={found['p_holm']:.3f}"
    )


def render_judges(rows: list[dict[str, Any]], console: Console) -> None:
    """A card per judge: test-retest, flips, agreement with people, self-preference."""
    if not rows:
        console.print("No judge grade condition to report reliability for.")
        return
    pointwise = [r for r in rows if r.get("kind") != "pairwise"]
    pairwise = [r for r in rows if r.get("kind") == "pairwise"]
    if pointwise:
        _pointwise(pointwise, console)
    if pairwise:
        columns = [
            Column("pairwise judge", lambda r: r["slug"], kind="name"),
            Column("swapped", lambda r: f"{r['both_orders']:,}"),
            Column("position flips", figure("position_flip_rate")),
        ]
        console.print(fitted(console, "Pairwise judges", columns, pairwise))


def _pointwise(rows: list[dict[str, Any]], console: Console) -> None:
    columns = [
        Column("judge", lambda r: r["slug"], kind="name"),
        Column("answers", lambda r: f"{r['n']:,}"),
        Column("draws", lambda r: str(r["draws"])),
        Column("ICC(2,1)", figure("icc")),
        Column("kappa", figure("kappa")),
        Column("flips", figure("flip_rate")),
        Column("kappa vs people", figure("kappa_human"), optional=2),
        Column("leniency", figure("leniency"), optional=1),
        Column("self-preference", preference, optional=3),
    ]
    console.print(fitted(console, "Judge reliability", columns, rows))


def render_variance(table: dict[str, Any], console: Console) -> None:
    """The G-study's shares, the G coefficient and the cheapest designs."""
    if not table.get("rows"):
        console.print(table.get("note", "No G-study: fewer than two facets vary."))
        return
    columns = [
        Column("component", lambda r: r["component"], kind="name"),
        Column("variance", lambda r: f"{r['variance']:.4f}"),
        Column("share", figure("share")),
    ]
    rows = [
        r | {"share_ci_low": r["ci_low"], "share_ci_high": r["ci_high"]}
        for r in table["rows"]
    ]
    console.print(fitted(console, "Variance components", columns, rows))
    g = table["g_coefficient"]
    console.print(
        f"G coefficient of the model ranking: {'-' if g is None else f'{g:.2f}'}"
    )
    cheapest = [d for d in table["designs"] if d["cheapest"]]
    if cheapest:
        d = cheapest[0]
        console.print(
            f"Cheapest design reaching G >= 0.8: {d['items']} items, {d['prompts']} "
            f"prompts, {d['replications']} replications, {d['draws']} draws, "
            f"{d['judges']} judges (G {d['g']:.2f}, {d['calls']:,} calls, "
            f"{money(d['usd'])})"
        )
    else:
        console.print("No design tried reaches G >= 0.8.")
