"""The study's open batches as `status` and `itemeval batches` show them, and
cancelling them (README "Batch mode")."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ...paths import StudyPaths
from ...plan.pricing import format_usd, total_usd
from . import ledger
from .display import age_text

if TYPE_CHECKING:
    from ...records import Shard


def batch_rows(paths: StudyPaths, now: float | None = None) -> list[dict[str, Any]]:
    """One row per open batch: ids, stage, model, age, requests, last known state."""
    now = time.time() if now is None else now
    return [
        {
            "submission": s.id,
            "batch_id": s.batch_id,
            "stage": s.stage,
            "model": s.model,
            "run_id": s.run_id,
            "age_s": round(now - s.created_at, 1),
            "age": age_text(now - s.created_at),
            "requests": len(s.requests),
            "state": s.status,
        }
        for s in ledger.open_submissions(paths)
    ]


def not_of(
    paths: StudyPaths, stage: str, shards: list[Shard]
) -> list[ledger.Submission]:
    """The stage's open batches that none of `shards` would collect (made by a run
    of the whole study, or by other shards)."""
    keys = {ledger.shard_key(shard) for shard in shards}
    found = ledger.open_submissions(paths, stage=stage)
    return [s for s in found if s.shard not in keys]


def held_by_open(paths: StudyPaths, stages: tuple[str, ...]) -> dict[str, Any] | None:
    """What the stages' open batches hold: the provider bills them when they end,
    and the run that collects them holds their worst case under its cap. None when
    there are none."""
    from .reserve import worst_usd

    found = [s for s in ledger.open_submissions(paths) if s.stage in stages]
    if not found:
        return None
    return {
        "batches": len(found),
        "requests": sum(len(s.requests) for s in found),
        "usd_worst": total_usd(worst_usd(s) for s in found),
    }


def held_note(held: dict[str, Any]) -> str:
    worst = held["usd_worst"]
    cost = "an unknown amount" if worst is None else f"up to {format_usd(worst)}"
    return (
        f"{held['batches']} open batch(es) of earlier runs hold {held['requests']} "
        f"requests (not counted above): {cost} more when they end; a run under "
        "max_usd holds that first"
    )


def cancel_open(paths: StudyPaths) -> list[dict[str, Any]]:
    """Ask the provider to cancel every open batch. Each stays recorded as open, so
    the next generate or grade collects what it answered before it stopped; its
    other requests are then missing cells."""
    import openai

    from .client import BatchClient

    rows = []
    for submission in ledger.open_submissions(paths):
        if submission.batch_id is None:
            continue
        try:
            state = BatchClient(submission.model).cancel(submission.batch_id)
        except openai.APIError as exc:
            state = f"cancel failed: {exc}"
        else:
            ledger.update(paths, submission, status=state)
        rows.append(
            {
                "submission": submission.id,
                "batch_id": submission.batch_id,
                "state": state,
            }
        )
    return rows


def render(rows: list[dict[str, Any]], say: Any) -> None:
    """The open batches as text lines (`say` prints one)."""
    if not rows:
        say("no open batches")
        return
    say(f"open batches: {len(rows)}")
    for row in rows:
        say(
            f"  {row['batch_id'] or '(being created)'}  {row['stage']}  "
            f"{row['model']}  {row['requests']} requests  {row['state']}  "
            f"age {row['age']}"
        )
