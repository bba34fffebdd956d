"""What the CLI shows: stage results, estimates and status as rich tables for people
or JSON for scripts."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any, Sequence

from rich.console import Console

from .outcomes import StageResult
from .pricing import format_usd as _usd
from .pricing import total_usd
from .tables import Column, Row, count, fits, fitted, money, tokens

# the status and cost modules pull in pandas, which `itemeval --help` must not wait for
if TYPE_CHECKING:
    from .cost import Estimate
    from .status import StatusReport

PIPED = 80
"""Width for output that is not a terminal (logs, CI, pipes) when neither COLUMNS
nor a terminal on stderr says otherwise: what a person reading it later most likely
has."""


def stderr() -> Console:
    return _sized(Console(stderr=True))


def stdout() -> Console:
    return _sized(Console())


def _sized(console: Console) -> Console:
    if not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        console.width = piped_width()
    return console


def piped_width() -> int:
    """`itemeval status | less`: stderr is still the terminal, whose width fits less."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or PIPED
    except (
        OSError,
        ValueError,
        AttributeError,
    ):  # no terminal, or stderr is not a real file
        return PIPED


def warn(warnings: list[str]) -> None:
    console = stderr()
    for warning in warnings:
        console.print(
            f"warning: {warning}",
            style="yellow",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def tell(message: str) -> None:
    """One line of progress or advice for the person at the terminal, on stderr,
    wrapped at the terminal's width."""
    stderr().print(message, markup=False, highlight=False)


def error(message: str) -> None:
    stderr().print(
        f"error: {message}", style="red", highlight=False, markup=False, soft_wrap=True
    )


def print_json(data: Any) -> None:
    """The one JSON document of a `--json` command, on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")


def status_dict(report: StatusReport) -> dict[str, Any]:
    study = report.study
    return {
        "study": study.config.study,
        "study_dir": str(study.paths.root),
        "items": len(study.items),
        "replications": study.replications,
        "datasets": [vars(d) for d in study.datasets],
        "generate": [
            {
                "condition_id": row.condition.id,
                "slug": row.condition.slug,
                "model": row.condition.model,
                "prompt": row.condition.prompt.ref,
                "prompt_hash": row.condition.prompt.hash,
                "model_config": row.condition.model_config_name,
                "params": row.condition.params,
                **{
                    k: getattr(row, k)
                    for k in (
                        "cells",
                        "done",
                        "errors",
                        "empty",
                        "truncated",
                        "missing",
                        "usd",
                    )
                },
            }
            for row in report.generate
        ],
        "grade": [
            {
                "condition_id": row.condition.id,
                "slug": row.condition.slug,
                "kind": row.condition.kind,
                "grader": row.condition.grader_name,
                "grader_model": row.condition.grader_model,
                "rubric": row.condition.rubric.ref if row.condition.rubric else None,
                "scorer": row.condition.scorer,
                **{
                    k: getattr(row, k)
                    for k in (
                        "solutions",
                        "done",
                        "parse_failed",
                        "stale",
                        "errors",
                        "pending",
                        "usd",
                    )
                },
            }
            for row in report.grade
        ],
        "spend_usd": {
            "generate": total_usd(row.usd for row in report.generate),
            "grade": total_usd(row.usd for row in report.grade),
        },
        "journal_rows_pending": report.journal_rows,
        "running": report.running,
        "notes": list(report.notes),
        "warnings": list(study.warnings),
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
    _print_table(
        console, "generate conditions", _GENERATE_STATUS, data["generate"], ids=ids
    )
    _print_table(console, "grade conditions", _GRADE_STATUS, data["grade"], ids=ids)
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


_CONDITION = Column("condition", lambda row: row["slug"], kind="name")
_CONDITION_ID = Column("condition id", lambda row: row["condition_id"], kind="text")
_SPEND = Column("spend", lambda row: money(row["usd"]))

_GENERATE_STATUS = (
    _CONDITION,
    Column("model", lambda row: row["model"], kind="text", optional=1),
    Column("prompt", lambda row: row["prompt"], kind="text", optional=2),
    Column("config", lambda row: row["model_config"], kind="text", optional=3),
    Column("cells", count("cells")),
    Column("done", count("done")),
    Column("err", count("errors")),
    Column("empty", count("empty")),
    Column("trunc", count("truncated")),
    _SPEND,
)
_GRADE_STATUS = (
    _CONDITION,
    Column("model", lambda row: row["grader_model"] or "-", kind="text", optional=1),
    Column("rubric", lambda row: row["rubric"] or "-", kind="text", optional=2),
    Column("solutions", count("solutions")),
    Column("done", count("done")),
    Column("pfail", count("parse_failed")),
    Column("stale", count("stale")),
    Column("err", count("errors")),
    Column("pend", count("pending")),
    _SPEND,
)


def _print_table(
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
            [_CONDITION_ID if column is _CONDITION else column for column in columns],
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


def stage_dict(result: StageResult) -> dict[str, Any]:
    conditions = [
        {k: v for k, v in vars(c).items() if k != "effective_configs"}
        for c in result.conditions
    ]
    totals = {
        key: sum(c[key] for c in conditions)
        for key in ("planned", "rows", "errors", "cache_hits", "parse_failures")
    }
    return {
        "stage": result.stage,
        "study": result.study,
        "outcome": result.outcome,
        "exit_code": result.exit_code,
        "run_id": result.run_id,
        "manifest": result.manifest,
        "recovered_rows": result.recovered,
        "conditions": conditions,
        "totals": {**totals, "usd": total_usd(c["usd"] for c in conditions)},
        "estimate": result.estimate,
        "notes": list(result.notes),
    }


def render_stage(result: StageResult, console: Console, *, ids: bool = False) -> None:
    data = stage_dict(result)
    for store, rows in data["recovered_rows"].items():
        console.print(
            f"recovered {rows} {store} rows from the journal of an interrupted run"
        )
    for note in data["notes"]:
        console.print(note, markup=False, highlight=False)
    totals = data["totals"]
    if totals["planned"] == 0 and data["outcome"] == "completed":
        console.print(
            f"{data['stage']}: nothing to do — every selected cell is already done"
        )
        return
    _print_stage_table(data, console, ids=ids)
    _print_frequent_errors(data["conditions"], console)
    failures = (
        f", {totals['parse_failures']} parse failures"
        if data["stage"] == "grade"
        else ""
    )
    # A condition that failed as a whole makes the run exit 1: the summary must not say
    # "completed".
    outcome = "failed" if data["exit_code"] == 1 else data["outcome"]
    console.print(
        f"{data['stage']} {outcome}: {totals['rows']} rows written, "
        f"{totals['errors']} errors{failures}, "
        f"{totals['cache_hits']} cache hits, spend {_usd(totals['usd'])}"
        + (f" (manifest {data['manifest']})" if data["manifest"] else ""),
        markup=False,
        highlight=False,
    )
    if data["outcome"] == "budget_stopped":
        left = totals["planned"] - totals["rows"]
        console.print(
            f"stopped by max_usd: {left} cells were not run and stay missing "
            "(not failed); "
            "run again with a higher --max-usd to continue",
            highlight=False,
        )


def _print_stage_table(data: dict[str, Any], console: Console, *, ids: bool) -> None:
    """The conditions that had work, with what ran; the planned count only where a
    run ended short of it."""
    busy = [
        row
        for row in data["conditions"]
        if row["planned"] or row["rows"] or row["failure"]
    ]
    if not busy:
        return
    columns = [
        _CONDITION,
        *(
            [Column("planned", count("planned"))]
            if any(row["planned"] != row["rows"] for row in busy)
            else []
        ),
        Column("rows", count("rows")),
        Column("err", count("errors")),
        *(
            [Column("pfail", count("parse_failures"))]
            if data["stage"] == "grade"
            else []
        ),
        Column("cached", count("cache_hits")),
        _SPEND,
    ]
    _print_table(console, f"{data['stage']} — {data['study']}", columns, busy, ids=ids)
    idle = len(data["conditions"]) - len(busy)
    if idle:
        console.print(
            f"{idle} other condition{'s' if idle > 1 else ''} had nothing to do",
            highlight=False,
        )
    for row in busy:
        if row["failure"]:
            console.print(
                f"failed: {row['slug']}: {row['failure']}",
                style="red",
                markup=False,
                highlight=False,
            )


def _print_frequent_errors(
    conditions: list[dict[str, Any]], console: Console, shown: int = 3
) -> None:
    """The most frequent error messages of the run, with their counts (the full texts
    are in the stores)."""
    counts: dict[str, int] = {}
    for row in conditions:
        for message, times in row["error_messages"].items():
            counts[message] = counts.get(message, 0) + times
    if counts:
        console.print("most frequent errors:", highlight=False)
        for message, times in sorted(counts.items(), key=lambda item: -item[1])[:shown]:
            console.print(
                f"  {times} × {message}", markup=False, highlight=False, soft_wrap=True
            )


def render_estimate(
    estimate: Estimate, console: Console, *, title: str = "estimate", ids: bool = False
) -> None:
    data = estimate.as_dict()
    for stage in data["stages"]:
        rows = [
            line
            for line in data["conditions"]
            if line["stage"] == stage and line["calls"]
        ]
        if rows:
            _print_table(console, f"{title}: {stage}", _ESTIMATE, rows, ids=ids)
    for stage, totals in data["stages"].items():
        console.print(
            f"{stage}: {totals['calls']:,} calls, expected "
            f"{_usd(totals['usd_expected'])}, "
            f"at most {_usd(totals['usd_ceiling'])}",
            highlight=False,
        )
    total = data["total"]
    interval = (
        f" (95%: {_usd(total['usd_low'])} to {_usd(total['usd_high'])}, from "
        "the replies seen)"
        if total.get("usd_high") is not None
        else ""
    )
    cached = f" ({total['cached']:,} cached, $0)" if total.get("cached") else ""
    console.print(
        f"total: {total['calls']:,} calls{cached}, expected "
        f"{_usd(total['usd_expected'])}{interval}, "
        f"at most {_usd(total['usd_ceiling'])} (tokens: {data['token_heuristic']})",
        highlight=False,
    )
    if total.get("usd_live_expected") is not None:  # batch mode
        console.print(
            f"batch mode: expected {_usd(total['usd_expected'])} at batch prices, "
            f"{_usd(total['usd_live_expected'])} live",
            highlight=False,
        )
    for note in data["notes"]:
        console.print(note, markup=False, highlight=False)


_ESTIMATE = (
    _CONDITION,
    Column("model", lambda line: line["model"], kind="text", optional=5),
    Column("calls", count("calls")),
    Column("cached", count("cached"), optional=6),
    Column("in tok", lambda line: tokens(line["input_tokens"]), optional=1),
    Column("out tok", lambda line: tokens(line["output_tokens_expected"]), optional=2),
    Column("basis", lambda line: line["basis"], kind="text", optional=3),
    Column("out max", lambda line: tokens(line["output_tokens_ceiling"]), optional=4),
    Column("expected", lambda line: money(line["usd_expected"])),
    Column("at most", lambda line: money(line["usd_ceiling"])),
)
"""Expected output tokens and USD assume replies as long as those stored (basis), `at
most` a full max_tokens reply."""


def render_export(result: Any, console: Console) -> None:
    console.print(
        f"exported {result.rows} grades to {result.parquet} and {result.csv}",
        highlight=False,
        soft_wrap=True,
    )
    for uri in result.shared:  # a study on object storage: where the team finds them
        console.print(
            f"  copied beside the study: {uri}", highlight=False, soft_wrap=True
        )
    if getattr(result, "pairwise_rows", 0):
        console.print(
            f"exported {result.pairwise_rows} pairwise verdicts to "
            f"{result.parquet.with_name('pairwise_long.parquet')} and .csv",
            highlight=False,
            soft_wrap=True,
        )


def export_dict(result: Any) -> dict[str, Any]:
    return {
        "rows": result.rows,
        "parquet": str(result.parquet),
        "csv": str(result.csv),
        "recovered_rows": result.recovered,
        "shared": list(result.shared),
        "pairwise_rows": getattr(result, "pairwise_rows", 0),
    }


def render_import(result: Any, console: Console) -> None:
    """`itemeval import`: a line per imported condition, then the unmatched samples."""
    for c in result.conditions:
        console.print(
            f"{c['slug']} ({c['condition_id']}): {c['samples']} samples, "
            f"{c['rows_written']} rows written",
            highlight=False,
            soft_wrap=True,
        )
    for miss in result.unmatched:
        ids = ", ".join(miss["sample_ids"][:10])
        more = len(miss["sample_ids"]) - 10
        console.print(
            f"not imported: {len(miss['sample_ids'])} samples of {miss['log']} "
            "match no "
            f"item id: {ids}" + (f" and {more} more" if more > 0 else ""),
            highlight=False,
            soft_wrap=True,
        )
    console.print(
        f"import: {len(result.logs)} logs, {result.rows_written} rows written, "
        f"{result.unchanged} already stored",
        highlight=False,
        soft_wrap=True,
    )


def render_init(written: list[Any], directory: Any, console: Console) -> None:
    for path in written:
        console.print(f"wrote {path}")
    console.print(
        f"next: cd {directory} && itemeval estimate config.yaml && itemeval "
        "generate config.yaml"
    )


# ---- results -------------------------------------------------------------------------


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(row: dict[str, Any]) -> str:
    return "-" if row["ci_low"] is None else f"{row['ci_low']:.3f}–{row['ci_high']:.3f}"


def _number(header: str, cell: Any, width: int) -> Column:
    """A results number: a fixed minimum width, so columns line up from table to
    table."""
    return Column(header, cell, min_width=width)


def render_results(data: dict[str, Any], console: Console) -> None:
    """The results as tables designed for 80 columns: slugs cut from the middle only
    when needed, ids in `--json`."""
    slugs = data["slugs"]

    def name(header: str, key: str, default: str = "") -> Column:
        return Column(
            header, lambda row: slugs[row[key]] if row[key] else default, kind="name"
        )

    n = _number("n", count("items"), 3)
    mean, ci = (
        _number("mean", lambda row: _num(row["mean"]), 5),
        _number("95% CI", _ci, 11),
    )
    from . import results_console

    results_console.render_headline(data, console)
    results_console.cell_tables(console, data, [n, mean, ci])
    if data["marginals"]:
        results_console.per_grade(
            console,
            data,
            data["marginals"],
            lambda slug, rows: f"{slug}: by facet, mean per item, 95% CI",
            [
                Column("facet", lambda row: row["facet"], kind="name"),
                Column("level", lambda row: str(row["level"]), kind="name"),
                n,
                mean,
                ci,
            ],
            named=False,
        )
    if data.get("metrics"):
        results_console.render_metrics(console, data, [_number("95% CI", _ci, 11)])
    if data.get("criteria"):
        results_console.per_grade(
            console,
            data,
            data["criteria"],
            lambda slug, rows: f"{slug}: criteria, mean per item, 95% CI",
            [
                Column("criterion", lambda row: row["criterion"], kind="name"),
                n,
                mean,
                ci,
            ],
        )
    if data.get("criteria_agreement"):
        console.print(
            fitted(
                console,
                "agreement per criterion",
                [
                    name("A", "a"),
                    name("B", "b"),
                    Column("criterion", lambda row: row["criterion"], kind="name"),
                    _number("n", count("n"), 3),
                    _number("exact", lambda row: _num(row["exact"]), 5),
                    _number("rho", lambda row: _num(row["spearman"]), 5),
                    _number("kappa", lambda row: _num(row["kappa_quadratic"]), 5),
                ],
                data["criteria_agreement"],
            )
        )
    if data["comparisons"]:
        results_console.render_comparisons(console, data, ci)
    if data["agreement"]:
        console.print(
            fitted(
                console,
                "grader agreement",
                [
                    name("A", "a"),
                    name("B", "b"),
                    _number("n", count("n"), 3),
                    *(
                        _number(header, lambda row, key=key: _num(row[key]), 5)
                        for header, key in (
                            ("exact", "exact"),
                            ("rho", "spearman"),
                            ("kappa", "kappa_quadratic"),
                            ("alpha", "alpha_interval"),
                        )
                    ),
                ],
                data["agreement"],
            )
        )
    if data.get("corrected"):
        console.print(
            fitted(
                console,
                "judge means corrected by human labels (prediction-powered)",
                [
                    name("solver", "gen_condition_id"),
                    name("judge", "grade_condition_id"),
                    Column("rater", lambda row: row["rater"], kind="name"),
                    _number("labels", count("n_labelled"), 6),
                    _number("mean", lambda row: _num(row["mean"]), 5),
                    _number("95% CI", _ci, 11),
                ],
                data["corrected"],
            )
        )
    if data.get("cascades"):
        console.print(
            fitted(
                console,
                "cascades: which stage decided",
                [
                    name("solver", "gen_condition_id"),
                    name("cascade", "grade_condition_id"),
                    Column("decided by", lambda row: row["decided_by"], kind="name"),
                    _number("n", count("n"), 4),
                ],
                data["cascades"],
            )
        )
    if data["calibration"]:
        console.print(
            fitted(
                console,
                "calibration",
                [
                    name("solver", "gen_condition_id"),
                    name("scorer", "grade_condition_id"),
                    _number("n", count("n"), 3),
                    *(
                        _number(header, lambda row, key=key: _num(row[key]), width)
                        for header, key, width in (
                            ("ECE", "ece", 5),
                            ("ECE mass", "ece_equal_mass", 8),
                            ("Brier", "brier", 5),
                            ("AUC", "auc", 5),
                        )
                    ),
                ],
                data["calibration"],
            )
        )
