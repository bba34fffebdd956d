"""Submitting a run's cells as provider batches (README "Batch mode"): each batch's
worst case held under the cap, then recorded in the ledger, uploaded and created;
none of a cell an open batch holds or this run already sent or collected."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ... import signals
from ...plan.cost import worst_case_usd
from ...records import Cell, TaskSpec
from ...redact import redact
from . import ledger, pace
from .requests import request_key, request_line, sent_bytes

if TYPE_CHECKING:
    from .context import BatchContext, BatchRun


def submit_all(state: BatchRun, specs: Sequence[TaskSpec]) -> None:
    import openai

    context = state.context
    held = ledger.held_keys(state.paths, context.stage) | state.answered | state.sent
    todos = {
        spec.name: [
            (key, cell)
            for cell in spec.cells
            if (key := request_key(context.stage, spec.name, cell.sample_id))
            not in held
        ]
        for spec in specs
    }
    _hold_back_unpriced(state, specs, todos)
    for spec in specs:
        todo = todos[spec.name]
        while todo:
            try:
                went = _submit(state, spec, todo)
            except openai.APIError as exc:  # e.g. a host without a Batch API
                _failed(state, spec, exc)
                break
            if went is None:
                return
            if went == 0:
                break  # the rest waits for a batch that is open (pace.py)
            todo = todo[went:]


def _hold_back_unpriced(
    state: BatchRun,
    specs: Sequence[TaskSpec],
    todos: dict[str, list[tuple[str, Cell]]],
) -> None:
    """Cells an earlier run's batch held when this run's estimate was approved (so
    it did not price them) and that came back unanswered go again only as far as
    the approval reaches: with --yes, without a gate, or while the approved ceiling
    plus their worst case stays within `confirm_above_usd`. The rest stay missing
    (executor._left_missing says so) for the next run's estimate to price."""
    from ...plan.budget import may_spend_more

    context = state.context
    extra: dict[str, list[tuple[str, Cell]]] = {}
    worst: list[float | None] = []
    for spec in specs:
        unpriced = [
            (k, c)
            for k, c in todos[spec.name]
            if k not in state.priced and k not in state.approved
        ]
        if unpriced:
            extra[spec.name] = unpriced
            factor = context.prices.batch_factor(spec.model)
            worst += list(_worst(context, spec, unpriced, factor).values())
    if not extra:
        return
    more = None if None in worst else sum(w for w in worst if w is not None)
    if may_spend_more(
        context.approved_usd + state.extra_usd,
        more,
        confirm_above=context.confirm_above_usd,
        yes=context.yes,
    ):
        state.extra_usd += more or 0.0
        state.approved |= {key for cells in extra.values() for key, _ in cells}
        return
    for name, unpriced in extra.items():
        dropped = {key for key, _ in unpriced}
        state.unapproved |= dropped
        todos[name] = [(k, c) for k, c in todos[name] if k not in dropped]


def _failed(state: BatchRun, spec: TaskSpec, exc: Exception) -> None:
    """A condition whose batch could not be submitted fails (exit 1) without
    stopping the others; its cells stay missing."""
    message = redact(f"batch submission failed: {type(exc).__name__}: {exc}")
    state.outcome.fail(spec.name, message)


def _submit(
    state: BatchRun, spec: TaskSpec, todo: list[tuple[str, Cell]]
) -> int | None:
    """Hold, record, upload and create the next batch of `todo`: as many of its
    cells as `pace` lets go and the cap fits. How many went (0: none may go before
    an open batch ends); None when the spend cap (or a stop) says no further batch
    may go."""
    context = state.context
    cap = context.cap
    size = pace.limit(cap, state.waiting, spec.model, context.size)
    if size == 0:
        return 0
    factor = context.prices.batch_factor(spec.model)
    worst = _worst(context, spec, todo[:size], factor)
    known = [w for w in worst.values() if w is not None]
    total = None
    if cap is not None and len(known) == len(worst):
        size = cap.hold_most(known)
        if size == 0 and state.waiting:
            return 0  # an open batch may cost less than it holds: wait for it
        if size == 0:
            cap.stopped = True
            return None
        total = sum(known[:size])
    chunk = todo[:size]
    requests = {
        key: ledger.Request(spec.name, cell.metadata, worst[key], sent_bytes(cell))
        for key, cell in chunk
    }
    submission = ledger.Submission(
        id=ledger.new_id(),
        stage=context.stage,
        model=spec.model,
        run_id=context.run_id,
        config=dict(spec.config),
        requests=requests,
        price_factor=factor,
        shard=ledger.shard_key(context.shard),
    )
    if total is not None:
        state.reserved[submission.id] = total
    try:
        submission = _create(state, spec, chunk, submission)
    except Exception:  # nothing was created: nothing is billed or held
        from .reserve import settle

        settle(cap, state.reserved, submission.id, 0.0)
        raise
    state.waiting.append(submission)
    state.sent.update(requests)
    state.submitted += 1
    return None if signals.stop_requested() else size


def _create(
    state: BatchRun,
    spec: TaskSpec,
    chunk: list[tuple[str, Cell]],
    submission: ledger.Submission,
) -> ledger.Submission:
    """Upload the requests, record them (with the study, before the batch exists),
    create the batch, record its id."""
    import openai

    client = state.client(spec.model)
    file_id = client.upload([request_line(spec, cell, key) for key, cell in chunk])
    submission = ledger.update(state.paths, submission, file_id=file_id)
    try:
        batch_id = client.create(
            file_id,
            {"itemeval_study": state.context.study, "itemeval": submission.id},
        )
    except openai.APIStatusError:  # refused: no batch exists, its cells are free
        ledger.update(state.paths, submission, state="closed", note="refused")
        raise
    return ledger.update(
        state.paths, submission, batch_id=batch_id, status="validating"
    )


def _worst(
    context: BatchContext, spec: TaskSpec, chunk: list[tuple[str, Cell]], factor: float
) -> dict[str, float | None]:
    """The most each request can cost at its batch price, with a reply of max_tokens
    or of the longest the model gave in this run (None: the model is unpriced), by
    custom id."""
    price = context.prices.lookup(spec.model)
    reply = pace.ceiling(context.cap, spec.model, spec.config.get("max_tokens"))
    return {
        key: None
        if price is None
        else factor * worst_case_usd(price, _prompt_text(cell), reply)
        for key, cell in chunk
    }


def _prompt_text(cell: Cell) -> str:
    return "\n".join([*(text for _, text in cell.preamble), cell.prompt])
