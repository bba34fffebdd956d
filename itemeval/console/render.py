"""What the CLI shows: stage results, estimates and status as rich tables for people
or JSON for scripts."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console

from ..outcomes import NOTHING_EXPORTED, NOTHING_TO_GRADE, StageResult, recovered_note
from ..plan.estimates import NO_REPLIES_YET
from ..plan.pricing import format_usd as _usd
from ..plan.pricing import total_usd
from .condition_tables import CONDITION, SPEND, print_table
from .status import render_status, status_dict
from .tables import Column, count, money, tokens

# the cost module pulls in pandas, which `itemeval --help` must not wait for
if TYPE_CHECKING:
    from ..plan.estimates import Estimate
    from ..result_values import ResultsReport

__all__ = ["render_status", "status_dict"]  # `status` is rendered in status_console

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
    # no terminal, or stderr is not a real file
    except (
        OSError,
        ValueError,
        AttributeError,
    ):
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
    wrapped at the terminal's width; a path too long for a line goes whole on a line
    of its own (wrapped, it broke mid-word: `…/mystudy-2026….ht` / `ml`)."""
    console = stderr()
    text: list[str] = []
    for word in message.split(" "):
        if len(word) > console.width // 2 and ("/" in word or "\\" in word):
            if text:
                console.print(" ".join(text), markup=False, highlight=False)
                text = []
            console.print(f"  {word}", markup=False, highlight=False, soft_wrap=True)
        else:
            text.append(word)
    if text or not message:
        console.print(" ".join(text), markup=False, highlight=False)


def error(message: str) -> None:
    stderr().print(
        f"error: {message}", style="red", highlight=False, markup=False, soft_wrap=True
    )


def print_json(data: Any) -> None:
    """The one JSON document of a `--json` command, on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")


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
        "held_open": result.held_open,
    }


def render_stage(result: StageResult, console: Console, *, ids: bool = False) -> None:
    data = stage_dict(result)
    for store, rows in data["recovered_rows"].items():
        console.print(recovered_note(rows, store))
    for note in data["notes"]:
        if note not in result.told:  # shown before the run already
            console.print(note, markup=False, highlight=False)
    totals = data["totals"]
    if NOTHING_TO_GRADE in data["notes"]:
        return
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
    console.print(
        f"{data['stage']} {data['outcome']}: {totals['rows']} rows written, "
        f"{totals['errors']} errors{failures}, "
        f"{totals['cache_hits']} cache hits, spend {_usd(totals['usd'])}",
        markup=False,
        highlight=False,
    )
    if data["manifest"]:  # a path on a line of its own: never cut in its middle
        console.print(
            f"manifest: {data['manifest']}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if data["outcome"] == "budget_stopped":
        held = data.get("held_open") or 0
        left = totals["planned"] - totals["rows"] - held
        console.print(
            f"stopped by max_usd: {left} cells were not run and stay missing "
            "(not failed)"
            + (f", {held} more are in open batches" if held else "")
            + "; run again with a higher --max-usd to continue",
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
    columns = _stage_columns(busy, grade=data["stage"] == "grade")
    print_table(console, f"{data['stage']} — {data['study']}", columns, busy, ids=ids)
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


def _stage_columns(busy: list[dict[str, Any]], *, grade: bool) -> list[Column]:
    short = any(row["planned"] != row["rows"] for row in busy)
    return [
        CONDITION,
        *([Column("planned", count("planned"))] if short else []),
        Column("rows", count("rows")),
        Column("err", count("errors")),
        *([Column("pfail", count("parse_failures"))] if grade else []),
        Column("cached", count("cache_hits")),
        SPEND,
    ]


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
            print_table(console, f"{title}: {stage}", _ESTIMATE, rows, ids=ids)
    for stage, totals in data["stages"].items():
        expected = (
            f"expected {_usd(totals['usd_expected'])}, "
            if totals["projected"]
            else "no reply seen yet, "
        )
        console.print(
            f"{stage}: {totals['calls']:,} calls, {expected}"
            f"at most {_usd(totals['usd_ceiling'])}",
            highlight=False,
        )
    _print_estimate_total(data, console)
    for note in data["notes"]:
        console.print(note, markup=False, highlight=False)


def _print_estimate_total(data: dict[str, Any], console: Console) -> None:
    """The total's calls and cost, with its interval and batch prices when known."""
    total = data["total"]
    interval = (
        f" (95%: {_usd(total['usd_low'])} to {_usd(total['usd_high'])}, from "
        "the replies seen)"
        if total.get("usd_high") is not None
        else ""
    )
    cached = f" ({total['cached']:,} cached, $0)" if total.get("cached") else ""
    expected = (
        f"expected {_usd(total['usd_expected'])}{interval}, "
        if total["projected"]
        else ""
    )
    console.print(
        f"total: {total['calls']:,} calls{cached}, {expected}"
        f"at most {_usd(total['usd_ceiling'])} (tokens: {data['token_heuristic']})",
        highlight=False,
    )
    if not total["projected"]:
        console.print(NO_REPLIES_YET, highlight=False)
    if total.get("usd_live_expected") is not None:  # batch mode
        console.print(
            f"batch mode: expected {_usd(total['usd_expected'])} at batch prices, "
            f"{_usd(total['usd_live_expected'])} live",
            highlight=False,
        )


def _expected(line: dict[str, Any]) -> str:
    seen = line["basis"] in ("condition", "model", "free")
    return money(line["usd_expected"]) if seen or not line["calls"] else "–"


_ESTIMATE = (
    CONDITION,
    Column("model", lambda line: line["model"], kind="text", optional=5),
    Column("calls", count("calls")),
    Column("cached", count("cached"), optional=6),
    Column("in tok", lambda line: tokens(line["input_tokens"]), optional=1),
    Column("out tok", lambda line: tokens(line["output_tokens_expected"]), optional=2),
    Column("basis", lambda line: line["basis"], kind="text", optional=3),
    Column("out max", lambda line: tokens(line["output_tokens_ceiling"]), optional=4),
    # before any reply is seen the expected figure is only the ceiling: not repeated
    # as if it were an expectation (the summary line says so)
    Column("expected", lambda line: _expected(line)),
    Column("at most", lambda line: money(line["usd_ceiling"])),
)
"""Expected output tokens and USD assume replies as long as those stored (basis), `at
most` a full max_tokens reply."""


def render_export(result: Any, console: Console) -> None:
    console.print(f"exported {result.rows} grades:", highlight=False)
    for path in (result.parquet, result.csv):
        console.print(f"  {path}", highlight=False, soft_wrap=True)
    if not result.rows:
        console.print(NOTHING_EXPORTED, highlight=False)
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


def render_results(results: ResultsReport, console: Console) -> None:
    """`itemeval results` as tables designed for 80 columns (console/results.py)."""
    from . import results as results_console

    results_console.render_results(results, console)
