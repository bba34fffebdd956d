"""What the CLI shows: stage results, estimates and status as rich tables for people or JSON for scripts."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table

from .outcomes import StageResult
from .pricing import format_usd as _usd
from .pricing import total_usd

if TYPE_CHECKING:  # the status and cost modules pull in pandas, which `itemeval --help` must not wait for
    from .cost import Estimate
    from .status import StatusReport

WIDE = 240
"""Width for output that is not a terminal (logs, CI, pipes): whole slugs and ids rather than tables cut at 80."""


def stderr() -> Console:
    console = Console(stderr=True)
    if not console.is_terminal:
        console.width = WIDE
    return console


def stdout() -> Console:
    console = Console()
    if not console.is_terminal:
        console.width = WIDE
    return console


def warn(warnings: list[str]) -> None:
    console = stderr()
    for warning in warnings:
        console.print(f"warning: {warning}", style="yellow", markup=False, highlight=False, soft_wrap=True)


def tell(message: str) -> None:
    """One line of progress or advice for the person at the terminal, on stderr."""
    stderr().print(message, markup=False, highlight=False, soft_wrap=True)


def error(message: str) -> None:
    stderr().print(f"error: {message}", style="red", highlight=False, markup=False, soft_wrap=True)


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
                **{k: getattr(row, k) for k in ("cells", "done", "errors", "empty", "truncated", "missing", "usd")},
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
                **{k: getattr(row, k) for k in ("solutions", "done", "parse_failed", "stale", "errors", "pending", "usd")},
            }
            for row in report.grade
        ],
        "spend_usd": {"generate": total_usd(row.usd for row in report.generate),
                      "grade": total_usd(row.usd for row in report.grade)},
        "journal_rows_pending": report.journal_rows,
        "running": report.running,
        "notes": list(report.notes),
        "warnings": list(study.warnings),
    }


def render_status(report: StatusReport, console: Console) -> None:
    data = status_dict(report)
    if report.running:
        holder = report.running
        console.print(f"running now: `{holder.get('command')}` (pid {holder.get('pid')} on {holder.get('host')}, "
                      f"since {holder.get('started_at')}); its finished rows reach the stores when it ends",
                      markup=False, highlight=False, soft_wrap=True)
    for note in report.notes:
        console.print(note, markup=False, highlight=False)
    console.print(
        f"[bold]{data['study']}[/bold]  {data['study_dir']}  items: {data['items']}  "
        f"replications: {data['replications']}"
    )
    console.print(_generate_table(data["generate"]))
    console.print(_grade_table(data["grade"]))
    spend = data["spend_usd"]
    console.print(f"spend so far: generate {_usd(spend['generate'])}, grade {_usd(spend['grade'])}")
    if report.journal_rows:
        console.print(f"{report.journal_rows} finished rows are in the journal of a running command")


def _generate_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="generate conditions", title_justify="left")
    for column in ("condition id", "model", "prompt", "config", "cells", "done", "errors", "empty", "trunc.", "spend"):
        table.add_column(column, justify="right" if column in ("cells", "done", "errors", "empty", "trunc.", "spend") else "left")
    for row in rows:
        table.add_row(
            row["condition_id"], row["model"], row["prompt"], row["model_config"],
            str(row["cells"]), str(row["done"]), str(row["errors"]), str(row["empty"]), str(row["truncated"]),
            _usd(row["usd"]),
        )
    return table


def _grade_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="grade conditions", title_justify="left")
    numeric = ("solutions", "done", "parse fail", "stale", "errors", "pending", "spend")
    for column in ("condition id", "grader / scorer", "rubric", *numeric):
        table.add_column(column, justify="right" if column in numeric else "left")
    for row in rows:
        who = row["scorer"] if row["kind"] == "verifiable" else f"{row['grader']} ({row['grader_model']})"
        table.add_row(
            row["condition_id"], who, row["rubric"] or "-",
            str(row["solutions"]), str(row["done"]), str(row["parse_failed"]), str(row["stale"]),
            str(row["errors"]), str(row["pending"]), _usd(row["usd"]),
        )
    return table


def stage_dict(result: StageResult) -> dict[str, Any]:
    conditions = [{k: v for k, v in vars(c).items() if k != "effective_configs"} for c in result.conditions]
    totals = {key: sum(c[key] for c in conditions) for key in ("planned", "rows", "errors", "cache_hits",
                                                                 "parse_failures")}
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


def render_stage(result: StageResult, console: Console) -> None:
    data = stage_dict(result)
    for store, rows in data["recovered_rows"].items():
        console.print(f"recovered {rows} {store} rows from the journal of an interrupted run")
    for note in data["notes"]:
        console.print(note, markup=False, highlight=False, soft_wrap=True)
    grading = data["stage"] == "grade"
    table = Table(title=f"{data['stage']} — {data['study']}", title_justify="left")
    columns = ("condition", "cells run", "rows", "errors", *(("parse fail",) if grading else ()), "cache hits", "spend",
               "")
    for column in columns:
        table.add_column(column, justify="left" if column in ("condition", "") else "right")
    for row in data["conditions"]:
        table.add_row(row["slug"], str(row["planned"]), str(row["rows"]), str(row["errors"]),
                      *((str(row["parse_failures"]),) if grading else ()), str(row["cache_hits"]), _usd(row["usd"]),
                      row["failure"] or "")
    if data["conditions"]:
        console.print(table)
    _print_frequent_errors(data["conditions"], console)
    totals = data["totals"]
    if totals["planned"] == 0 and data["outcome"] == "completed":
        console.print(f"{data['stage']}: nothing to do — every selected cell is already done")
        return
    failures = f", {totals['parse_failures']} parse failures" if grading else ""
    console.print(
        f"{data['stage']} {data['outcome']}: {totals['rows']} rows written, {totals['errors']} errors{failures}, "
        f"{totals['cache_hits']} cache hits, spend {_usd(totals['usd'])}"
        + (f" (manifest {data['manifest']})" if data["manifest"] else ""),
        highlight=False, soft_wrap=True,
    )
    if data["outcome"] == "budget_stopped":
        left = totals["planned"] - totals["rows"]
        console.print(f"stopped by max_usd: {left} cells were not run and stay missing (not failed); "
                      "run again with a higher --max-usd to continue", highlight=False, soft_wrap=True)


def _print_frequent_errors(conditions: list[dict[str, Any]], console: Console, shown: int = 3) -> None:
    """The most frequent error messages of the run, with their counts (the full texts are in the stores)."""
    counts: dict[str, int] = {}
    for row in conditions:
        for message, count in row["error_messages"].items():
            counts[message] = counts.get(message, 0) + count
    if counts:
        console.print("most frequent errors:", highlight=False)
        for message, count in sorted(counts.items(), key=lambda item: -item[1])[:shown]:
            console.print(f"  {count} × {message}", markup=False, highlight=False, soft_wrap=True)


def render_estimate(estimate: Estimate, console: Console, *, title: str = "estimate") -> None:
    data = estimate.as_dict()
    table = Table(title=title, title_justify="left")
    for column in ("stage", "condition", "model", "calls", "input tok", "output tok (ceiling)",
                   "output tok (expected)", "basis", "USD ceiling", "USD expected"):
        table.add_column(column, justify="left" if column in ("stage", "condition", "model", "basis") else "right")
    for line in data["conditions"]:
        if not line["calls"]:
            continue
        table.add_row(line["stage"], line["slug"], line["model"], f"{line['calls']:,}", f"{line['input_tokens']:,}",
                      f"{line['output_tokens_ceiling']:,}", f"{line['output_tokens_expected']:,}", line["basis"],
                      _usd(line["usd_ceiling"]), _usd(line["usd_expected"]))
    console.print(table)
    for stage, totals in data["stages"].items():
        console.print(f"{stage}: {totals['calls']:,} calls, expected {_usd(totals['usd_expected'])}, "
                      f"at most {_usd(totals['usd_ceiling'])}", highlight=False)
    total = data["total"]
    console.print(f"total: {total['calls']:,} calls, expected {_usd(total['usd_expected'])}, "
                  f"at most {_usd(total['usd_ceiling'])} (tokens: {data['token_heuristic']})", highlight=False)
    for note in data["notes"]:
        console.print(note, markup=False, highlight=False, soft_wrap=True)


def render_export(result: Any, console: Console) -> None:
    console.print(f"exported {result.rows} grades to {result.parquet} and {result.csv}", highlight=False, soft_wrap=True)


def export_dict(result: Any) -> dict[str, Any]:
    return {"rows": result.rows, "parquet": str(result.parquet), "csv": str(result.csv),
            "recovered_rows": result.recovered}


def render_init(written: list[Any], directory: Any, console: Console) -> None:
    for path in written:
        console.print(f"wrote {path}")
    console.print(f"next: cd {directory} && itemeval estimate config.yaml && itemeval generate config.yaml")


# ---- results -------------------------------------------------------------------------------------------------------

def _short(text: str, width: int) -> str:
    """A slug fitted to `width`: its longest parts (model_prompt_config) are cut in their middle, so each part
    keeps its beginning and end ("arith-good" → "ari…good") and conditions that differ stay different."""
    if len(text) <= width:
        return text
    parts = text.split("_")
    if width < 4 * len(parts):
        return _middle(text, width)
    lengths = [len(part) for part in parts]
    while sum(lengths) + len(parts) - 1 > width:
        lengths[lengths.index(max(lengths))] -= 1
    return "_".join(_middle(part, length) for part, length in zip(parts, lengths))


def _middle(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    keep = width - 1
    return text[: (keep + 1) // 2] + "…" + text[len(text) - keep // 2:]


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(row: dict[str, Any]) -> str:
    return "-" if row["ci_low"] is None else f"{row['ci_low']:.3f}–{row['ci_high']:.3f}"


_NUMBER_WIDTHS = {"n": 3, "mean": 5, "95% CI": 11, "diff": 6, "p adj": 6, "pend": 4, "err": 3, "pfail": 5,
                  "exact": 5, "rho": 5, "kappa": 5, "alpha": 5, "ECE": 5, "ECE mass": 8, "Brier": 5, "AUC": 5}


def render_results(data: dict[str, Any], console: Console) -> None:
    """The results as tables designed for 80 columns: slugs shortened from the middle, ids in `--json`."""
    slugs = data["slugs"]

    def slug(condition_id: str, width: int) -> str:
        return _short(slugs[condition_id], width)

    title = f"{data['study']}: mean per item ({data['reducer']}), 95% CI ({data['ci_method']})"
    cells = _results_table(title, ("solver", "grader", "n", "mean", "95% CI", "pend", "err", "pfail"))
    for row in data["cells"]:
        cells.add_row(slug(row["gen_condition_id"], 18), slug(row["grade_condition_id"], 15), str(row["items"]),
                      _num(row["mean"]), _ci(row), str(row["pending"]), str(row["errors"]), str(row["parse_failures"]))
    console.print(cells)
    if data["marginals"]:
        table = _results_table("by facet", ("facet", "level", "grader", "n", "mean", "95% CI"))
        for row in data["marginals"]:
            grader = slug(row["grade_condition_id"], 16) if row["grade_condition_id"] else "all"
            table.add_row(_short(row["facet"], 12), _short(str(row["level"]), 20), grader, str(row["items"]),
                          _num(row["mean"]), _ci(row))
        console.print(table)
    if data["comparisons"]:
        table = _results_table("paired differences A − B", ("A", "B", "grader", "n", "diff", "95% CI", "p adj"))
        for row in data["comparisons"]:
            table.add_row(slug(row["a"], 14), slug(row["b"], 14), slug(row["grade_condition_id"], 10), str(row["n"]),
                          _num(row["diff"]), _ci(row), _num(row["p_adjusted"], 4))
        console.print(table)
    if data["agreement"]:
        table = _results_table("grader agreement", ("A", "B", "n", "exact", "rho", "kappa", "alpha"))
        for row in data["agreement"]:
            table.add_row(slug(row["a"], 18), slug(row["b"], 18), str(row["n"]), _num(row["exact"]),
                          _num(row["spearman"]), _num(row["kappa_quadratic"]), _num(row["alpha_interval"]))
        console.print(table)
    if data["calibration"]:
        table = _results_table("calibration", ("solver", "scorer", "n", "ECE", "ECE mass", "Brier", "AUC"))
        for row in data["calibration"]:
            table.add_row(slug(row["gen_condition_id"], 18), slug(row["grade_condition_id"], 14), str(row["n"]),
                          _num(row["ece"]), _num(row["ece_equal_mass"]), _num(row["brier"]), _num(row["auc"]))
        console.print(table)


def _results_table(title: str, columns: tuple[str, ...]) -> Table:
    """No vertical rules and one space between columns; numbers keep their width, so the tables fit 80 columns."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True,
                  pad_edge=False)
    for column in columns:
        width = _NUMBER_WIDTHS.get(column)
        table.add_column(column, justify="left" if width is None else "right", no_wrap=True, min_width=width)
    return table
