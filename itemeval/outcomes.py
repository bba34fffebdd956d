"""What running a stage produces, as plain values: one sample's result, one
condition's counts, one stage's outcome."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from .errors import EXIT_BUDGET, EXIT_OK, EXIT_RUNTIME
from .signals import interrupted_exit_code

Outcome = Literal["running", "completed", "interrupted", "budget_stopped", "failed"]


@dataclass(frozen=True)
class SampleResult:
    """What one finished inspect sample tells a stage: the call's outcome and the
    cell it belongs to."""

    metadata: Mapping[str, Any]
    """The cell's metadata, as the stage put it on the sample (ids linking it to its
    store row)."""
    completion: str | None
    stop_reason: str | None
    error: str | None
    usage: dict[str, int | None]
    """The counts charged: the provider's, or the worst case where they could not be
    (plan/usage_check.py)."""
    cache_hit: bool
    latency_s: float | None
    effective_config: dict[str, Any]
    """The generate config inspect actually sent with the call."""
    uuid: str | None
    log_file: str | None
    """The `.eval` log holding the sample's transcript, relative to the study
    directory."""
    skipped: bool = False
    """No row: the spend cap refused the call, or an interrupt cancelled it."""
    logprobs: list[dict[str, Any]] | None = None
    """The first generated tokens as {token, logprob, top: [{token, logprob}]}, when
    the call asked for them."""
    calls: tuple[tuple[str, dict[str, int | None], bool], ...] = ()
    """Every model call of the sample as (model, usage, served from the cache): a
    model-graded scorer may make several."""
    score: Any = None
    """A model-graded scorer's verdict on the replayed solution (a
    scorers.ScoreResult)."""
    usage_reported: str | None = None
    """JSON: the provider's own counts of the calls whose counts were not believed,
    each with why; None when every call's were taken as reported."""
    trajectory: Any = None
    """An agent cell's turns, tool calls and compact transcript
    (engine/transcripts.Trajectory); None for one plain call."""
    limit_hit: str | None = None
    """The inspect limit an agent cell hit (message, token, time, working)."""


@dataclass
class ConditionRun:
    """What one condition did in this run."""

    condition_id: str
    slug: str
    planned: int = 0
    rows: int = 0
    errors: int = 0
    cache_hits: int = 0
    usd: float | None = 0.0
    failure: str | None = None
    parse_failures: int = 0
    error_messages: dict[str, int] = field(default_factory=dict)
    """Each distinct error's first line (cut to 120 characters) and how often it
    happened."""
    # distinct configs inspect actually sent
    effective_configs: set[str] = field(default_factory=set)
    doubted_usage: list[str] = field(default_factory=list)
    """Why each of its rows' token counts were not taken as the provider reported
    them (plan/usage_check.py)."""

    def add(self, row: dict[str, Any]) -> None:
        self.rows += 1
        if row.get("usage_reported"):
            self.doubted_usage.append(_first_reason(row["usage_reported"]))
        if row.get("effective_config"):
            self.effective_configs.add(row["effective_config"])
        self.errors += row.get("error") is not None
        self.parse_failures += row.get("parse_ok") is False
        if row.get("error") is not None:
            message = (
                str(row["error"]).strip().splitlines()[0][:120]
                if str(row["error"]).strip()
                else "(empty)"
            )
            self.error_messages[message] = self.error_messages.get(message, 0) + 1
        self.cache_hits += bool(row["cache_hit"])
        if row["usd"] is None:
            self.usd = None
        elif self.usd is not None:
            self.usd += row["usd"]


def _first_reason(reported: str) -> str:
    try:
        return str(json.loads(reported)[0]["why"])
    except (ValueError, LookupError, TypeError):
        return "unreadable counts"


def doubted_usage_note(conditions: list[ConditionRun]) -> list[str]:
    """One line for the calls whose counts were not believed: they are charged at
    their worst case, never at what the provider said."""
    reasons = [why for c in conditions for why in c.doubted_usage]
    if not reasons:
        return []
    return [
        f"{len(reasons)} call(s) came back with token counts that cannot be true "
        f"(e.g. {reasons[0]}): each was charged at its worst case (every byte sent a "
        "token, a reply of max_tokens or of its own bytes, whichever is larger); the "
        "provider's counts are kept in the rows' usage_reported"
    ]


@dataclass
class StageResult:
    """The outcome of a generate or grade run, rendered by the CLI as text or JSON."""

    stage: str
    study: str
    outcome: Outcome = "completed"
    run_id: str | None = None
    recovered: dict[str, int] = field(default_factory=dict)
    conditions: list[ConditionRun] = field(default_factory=list)
    estimate: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    manifest: str | None = None
    told: set[str] = field(default_factory=set)
    """Notes already shown on the terminal before the run (the summary skips them)."""
    held_open: int = 0
    """Planned cells an open provider batch still holds when the run ends: submitted
    and paid for, neither run nor missing."""

    @property
    def exit_code(self) -> int:
        if self.outcome == "interrupted":
            return interrupted_exit_code()
        if self.outcome == "budget_stopped":
            return EXIT_BUDGET
        if self.outcome == "failed" or any(c.failure for c in self.conditions):
            return EXIT_RUNTIME
        return EXIT_OK


NOTHING_TO_GRADE = (
    "nothing to grade yet: the selected generate conditions have no stored solution; "
    "run `itemeval generate` first"
)


NOTHING_EXPORTED = (
    "nothing graded yet: the export has one row per grade; run `itemeval generate` "
    "and `itemeval grade` first"
)


def recovered_note(rows: int, store: str) -> str:
    """What a command says of rows it merged from journal parts it found waiting."""
    return (
        f"recovered {rows} {store} rows from journal parts (an interrupted run's, or "
        "shards' not yet committed)"
    )
