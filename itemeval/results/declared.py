"""Which figures of `results` the study declared before its data (confirmatory) and
which it did not (exploratory): the preregistration in force (study/preregistration.py)
read against the figures computed, the options asked and the config as it is now."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from ..errors import ConfigError
from ..hashing import canonical_json as json_key
from ..result_values import ResultsReport
from ..study.grid import pick_condition
from ..study.load import Study
from ..study.preregistration import (
    Declaration,
    declarations,
    declared_analysis,
    differences,
)
from .facet_compare import level_pairs, levels_of
from .options import ResultsOptions

AMEND = 'itemeval preregister CONFIG --amend --reason "..."'


def preregistration(study: Study, options: ResultsOptions) -> dict[str, Any] | None:
    """The block `results --json` shows as `preregistration` (None without one): the
    files, the analysis in force with each pair's origin, where the config or this
    run's options depart from it (`drift`, `options`)."""
    files = declarations(study)
    if not files:
        return None
    latest = files[-1]
    plan = latest.analysis
    now = declared_analysis(study)
    return {
        "in_force": latest.path.name,
        "sha256": latest.body["sha256"],
        "files": [_file(f) for f in files],
        "analysis": plan,
        "pairs": _pairs(study, files),
        "graders": _graders(study, plan["graders"]),
        "drift": differences(
            {k: latest.body[k] for k in ("analysis", "items", "conditions")}, now
        ),
        "options": _departures(plan, options),
    }


def _file(declaration: Declaration) -> dict[str, Any]:
    body = declaration.body
    keys = ("kind", "created_at", "after_data", "reason", "changes", "sha256")
    return {"file": declaration.path.name, **{k: body[k] for k in keys}}


def _rules(declaration: Declaration) -> tuple:
    """What decides a declared pair besides the pair itself: every field of the
    analysis but the pairs and the note, and the item set."""
    plan = declaration.analysis
    kept = {k: v for k, v in plan.items() if k not in ("compare", "note")}
    return json_key(kept), declaration.body["items"]["hash"]


def _pairs(study: Study, files: list[Declaration]) -> list[dict[str, Any]]:
    """The pairs in force, resolved to ids (or levels), each with the file since
    which it has been declared, and decided, unchanged (an alpha or an interval
    changed after the data makes the pair's decision one made after the data too),
    and whether that file came after the data."""
    plan = files[-1].analysis
    rows = []
    for pair in plan["compare"]:
        since = files[-1]
        for earlier in reversed(files):
            compare = earlier.analysis["compare"]
            same = _rules(earlier) == _rules(files[-1])
            if same and (pair in compare or pair[::-1] in compare):
                since = earlier
                continue
            break
        a, b = _resolve(study, pair, plan["by"])
        rows.append(
            {
                "a": a,
                "b": b,
                "named": pair,
                "facet": plan["by"],
                "since": since.path.name,
                "after_data": since.after_data,
            }
        )
    return rows


def _resolve(study: Study, pair: list[str], by: str | None) -> tuple[str, str]:
    """A declared pair as `results` names its rows; a name that no longer resolves
    stays as written (it matches no row, and `drift` says why)."""
    try:
        if by is None:
            a, b = (pick_condition(study.generate, s, "analysis.compare") for s in pair)
            return a, b
        levels = sorted(set(levels_of(study.generate, by).values()))
        return level_pairs(levels, tuple(pair), by)[0]
    except ConfigError:
        return pair[0], pair[1]


def _graders(study: Study, names: list[str]) -> list[str]:
    return [c.id for c in study.grade if c.slug in names or c.id in names]


def _departures(plan: dict[str, Any], options: ResultsOptions) -> list[str]:
    """This run's options that differ from the declared ones: figures made another
    way are not the declared figures."""
    asked = {"reducer": options.reducer, "draws": options.draws, "interval": options.ci}
    flag = {"reducer": "--reducer", "draws": "--draws", "interval": "--ci"}
    return [
        f"{flag[key]} {value} (declared: {plan[key]})"
        for key, value in asked.items()
        if value != plan[key]
    ]


def declared_pairs(block: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The pairs `results` compares when it is given no --compare: the declared
    family (Holm over it)."""
    return [(p["a"], p["b"]) for p in block["pairs"]] if block else []


def flags(
    block: dict[str, Any] | None, rows: dict[str, tuple], *, asked_compare: bool
) -> dict[str, tuple[bool, ...]]:
    """Per row of each figure (`rows`: the report's row tuples by field): whether
    it is a declared figure, made as declared. Nothing is declared when this run's
    options depart from the declaration; a comparison only in the declared family
    (`results` without --compare)."""
    if block is None or block["options"]:
        return {name: (False,) * len(found) for name, found in rows.items()}
    plan = block["analysis"]
    pairs = {frozenset((p["a"], p["b"])) for p in block["pairs"]}
    graders = set(block["graders"])

    def graded(row: Any) -> bool:
        return not plan["graders"] or row.grade_condition_id in graders

    def compared(row: Any) -> bool:
        return (
            not asked_compare
            and frozenset((row.a, row.b)) in pairs
            and row.facet == plan["by"]
            and graded(row)
        )

    def metric(row: Any) -> bool:
        if row.metric not in plan["metrics"] or not graded(row):
            return False
        if row.a is not None:
            return compared(row)
        return row.gen_condition_id is not None and row.facet is None

    rule = {
        "cells": lambda row: "mean" in plan["metrics"] and graded(row),
        "comparisons": lambda row: "mean" in plan["metrics"] and compared(row),
        "metrics": metric,
    }
    return {
        name: tuple(bool(rule[name](r)) if name in rule else False for r in found)
        for name, found in rows.items()
    }


def mark(
    report: ResultsReport, block: dict[str, Any] | None, *, asked_compare: bool
) -> ResultsReport:
    """The report with its preregistration, each row's mark and the notes."""
    if block is None:
        return report
    rows = {
        f.name: getattr(report, f.name)
        for f in fields(report)
        if isinstance(getattr(report, f.name), tuple) and f.name != "notes"
    }
    return replace(
        report,
        preregistration=block,
        declared=flags(block, rows, asked_compare=asked_compare),
        notes=(*report.notes, *notes(block)),
    )


def exploratory(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with `declared: false` on every row not marked yet (the sections
    beside the report: judges, variance, sequential runs, the item analysis), so
    every row of `results --json` carries it; a section's dict of rows included."""
    for name, value in data.items():
        if name == "preregistration":  # its pairs and files are not figures
            continue
        sections = value.values() if isinstance(value, dict) else [value]
        for rows in sections:
            for row in rows if isinstance(rows, list) else ():
                if isinstance(row, dict):
                    row.setdefault("declared", False)
    return data


def notes(block: dict[str, Any] | None) -> list[str]:
    """What a reader must know: the config departs from the declaration (amend it),
    this run's options do, and a pair declared only after the data."""
    if block is None:
        return []
    out = []
    if block["drift"]:
        out.append(
            f"preregistration: the config's analysis differs from {block['in_force']} "
            f"(the declaration in force): {'; '.join(block['drift'])}. The figures are "
            f"marked by the declaration; to change the plan, amend it: {AMEND}"
        )
    if block["options"]:
        out.append(
            "preregistration: this run departs from the declared analysis ("
            + "; ".join(block["options"])
            + "): every figure here is exploratory"
        )
    late = [" vs ".join(p["named"]) for p in block["pairs"] if p["after_data"]]
    if late:
        out.append(
            "preregistration: declared only after the data arrived (an amendment): "
            + ", ".join(late)
        )
    return out
