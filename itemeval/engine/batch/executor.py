"""Durable batch mode for one run: re-attach to the study's open batches, submit the
cells no batch holds, wait, and turn each finished batch into the rows a live run
writes (README "Batch mode").

The order keeps the promise that no accepted request is paid for twice: every batch is
recorded in the study's ledger before the run waits on it, a re-run first collects what
the open batches hold, and a cell is submitted only when no open batch holds it and no
batch answered it in this run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ... import signals
from ...paths import StudyPaths
from ...plan.pricing import format_usd
from ...records import Cell, TaskSpec
from ...store.journal import JournalWriter, replay_journals
from . import cache, ledger, pace, reserve
from .client import TERMINAL, Status
from .context import BatchContext, BatchOutcome, BatchRun
from .display import WaitingDisplay
from .requests import provider_model, request_key, result
from .submit import submit_all

if TYPE_CHECKING:
    from ..runner import RowSink

POLL_S = 30.0
"""Seconds between two looks at the open batches; `ITEMEVAL_BATCH_POLL_S` overrides
it (tests poll fast)."""


def is_durable(spec: TaskSpec) -> bool:
    """A task itemeval batches itself: batch mode on, one call per cell, and an
    OpenAI-compatible provider. Other providers keep inspect's own (not durable)
    batch mode."""
    return (
        bool(spec.config.get("batch"))
        and spec.scorer is None
        and spec.agent is None  # an agent's next call waits on its last
        and (provider_model(spec.model) is not None)
    )


def split(specs: Sequence[TaskSpec]) -> tuple[list[TaskSpec], list[TaskSpec]]:
    """(specs to batch durably, specs for the live runner). A batched condition's
    cells that inspect's response cache answers run live: they cost nothing there."""
    from ..cache_lookup import cached_sample_ids

    batched, live = [], []
    for spec in specs:
        if not is_durable(spec):
            live.append(spec)
            continue
        cached = cached_sample_ids(spec)
        hits = [c for c in spec.cells if c.sample_id in cached]
        rest = [c for c in spec.cells if c.sample_id not in cached]
        if hits:
            live.append(replace(spec, cells=hits, config=_live(spec.config)))
        if rest:
            batched.append(replace(spec, cells=rest))
    return batched, live


def _live(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if k != "batch"}


def without_held(
    paths: StudyPaths, stage: str, specs: Sequence[TaskSpec]
) -> list[TaskSpec]:
    """The specs less the cells an open batch of the stage holds: what an estimate
    prices (they are paid for already; one that comes back unanswered is submitted
    again under the cap's worst-case reservation)."""
    held = ledger.held_keys(paths, stage)
    if not held:
        return list(specs)
    kept = []
    for spec in specs:
        cells = [
            c
            for c in spec.cells
            if request_key(stage, spec.name, c.sample_id) not in held
        ]
        kept.append(replace(spec, cells=cells))
    return kept


def poll_seconds() -> float:
    try:
        return max(0.01, float(os.environ.get("ITEMEVAL_BATCH_POLL_S", POLL_S)))
    except ValueError:
        return POLL_S


def execute(
    context: BatchContext,
    specs: Sequence[TaskSpec],
    sink: RowSink,
    journaled: Callable[[dict[str, Any]], None],
    held: dict[str, float] | None = None,
) -> BatchOutcome:
    """Collect the stage's open batches, submit the rest of `specs`, wait for all.
    `held`: what the cap holds for batches earlier runs left open (`hold_open`)."""
    outcome = BatchOutcome(context.paths)
    state = BatchRun(context, outcome, sink, journaled, reserved=dict(held or {}))
    state.cells = {
        request_key(context.stage, spec.name, cell.sample_id): (spec, cell)
        for spec in specs
        for cell in spec.cells
    }
    found = ledger.open_submissions(state.paths, stage=context.stage)
    held = {key for submission in found for key in submission.requests}
    state.priced = frozenset(key for key in state.cells if key not in held)
    state.waiting = ledger.owned(found, context.shard)
    display = WaitingDisplay(context.display)
    try:
        with signals.interrupts_as_flag():
            _look(state)  # what finished while nobody watched comes in first
            if not signals.stop_requested():
                submit_all(state, specs)
            while state.waiting and not signals.stop_requested():
                display.show(state.waiting, state.statuses, state.answered)
                _sleep(poll_seconds())
                if _look(state) and not signals.stop_requested():
                    # an ended batch showed its replies and freed what it held, and
                    # the cells it left unanswered are missing again
                    submit_all(state, specs)
    except KeyboardInterrupt:  # a second Ctrl-C: every batch is recorded already
        state.stopped = True
    _finish(state)
    return outcome


def _sleep(seconds: float) -> None:
    """Wait, waking at once when the run is told to stop."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not signals.stop_requested():
        time.sleep(min(0.05, seconds))


def _finish(state: BatchRun) -> None:
    outcome = state.outcome
    reserve.release(state.context.cap, state.reserved)
    if state.saving_usd:
        outcome.notes.append(
            f"batch mode saved {format_usd(state.saving_usd)} against live prices"
        )
    outcome.record = {
        "submitted": state.submitted,
        "collected": state.collected,
        "requests_answered": len(state.answered),
        "saving_usd": state.saving_usd,
    }
    _left_missing(state)
    outcome.held_open = sum(
        key in state.cells for s in state.waiting for key in s.requests
    )
    if (state.stopped or signals.stop_requested()) and state.waiting:
        outcome.interrupted = True
        held = sum(len(s.requests) for s in state.waiting)
        outcome.notes.append(
            f"{len(state.waiting)} batch(es) holding {held} requests are still open "
            "at the provider (nothing is lost): run the same command later to "
            "collect them"
        )


def _left_missing(state: BatchRun) -> None:
    """A condition whose cells a batch that ended short left unanswered, and that
    this run did not answer either, fails (exit 1) saying so: the run looked
    finished while its cells were missing."""
    if state.stopped or signals.stop_requested():
        return  # an interrupted run's note says to run it again
    waiting = {key for submission in state.waiting for key in submission.requests}
    missing: dict[str, dict[str, int]] = {}
    for key, how in state.unanswered.items():
        if key in state.answered or key in waiting or key not in state.cells:
            continue
        reason = "unapproved" if key in state.unapproved else how
        counts = missing.setdefault(state.cells[key][0].name, {})
        counts[reason] = counts.get(reason, 0) + 1
    for condition_id, counts in missing.items():
        state.outcome.fail(condition_id, _missing_message(counts))


def _missing_message(counts: dict[str, int]) -> str:
    ended = {how: n for how, n in counts.items() if how != "unapproved"}
    parts = [f"{n} request(s) of a batch that ended {how}" for how, n in ended.items()]
    text = (
        f"{', '.join(parts)} went unanswered and stay missing (a cell goes once per "
        "run); "
        if parts
        else ""
    )
    unapproved = counts.get("unapproved", 0)
    if unapproved:
        text += (
            f"{unapproved} cell(s) that an earlier run's batch left unanswered were "
            "not submitted again: the estimate this run was approved on left them "
            "out (an open batch held them then), and they would cross the spend "
            "gate; "
        )
    return text + "run the same command to submit them again (its estimate prices them)"


# ---- looking at open batches --------------------------------------------------------


def _look(state: BatchRun) -> bool:
    """Ask the provider about every open batch; store the results of those that
    ended. True when one ended."""
    import openai

    still, ended = [], False
    for submission in state.waiting:
        try:
            submission = _attach(state, submission)
            if submission.batch_id is None:
                continue  # never created: its cells are missing again
            status = state.client(submission.model).retrieve(submission.batch_id)
        except openai.APIError as exc:  # a provider hiccup: look again next time
            state.outcome.notes.append(f"batch {submission.id}: {exc}")
            still.append(submission)
            continue
        state.statuses[submission.id] = status
        if status.status in TERMINAL:
            _collect(state, submission, status)
            ended = True
        else:
            if status.status != submission.status:
                submission = ledger.update(
                    state.paths, submission, status=status.status
                )
            still.append(submission)
    state.waiting = still
    if ended:  # what the open batches hold, at the reply lengths now seen
        context = state.context
        pace.reprice(context.cap, context.prices, still, state.reserved)
    return ended


def _attach(state: BatchRun, submission: ledger.Submission) -> ledger.Submission:
    """A record without a batch id (killed between creating the batch and recording
    it): find the batch by its input file, or close the record when none exists."""
    if submission.batch_id is not None:
        return submission
    found = None
    if submission.file_id is not None:
        client = state.client(submission.model)
        found = client.find_by_file(submission.file_id, submission.created_at)
    if found is None:
        return ledger.update(
            state.paths, submission, state="closed", note="never created"
        )
    return ledger.update(state.paths, submission, batch_id=found)


def _collect(state: BatchRun, submission: ledger.Submission, status: Status) -> int:
    """Turn an ended batch's output and error lines into rows, then close its
    record: requests it never answered (expired, failed, cancelled) are missing
    cells again."""
    client = state.client(submission.model)
    lines = client.lines(status.output_file_id) + client.lines(status.error_file_id)
    factor = submission.price_factor
    log_file = f"{ledger.FOLDER}/{submission.id}.json"
    rows: list[tuple[str, dict[str, Any]]] = []
    answers: list[tuple[str, Cell | None, dict[str, Any], str | None]] = []
    for line in lines:
        request = submission.requests.get(line.get("custom_id", ""))
        if request is None:
            continue
        sample = result(
            line,
            request,
            submission.config,
            log_file=log_file,
            logprob_tokens=state.context.logprob_tokens,
        )
        pace.learn(state.context.cap, submission, sample.usage)
        store, row = state.sink(sample)
        if row.get("usd") is not None:
            live = row["usd"]
            row["usd"] = live * factor
            state.saving_usd += live - row["usd"]
        rows.append((store, row))
        state.answered.add(line["custom_id"])
        planned = state.cells.get(line["custom_id"])
        body = (line.get("response") or {}).get("body") or {}
        answers.append((line["custom_id"], planned and planned[1], body, sample.error))
    _store(state, rows)
    answered = {key for key in submission.requests if key in state.answered}
    for key in submission.requests:
        if key not in answered:
            state.unanswered[key] = status.status
    cache.store(_answered(state, lines))
    _log(state, submission, answers)
    state.collected += 1
    actual = sum(r["usd"] or 0.0 for _, r in rows)
    reserve.settle(state.context.cap, state.reserved, submission.id, actual)
    ledger.update(state.paths, submission, state="closed", status=status.status)
    return len(rows)


def _log(state: BatchRun, submission: ledger.Submission, answers: list[Any]) -> None:
    """The batch's inspect log beside the stage's live logs; a log that cannot be
    written loses no row (they are stored already)."""
    from .log import write

    paths = state.paths
    folder = paths.logs_generate if submission.stage == "generate" else paths.logs_grade
    try:
        write(folder, submission, answers)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        state.outcome.notes.append(f"batch {submission.id}: no inspect log: {exc}")


def _answered(state: BatchRun, lines: list[dict[str, Any]]) -> list[cache.Answered]:
    """The answers of the cells this run planned, for inspect's cache."""
    found = []
    for line in lines:
        response = line.get("response") or {}
        planned = state.cells.get(line.get("custom_id", ""))
        if planned is not None and response.get("status_code") == 200:
            found.append((*planned, response.get("body") or {}))
    return found


def _store(state: BatchRun, rows: list[tuple[str, dict[str, Any]]]) -> None:
    context = state.context
    with JournalWriter(context.paths, context.run_id) as journal:
        for store, row in rows:
            journal.append(store, row)
    for _, row in rows:
        state.journaled(row)
    if context.shard is None:
        try:
            replay_journals(context.paths)
        except OSError as exc:  # the journal keeps the rows for the next command
            state.outcome.write_failed(exc, getattr(exc, "filename", None))
