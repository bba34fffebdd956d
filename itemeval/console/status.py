"""`itemeval status` on the console: the grid's conditions with what is done and
spent, or the same as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console

from ..plan.pricing import format_usd as _usd
from ..plan.pricing import total_usd
from .condition_tables import CONDITION, SPEND, print_table
from .tables import Column, count

# the status module pulls in pandas, which `itemeval --help` must not wait for
if TYPE_CHECKING:
    from ..results.status import GenerateRow, GradeRow, StatusReport


def status_dict(report: StatusReport) -> dict[str, Any]:
    study = report.study
    return {
        "study": study.config.study,
        "study_dir": str(study.paths.root),
        "items": len(study.items),
        "replications": study.replications,
        "datasets": [vars(d) for d in study.datasets],
        "generate": [_generate_row(row) for row in report.generate],
        "grade": [_grade_row(row) for row in report.grade],
        "spend_usd": {
            "generate": total_usd(row.usd for row in report.generate),
            "grade": total_usd(row.usd for row in report.grade),
        },
        "journal_rows_pending": report.journal_rows,
        "running": report.running,
        "notes": list(report.notes),
        "warnings": list(study.warnings),
    }


_GENERATE_COUNTS = (
    "cells",
    "done",
    "errors",
    "empty",
    "truncated",
    "changed",
    "missing",
    "usd",
)
_GRADE_COUNTS = (
    "solutions",
    "done",
    "parse_failed",
    "stale",
    "errors",
    "pending",
    "usd",
)


def _generate_row(row: GenerateRow) -> dict[str, Any]:
    condition = row.condition
    return {
        "condition_id": condition.id,
        "slug": condition.slug,
        "model": condition.model,
        "prompt": condition.prompt.ref,
        "prompt_hash": condition.prompt.hash,
        "model_config": condition.model_config_name,
        "params": condition.params,
        **{k: getattr(row, k) for k in _GENERATE_COUNTS},
    }


def _grade_row(row: GradeRow) -> dict[str, Any]:
    condition = row.condition
    return {
        "condition_id": condition.id,
        "slug": condition.slug,
        "kind": condition.kind,
        "grader": condition.grader_name,
        "grader_model": condition.grader_model,
        "rubric": condition.rubric.ref if condition.rubric else None,
        "scorer": condition.scorer,
        # `solutions` and the states count grades: each answer once per draw
        "draws": condition.draws,
        **{k: getattr(row, k) for k in _GRADE_COUNTS},
    }


def render_status(report: StatusReport, console: Console, *, ids: bool = False) -> None:
    data = status_dict(report)
    if report.running:
        holder = report.running
        console.print(
            f"running now: `{holder.get('command')}` (pid {holder.get('pid')} "
            f"on {holder.get('host')}, "
            f"since {holder.get('started_at')}); its finished rows reach the "
            "stores when it ends",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    for note in report.notes:
        console.print(note, markup=False, highlight=False)
    console.print(
        f"[bold]{data['study']}[/bold]  {data['study_dir']}  items: {data['items']}  "
        f"replications: {data['replications']}"
    )
    print_table(
        console, "generate conditions", _GENERATE_STATUS, data["generate"], ids=ids
    )
    print_table(console, "grade conditions", _GRADE_STATUS, data["grade"], ids=ids)
    spend = data["spend_usd"]
    console.print(
        f"spend so far: generate {_usd(spend['generate'])}, grade "
        f"{_usd(spend['grade'])}"
    )
    if report.journal_rows:
        console.print(
            f"{report.journal_rows} finished rows are in the journal of a "
            "running command"
        )


_GENERATE_STATUS = (
    CONDITION,
    Column("model", lambda row: row["model"], kind="text", optional=1),
    Column("prompt", lambda row: row["prompt"], kind="text", optional=2),
    Column("config", lambda row: row["model_config"], kind="text", optional=3),
    Column("cells", count("cells")),
    Column("done", count("done")),
    Column("err", count("errors")),
    Column("empty", count("empty")),
    Column("trunc", count("truncated")),
    SPEND,
)
_GRADE_STATUS = (
    CONDITION,
    Column("model", lambda row: row["grader_model"] or "-", kind="text", optional=1),
    Column("rubric", lambda row: row["rubric"] or "-", kind="text", optional=2),
    Column("solutions", count("solutions")),
    Column("done", count("done")),
    Column("pfail", count("parse_failed")),
    Column("stale", count("stale")),
    Column("err", count("errors")),
    Column("pend", count("pending")),
    SPEND,
)
