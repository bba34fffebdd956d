"""The terminal's view of a preregistration: the file written by `itemeval
preregister`, and in `results` the declared figures (confirmatory, or declared only
after the data) with the amendments; every other figure is exploratory."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from ..result_values import ResultsReport


def render_declaration(body: dict[str, Any], path: str, console: Console) -> None:
    """What `itemeval preregister` wrote."""
    kind = body["kind"]
    console.print(f"{kind} written: {path}")
    console.print(f"sha256 {body['sha256']}")
    if body["after_data"]:
        console.print(Text("made after the data (solutions existed)", style="yellow"))
    if body.get("reason"):
        console.print(f"reason: {body['reason']}")
    for change in body.get("changes") or ():
        console.print(f"  changed {change}")
    plan = body["analysis"]
    pairs = ", ".join(" vs ".join(p) for p in plan["compare"]) or "none"
    console.print(
        f"declared: pairs {pairs}; metrics {', '.join(plan['metrics'])}; "
        f"alpha {plan['alpha']} ({plan['correction']}); interval {plan['interval']}; "
        f"reducer {plan['reducer']}; stopping {plan['stopping']}; "
        f"{body['items']['count']} items ({body['items']['hash'][:12]})"
    )


def status(declared: bool, after_data: bool) -> str:
    """A figure's mark: confirmatory, declared after data, or exploratory."""
    if not declared:
        return "exploratory"
    return "declared after data" if after_data else "confirmatory"


def render_declared(results: ResultsReport, console: Console) -> None:
    """The declared comparisons as computed, each marked; the amendments."""
    block = results.preregistration
    if block is None:
        return
    amendments = [f for f in block["files"] if f["kind"] == "amendment"]
    console.print(
        Text(
            f"declared analysis: {block['in_force']} (sha256 {block['sha256'][:12]}; "
            f"{len(amendments)} amendment(s))",
            style="bold",
        )
    )
    late = {frozenset((p["a"], p["b"])): p["after_data"] for p in block["pairs"]}
    marks = results.declared.get("comparisons", ())
    slugs = results.slugs
    for row, mark in zip(results.comparisons, marks):
        after = late.get(frozenset((row.a, row.b)), False)
        console.print(
            f"  {status(mark, after)}: {slugs.get(row.a, row.a)} − "
            f"{slugs.get(row.b, row.b)} under "
            f"{slugs.get(row.grade_condition_id, row.grade_condition_id)}: "
            f"{_num(row.diff)} [{_num(row.ci_low)}, {_num(row.ci_high)}], "
            f"p adj {_num(row.p_adjusted)}"
        )
    for file in amendments:
        after = " (after the data)" if file["after_data"] else ""
        console.print(f"  amendment {file['created_at']}{after}: {file['reason']}")
        for change in file["changes"]:
            console.print(f"    {change}")
    console.print("  every figure not marked here is exploratory (--json: declared)")


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"
