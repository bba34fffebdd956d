"""The labelling routes of the active queue (`view --label --active`): the next answer
is drawn when the rater asks for one, and its draw is written with its label; without
--active they hand over to the fixed queue's routes (view/pages.py)."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..errors import ConfigError
from ..records import GradeCondition
from ..results.active_queue import ActiveQueue, judge_pool, label_draws, pick_judge
from ..results.label_queue import KEY, label_status, queue_labels
from ..results.labels import Scale, label_row
from ..scorers.criteria import criteria_of
from ..study.load import Study
from . import pages


def build_labelling(study: Study, settings: Any) -> dict[str, Any]:
    """The fixed queue's context, and with --active the active queue (its judge
    checked before the server starts: a study without one is exit 2)."""
    context = pages.build_labelling(study, settings)
    options = settings.queue
    if options.active:
        context["active"] = active_queue(
            study, context["condition"], context["scale"], options
        )
    return context


def active_queue(
    study: Study, rater: GradeCondition, scale: Scale, options: Any
) -> ActiveQueue:
    if options.sample is not None:
        raise ConfigError(
            "--sample fixes a uniform queue's length; --active draws from every "
            "answer until you stop: leave one of them out"
        )
    judge = pick_judge(study, rater, options.judge)
    pool = judge_pool(study, judge, options.seed)
    return ActiveQueue(pool, judge, scale, share=options.share, seed=options.seed)


async def label(request: Request) -> Response:
    context = pages.labelling(request)
    queue: ActiveQueue | None = context["active"]
    if queue is None:
        return await pages.label(request)
    study: Study = request.app.state.study
    labels = await run_in_threadpool(queue_labels, study, context["condition"])
    position = await run_in_threadpool(_position, request, study, context, labels)
    entry = queue.entries[position] if position < len(queue.entries) else None
    answer = (
        await run_in_threadpool(pages.answer_of, study, entry, context["rubric"])
        if entry
        else None
    )
    key = (
        (entry["condition_id"], entry["item_id"], int(entry["epoch"]))
        if entry
        else None
    )
    return pages.render_page(
        request,
        "label.html",
        position=position,
        size=len(queue.entries),
        done=int(queue.labelled(labels).sum()),
        pool=len(queue.pool),
        active=True,
        entry=entry,
        answer=answer,
        current=labels.get(key) if key else None,
        status=label_status(entry, labels) if entry else None,
        blind=request.app.state.settings.label.queue.blind,
        slugs={c.id: c.slug for c in study.generate},
        rater=context["condition"].grader_name,
        rubric=context["rubric"],
        scale=context["scale"],
    )


def _position(request: Request, study: Study, context: dict, labels: dict) -> int:
    """`at` a shown answer; the last one while it waits for its label; else a new
    draw (`at` one past the last: a skip, which drops the unlabelled draw)."""
    queue: ActiveQueue = context["active"]
    entries = queue.entries
    at = request.query_params.get("at")
    if at is not None:
        if not at.isdigit() or int(at) > len(entries):
            raise HTTPException(400, f"at must be from 0 to {len(entries)}")
        if int(at) < len(entries):
            return int(at)
    elif entries and label_status(entries[-1], labels) != "labelled":
        return len(entries) - 1
    free: list[dict] = []
    position = queue.draw(labels, free)
    _record_free(study, context, labels, free)
    return len(entries) if position is None else position


def _record_free(study: Study, context: dict, labels: dict, free: list[dict]) -> None:
    """Draws of answers already labelled: each appended to its label's draws, one
    write per label."""
    by_key: dict[tuple, list[dict]] = {}
    entries: dict[tuple, dict] = {}
    for found in free:
        entry = found["entry"]
        key = (entry["condition_id"], entry["item_id"], int(entry["epoch"]))
        by_key.setdefault(key, []).append(found["draw"])
        entries[key] = entry
    writer = context["writer"]
    for key, draws in by_key.items():
        label = labels[key]
        row = label_row(
            context["condition"],
            entries[key],
            label["score"],
            criteria=criteria_of(label.get("score_metadata")) or None,
            draws=[*label_draws(label), *draws],
            run_id=writer.run_id,
        )
        writer.write(row)
        labels[key] = row


async def post_label(request: Request) -> Response:
    """A label of an answer the active queue drew (JSON {position, score} or
    {position, criteria}, position in the session's draws), written with the
    probability it was drawn with."""
    context = pages.labelling(request)
    queue: ActiveQueue | None = context["active"]
    if queue is None:
        return await pages.post_label(request)
    body = await pages.label_body(request)
    position = body["position"]
    if isinstance(position, bool) or not isinstance(position, int):
        raise HTTPException(400, "position must be a whole number")
    if not 0 <= position < len(queue.entries):
        raise HTTPException(400, f"position must be from 0 to {len(queue.entries) - 1}")
    score, criteria = pages.score_of(body, context["scale"])
    study: Study = request.app.state.study
    entry = queue.entries[position]
    solution = await run_in_threadpool(pages.solution_of, study, entry)
    labels = await run_in_threadpool(queue_labels, study, context["condition"])
    before = labels.get(tuple(entry[k] for k in KEY[:2]) + (int(entry["epoch"]),))
    current = (
        before if before and before["solution_hash"] == entry["solution_hash"] else None
    )
    draws = label_draws(current)
    if not entry["recorded"]:
        draws.append(entry["draw"])
    writer = context["writer"]
    row = label_row(
        context["condition"],
        solution,
        score,
        criteria=criteria,
        draws=draws,
        run_id=writer.run_id,
    )
    where = await run_in_threadpool(writer.write, row)
    entry["recorded"] = True
    return JSONResponse({"ok": True, "stored_in": where, "next": position + 1})
