"""What a capped run holds for provider batches (README "Batch mode"): a batch is billed
as a whole when it ends, whoever collects it, so its worst case is held under the cap
from before it is submitted (or, for a batch an earlier run left open, from before
this run starts anything) until its results show what it cost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...plan.pricing import format_usd
from . import ledger

if TYPE_CHECKING:
    from ...plan.budget import SpendCap
    from .context import BatchContext


def worst_usd(submission: ledger.Submission) -> float | None:
    """The most the batch can cost (its requests' worst cases at its batch price);
    None when one is unknown (an unpriced model)."""
    worst = [r.worst_usd for r in submission.requests.values()]
    if not worst or any(w is None for w in worst):
        return None
    return float(sum(w for w in worst if w is not None))


def hold_open(context: BatchContext) -> tuple[dict[str, float], list[str]]:
    """Before a capped run starts anything: hold the worst case of the stage's batches
    that earlier runs left open (this run collects them and the provider bills them).
    What is held, by submission id, and the notes that say so."""
    cap = context.cap
    if cap is None:
        return {}, []
    held, unknown, notes = {}, 0, []
    found = ledger.open_submissions(context.paths, stage=context.stage)
    for submission in ledger.owned(found, context.shard):
        worst = worst_usd(submission)
        if worst is None:
            unknown += 1
        else:
            held[submission.id] = worst
    cap.spent += sum(held.values())
    if held:
        notes.append(
            f"{len(held)} batch(es) left open by earlier runs may cost up to "
            f"{format_usd(sum(held.values()))}: held under max_usd until collected"
        )
    if unknown:
        notes.append(
            f"{unknown} open batch(es) of an unpriced model: their cost is not held "
            "under max_usd"
        )
    return held, notes


def settle(
    cap: SpendCap | None, held: dict[str, float], key: str, actual: float
) -> None:
    """A batch that ended: what it held becomes what it cost."""
    worst = held.pop(key, None) or 0.0
    if cap is not None:
        cap.spent += actual - worst


def release(cap: SpendCap | None, held: dict[str, float]) -> None:
    """At the end of a run, what its still-open batches held: they are billed when
    they end, and the run that collects them holds them again."""
    if cap is not None:
        cap.spent -= sum(held.values())
    held.clear()
