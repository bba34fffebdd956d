"""Cascades inside `itemeval grade`: their scorers first ($0, while planning), the
judge only on what they leave undecided."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...plan.stage_plan import Settled
from ...records import GradeCondition
from ...store.table import coerce_rows
from ...study import cascade
from .verifiable import (
    Batches,
    Solutions,
    pending_groups,
    score_context,
    solution_texts,
    verifiable_row,
)


def settle_cascades(
    solutions: Solutions,
    todo: pd.DataFrame,
    grade: list[GradeCondition],
    *,
    run_id: str,
) -> tuple[pd.DataFrame, Settled]:
    """Run the cascades' first stages ($0) over their pending solutions: the plan
    less what they decided (so judges are planned, priced and asked only for the
    rest), and the decided rows to write."""
    by_id = {c.id: c for c in cascade.cascades(grade)}
    settled = Settled(rows=[], trails={})
    if not by_id or todo.empty:
        return todo, settled
    items = {item.id: item for item in solutions.items}
    keep = [True] * len(todo)
    for gen_id, groups in pending_groups(todo, by_id).items():
        texts = solution_texts(solutions.paths, gen_id)
        for grade_id, positions in groups:
            condition, chunk = by_id[grade_id], todo.iloc[positions]
            keys = [(i, int(e)) for i, e in zip(chunk["item_id"], chunk["epoch"])]
            answers = [(texts.get(k) or "", items[k[0]], k[1]) for k in keys]
            trails = cascade.run_first(
                condition, answers, score_context, solutions.config_dir
            )
            hashes = chunk["solution_hash"].tolist()
            for pos, key, solution_hash, trail in zip(positions, keys, hashes, trails):
                if trail.decided is None:
                    settled.trails[(grade_id, gen_id, *key)] = trail
                    continue
                keep[pos] = False
                row = verifiable_row(
                    condition, (gen_id, *key), solution_hash, trail.decided[1],
                    run_id=run_id,
                )  # fmt: skip
                settled.rows.append(cascade.decided_row(row, trail))
    return todo[keep].reset_index(drop=True), settled


def write_settled(settled: Settled, written: Batches) -> None:
    by_condition: dict[str, list[dict[str, Any]]] = {}
    for row in settled.rows:
        by_condition.setdefault(row["grade_condition_id"], []).append(row)
    for grade_id, rows in by_condition.items():
        written.add(grade_id, coerce_rows("grades", rows))
    written.flush()
