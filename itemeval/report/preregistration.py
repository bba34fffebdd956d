"""The report's preregistration section: the declared analysis in force, its
declared figures marked confirmatory (or declared only after the data), the
amendments, and where the config has drifted from it."""

from __future__ import annotations

from ..result_values import ResultsReport
from ..results.compute import study_results
from ..results.options import ResultsOptions
from ..study.load import Study
from .html import esc, html_table, num


def preregistration_section(study: Study, results: ResultsReport) -> str | None:
    """None for a study with nothing declared. The declared comparisons are the
    declared family's (Holm over the declared pairs), not the report's all-pairs
    ones."""
    block = results.preregistration
    if block is None:
        return None
    declared = (
        study_results(study, ResultsOptions(metric_differences=False))
        if block["pairs"]
        else results
    )
    late = {frozenset((p["a"], p["b"])): p["after_data"] for p in block["pairs"]}
    slugs = declared.slugs
    marks = declared.declared.get("comparisons", ())
    rows = [
        [
            _mark(mark, late.get(frozenset((r.a, r.b)), False)),
            slugs.get(r.a, r.a),
            slugs.get(r.b, r.b),
            slugs.get(r.grade_condition_id, r.grade_condition_id),
            r.n,
            num(r.diff),
            f"[{num(r.ci_low)}, {num(r.ci_high)}]",
            num(r.p),
            num(r.p_adjusted),
        ]
        for r, mark in zip(declared.comparisons, marks)
    ]
    plan = block["analysis"]
    parts = [
        "<h2>Declared analysis</h2>",
        f"<p>In force: <code>{esc(block['in_force'])}</code> (sha256 "
        f"<code>{esc(block['sha256'])}</code>). Decided at α {plan['alpha']} "
        f"({esc(plan['correction'])}); interval {esc(plan['interval'])}, reducer "
        f"{esc(plan['reducer'])}, stopping {esc(plan['stopping'])}. Figures not "
        "marked confirmatory here are <strong>exploratory</strong>.</p>",
    ]
    if rows:
        headers = ["status", "A", "B", "grader", "n", "A − B", "95% CI", "p", "p adj"]
        parts.append(html_table(headers, rows, left=4))
    parts += [_amendments(block), *_warnings(block)]
    return "".join(parts)


def _mark(declared: bool, after_data: bool) -> str:
    if not declared:
        return "exploratory"
    return "declared after data" if after_data else "confirmatory"


def _amendments(block: dict) -> str:
    files = [f for f in block["files"] if f["kind"] == "amendment"]
    if not files:
        return "<p>No amendments.</p>"
    rows = [
        [
            f["created_at"],
            "after" if f["after_data"] else "before",
            f["reason"],
            "; ".join(f["changes"]),
        ]
        for f in files
    ]
    return "<h3>Amendments</h3>" + html_table(
        ["written", "data", "reason", "changed"], rows, left=4
    )


def _warnings(block: dict) -> list[str]:
    lines = []
    if block["drift"]:
        lines.append(
            "the config's analysis differs from the declaration in force: "
            + "; ".join(block["drift"])
            + " (amend it: itemeval preregister CONFIG --amend --reason ...)"
        )
    if block["options"]:
        lines.append("made otherwise than declared: " + "; ".join(block["options"]))
    return [f'<p class="warning">{esc(line)}</p>' for line in lines]
