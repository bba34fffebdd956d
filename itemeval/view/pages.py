"""The view's routes: each parses its request, calls library functions and renders one
template."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ..errors import ItemevalError
from ..results.compute import study_results
from ..results.label_queue import label_queue, label_status, next_position, queue_labels
from ..results.labels import (
    human_condition,
    label_row,
    pick_rubric,
    rubric_scale,
)
from ..results.options import ResultsOptions
from ..results.show import item_view
from ..results.status import study_status
from ..scorers.criteria import rubric_criteria
from ..stages.label_writer import LabelWriter
from ..store import read_store
from ..study.load import Study
from ..study.prompts import render
from .data import PER_PAGE, SORTS, ItemQuery, item_table, mixes_scales, query_items


def render_page(request: Request, name: str, **context: Any) -> HTMLResponse:
    settings = request.app.state.settings
    study: Study = request.app.state.study
    page = request.app.state.templates.get_template(name)
    body = page.render(
        token=settings.token,
        study=study.config.study,
        labelling=settings.label is not None,
        blind_view=settings.label is not None and settings.label.queue.blind,
        **context,
    )
    return HTMLResponse(body)


def _study(request: Request) -> Study:
    return request.app.state.study


# ---- the grid
# ------------------------------------------------------------------------------------


async def grid(request: Request) -> Response:
    study = _study(request)
    figures = await run_in_threadpool(
        request.app.state.cache.get, "grid", study, lambda: _grid_figures(study)
    )
    return render_page(request, "grid.html", **figures)


def _grid_figures(study: Study) -> dict[str, Any]:
    """The `results` and `status` figures, not a second computation."""
    report = study_results(study, ResultsOptions())
    status = study_status(study)
    return {
        "results": report,
        "slugs": report.slugs,
        "generate": [
            {**asdict(row), "condition": row.condition.slug} for row in status.generate
        ],
        "grade": [
            {**asdict(row), "condition": row.condition.slug} for row in status.grade
        ],
        "notes": status.notes,
    }


def warm(app: Any) -> None:
    """Build what the grid and the items page show before anyone asks (a large study
    takes seconds)."""
    study, cache = app.state.study, app.state.cache
    try:
        cache.get("grid", study, lambda: _grid_figures(study))
        cache.get("items", study, lambda: item_table(study))
    except (ItemevalError, OSError):
        pass  # the page itself will say what is wrong when someone opens it


# ---- items ---------------------------------------------------------------------------
# ------------


def _number(request: Request, name: str) -> float | None:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise HTTPException(400, f"{name} must be a number, not {raw[:40]!r}") from None
    if not math.isfinite(value):
        raise HTTPException(400, f"{name} must be a finite number")
    return value


def _query(request: Request) -> ItemQuery:
    params = request.query_params
    sort = params.get("sort", "id")
    if sort not in SORTS:
        raise HTTPException(400, f"sort must be one of {', '.join(SORTS)}")
    page = _number(request, "page")
    page = 1 if page is None else page
    if page < 1 or page != int(page):
        raise HTTPException(400, "page must be a whole number from 1")
    return ItemQuery(
        condition=params.get("condition") or None,
        grade=params.get("grade") or None,
        score_min=_number(request, "score_min"),
        score_max=_number(request, "score_max"),
        parse_failure=params.get("parse_failure") == "1",
        error=params.get("error") == "1",
        disagree=params.get("disagree") == "1",
        meta_key=params.get("meta_key") or None,
        meta_value=params.get("meta_value"),
        sort=sort,
        page=int(page),
    )


async def items(request: Request) -> Response:
    study = _study(request)
    query = _query(request)
    table = await run_in_threadpool(
        request.app.state.cache.get, "items", study, lambda: item_table(study)
    )
    rows, total = await run_in_threadpool(query_items, table, query)
    from ..results.compute import grade_conditions

    return render_page(
        request,
        "items.html",
        query=query,
        rows=rows.to_dict("records"),
        total=total,
        pages=max(1, -(-total // PER_PAGE)),
        generate=[(c.id, c.slug) for c in study.generate],
        grade=[(c.id, c.slug) for c in grade_conditions(study)],
        metadata_keys=table.metadata_keys,
        rescaled=mixes_scales(table, query),
        params={
            k: v for k, v in request.query_params.items() if k not in ("page", "token")
        },
    )


# ---- one item
# ------------------------------------------------------------------------------------


async def item(request: Request) -> Response:
    study = _study(request)
    item_id = request.query_params.get("id")
    if not item_id:
        raise HTTPException(400, "which item? /item?id=ITEM_ID")
    view = await run_in_threadpool(item_view, study, item_id)
    logs = await run_in_threadpool(_log_files, study, item_id)
    return render_page(
        request,
        "item.html",
        view=view,
        logs=logs,
        log_dir=str(study.paths.root / "logs"),
    )


def _log_files(study: Study, item_id: str) -> dict[tuple[str, int], tuple[str, str]]:
    """The inspect log each of the item's solutions was written to, by (condition,
    epoch): (the folder to give `inspect view --log-dir`, the file's name). A
    generated row names its file in the study's generate logs; an imported one
    keeps the log's own absolute path."""
    rows = read_store(
        study.paths,
        "solutions",
        ["condition_id", "epoch", "log_file"],
        where={"item_id": [item_id], "condition_id": [c.id for c in study.generate]},
    ).to_pylist()
    generate_logs = study.paths.root / "logs" / "generate"
    found = {}
    for row in rows:
        if row["log_file"]:
            path = Path(row["log_file"])
            folder = path.parent if path.is_absolute() else generate_logs
            found[(row["condition_id"], row["epoch"])] = (str(folder), path.name)
    return found


# ---- labelling
# -----------------------------------------------------------------------------------


def labelling(request: Request) -> dict[str, Any]:
    """The rater's condition, rubric, scale and queue (built when the app starts)."""
    labelling = getattr(request.app.state, "labelling", None)
    if labelling is None:
        raise HTTPException(
            404, "not labelling: start `itemeval view CONFIG --label --rater NAME`"
        )
    return labelling


def build_labelling(study: Study, settings: Any) -> dict[str, Any]:
    """Everything the queue needs, checked before the server starts (a bad --rubric is
    exit 2)."""
    rubric = pick_rubric(study, settings.rubric)
    condition = human_condition(settings.rater, rubric)
    scale = rubric_scale(rubric, settings.scale)
    return {
        "condition": condition,
        "rubric": rubric,
        "scale": scale,
        "queue": label_queue(study, settings.queue),
        "writer": LabelWriter(study),
        "active": None,
    }


async def label(request: Request) -> Response:
    study = _study(request)
    context = labelling(request)
    queue = context["queue"]
    labels = await run_in_threadpool(queue_labels, study, context["condition"])
    at = _number(request, "at")
    position = next_position(queue, labels) if at is None else int(at)
    if not 0 <= position <= len(queue):
        raise HTTPException(400, f"at must be from 0 to {len(queue)}")
    done = sum(label_status(e, labels) == "labelled" for e in queue.to_dict("records"))
    entry = queue.iloc[position].to_dict() if position < len(queue) else None
    answer = await run_in_threadpool(_answer, study, entry) if entry else None
    if answer is not None:
        answer["rubric"] = rubric_for(context["rubric"], answer)
    key = (
        (entry["condition_id"], entry["item_id"], int(entry["epoch"]))
        if entry
        else None
    )
    return render_page(
        request,
        "label.html",
        position=position,
        size=len(queue),
        done=done,
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


def rubric_for(rubric: Any, answer: dict[str, Any]) -> str:
    """The rubric as the judge reads it for this answer: its front matter left out,
    its placeholders filled in (the judge's reply format is not the rater's)."""
    item, solution = answer["item"], answer["solution"]
    values = {
        **item.metadata,
        "input": item.input,
        "solution": (solution or {}).get("solution") or "",
        "target": item.target,
        "grading_scheme": item.grading_scheme,
        "id": item.id,
    }
    _, body = rubric_criteria(rubric.text)
    return render(body, values)


def _answer(study: Study, entry: dict[str, Any]) -> dict[str, Any]:
    from ..results.show import find_item

    row = _solution(study, entry["condition_id"], entry["item_id"], int(entry["epoch"]))
    return {"item": find_item(study, entry["item_id"]), "solution": row}


def _solution(
    study: Study, condition_id: str, item_id: str, epoch: int
) -> dict[str, Any]:
    rows = read_store(
        study.paths,
        "solutions",
        ["condition_id", "item_id", "epoch", "solution", "solution_hash", "error"],
        where={"condition_id": [condition_id], "item_id": [item_id]},
    ).to_pylist()
    found = [r for r in rows if r["epoch"] == epoch and r["error"] is None]
    if not found or found[0]["solution"] is None:
        raise HTTPException(404, "no stored answer with that key")
    return found[0]


async def label_body(request: Request) -> dict[str, Any]:
    """A label POST's JSON: {position, score} or {position, criteria}."""
    try:
        body = json.loads(await request.body())
        body["position"]
    except (ValueError, KeyError, TypeError, RecursionError):
        # RecursionError: a body nested past what Python's JSON reader follows
        raise HTTPException(400, "expected JSON {position, score}") from None
    return body


async def post_label(request: Request) -> Response:
    """Write one label (POST, token checked by the guard): JSON {position, score} or
    {position, criteria}, the answer's place in the queue (so a blind page never
    names its condition); answers where it went and the next position."""
    body = await label_body(request)
    position = body["position"]
    context = labelling(request)
    queue = context["queue"]
    if isinstance(position, bool) or not isinstance(position, int):
        raise HTTPException(400, "position must be a whole number")
    if not 0 <= position < len(queue):
        raise HTTPException(400, f"position must be from 0 to {len(queue) - 1}")
    score, criteria = _score(body, context["scale"])
    entry = queue.iloc[position]
    study = _study(request)
    solution = await run_in_threadpool(
        _solution, study, entry["condition_id"], entry["item_id"], int(entry["epoch"])
    )
    writer = context["writer"]
    row = label_row(
        context["condition"], solution, score, criteria=criteria, run_id=writer.run_id
    )
    where = await run_in_threadpool(writer.write, row)
    return JSONResponse({"ok": True, "stored_in": where, "next": position + 1})


def score_of(body: dict[str, Any], scale: Any) -> tuple[float, dict | None]:
    """The label's score (and criteria) a POST body gives, checked on the scale."""
    return _score(body, scale)


def solution_of(study: Study, entry: dict[str, Any]) -> dict[str, Any]:
    """The stored answer of a queue entry (404 when it is gone)."""
    return _solution(
        study, entry["condition_id"], entry["item_id"], int(entry["epoch"])
    )


def answer_of(study: Study, entry: dict[str, Any], rubric: Any) -> dict[str, Any]:
    """An entry's item, answer and rubric as the label page shows them."""
    answer = _answer(study, entry)
    answer["rubric"] = rubric_for(rubric, answer)
    return answer


def _score(body: dict[str, Any], scale: Any) -> tuple[float, dict[str, float] | None]:
    """The label's score on the rubric's scale; with named criteria, their sum is the
    score, as a judge's score is its criteria's total (README "Scores with several
    criteria"), so the two compare like with like."""
    if scale.criteria:
        given = body.get("criteria")
        if not isinstance(given, dict) or set(given) != set(scale.criteria):
            raise HTTPException(
                400, f"criteria must score each of {', '.join(scale.criteria)}"
            )
        values = {name: _on_scale(given[name], scale) for name in scale.criteria}
        return sum(values.values()), values
    return _on_scale(body.get("score"), scale), None


def _on_scale(value: Any, scale: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise HTTPException(400, "score must be a number")
    if value not in scale.values:
        raise HTTPException(400, f"score must be one of {scale.values}")
    return float(value)
