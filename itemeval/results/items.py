"""`itemeval results --items`: per item and grade condition, the item analysis of
`stats.item_analysis` over the study's stored grades (README "Spending less")."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..plan.state import grade_state
from ..records import GradeCondition
from ..stats import item_analysis as ia
from ..study.load import Study
from ..wide import pivot_mean

ITEM_COLUMNS = (
    "grade_condition_id",
    "item_id",
    "difficulty",
    "discrimination",
    "irt_a",
    "irt_b",
    "flags",
    "conditions",
    "consensus_answer",
    "consensus_share",
    "target",
)


def graded_answers(study: Study, grade: list[GradeCondition]) -> pd.DataFrame:
    """The current scored grades with what the scorer read: gen_condition_id,
    grade_condition_id, item_id, epoch, score, answer."""
    state = grade_state(study, grade, extra=("score", "answer"))
    done = state[(state["state"] == "done") & state["score"].notna()]
    columns = ["gen_condition_id", "grade_condition_id", "item_id", "epoch", "score"]
    return done.assign(answer=done["answer"])[[*columns, "answer"]]


def study_items(
    study: Study, grade: list[GradeCondition], *, irt: bool = True
) -> list[dict[str, Any]]:
    """One row per (grade condition, item) with ITEM_COLUMNS; flags a list of names.

    `irt=False` skips the 2PL fit (seconds to minutes on hundreds of items): its columns
    are then NaN and no flag depends on it."""
    graded = graded_answers(study, grade)
    targets = {item.id: item.target for item in study.items}
    # split once: comparing a million ids with each condition's took 0.2 s
    by_condition = dict(list(graded.groupby("grade_condition_id", sort=False)))
    rows: list[dict[str, Any]] = []
    for condition in grade:
        frame = by_condition.get(condition.id)
        if frame is not None and not frame.empty:
            rows += _condition_items(condition.id, frame, targets, irt=irt)
    return rows


def _condition_items(
    grade_id: str, frame: pd.DataFrame, targets: dict[str, str], *, irt: bool
) -> list[dict[str, Any]]:
    scores = pivot_mean(frame, "item_id", "gen_condition_id", "score")
    figures = _item_figures(frame, scores, irt=irt)
    agreed = _consensus(frame)
    rows = []
    for i, item_id in enumerate(scores.index):
        found = agreed.get(item_id, ia.Consensus(None, np.nan, 0, False))
        raised = ia.flags(
            suspect=ia.suspect_target(found),
            silent=bool(figures["silent"][i]),
            discriminates=figures["discrimination"][i],
        )
        rows.append(
            {
                "grade_condition_id": grade_id,
                "item_id": item_id,
                **{key: figures[key][i] for key in _FIGURES},
                "flags": list(raised),
                "conditions": int(figures["conditions"][i]),
                "consensus_answer": found.answer,
                "consensus_share": found.share,
                "target": targets.get(item_id),
            }
        )
    return rows


_FIGURES = ("difficulty", "discrimination", "irt_a", "irt_b")
"""An item's figures in the order its row shows them."""


def _item_figures(
    frame: pd.DataFrame, scores: pd.DataFrame, *, irt: bool
) -> dict[str, np.ndarray]:
    """Per item (the rows of `scores`, item × generate condition): difficulty,
    discrimination, the 2PL IRT parameters (NaN unless `irt`), whether it carries no
    signal, and how many conditions scored it."""
    responses = pivot_mean(
        frame, "item_id", ["gen_condition_id", "epoch"], "score"
    ).reindex(scores.index)
    matrix = scores.to_numpy(dtype=float)
    nothing = np.full(len(matrix), np.nan)
    irt_a, irt_b = (
        ia.irt_2pl(responses.to_numpy(dtype=float)) if irt else (nothing, nothing)
    )
    return {
        "difficulty": ia.difficulty(matrix),
        "discrimination": ia.discrimination(matrix),
        "irt_a": irt_a,
        "irt_b": irt_b,
        "silent": ia.no_signal(matrix),
        "conditions": (~np.isnan(matrix)).sum(axis=1),
    }


def _consensus(frame: pd.DataFrame) -> dict[str, ia.Consensus]:
    """Per item: each condition's most frequent answer (over its replications; a tie
    goes to the answer given first) and whether that answer's grades were right, then
    the answer most conditions share (a tie: the first condition's, in id order).

    Counted over integer codes: a loop over the report's 200,000 (item, condition)
    groups took minutes on a million grades, a pandas groupby of their strings a
    third of a second per grade condition (issue 27)."""
    answered = frame[frame["answer"].notna()]
    item, items = pd.factorize(answered["item_id"], sort=True)
    gen, gens = pd.factorize(answered["gen_condition_id"], sort=True)
    answer, answers = pd.factorize(answered["answer"].astype(str).str.strip())
    scores = answered["score"].to_numpy(dtype=float)
    cell, chosen, rows, sums = _modal(item * len(gens) + gen, answer, scores)
    given = np.asarray(answers, dtype=object)[chosen] != ""
    right = (sums / np.maximum(rows, 1) >= 0.5)[given]
    of_item = cell[given] // max(len(gens), 1)
    answered_by = np.bincount(of_item, minlength=len(items))
    best = zip(*(a.tolist() for a in _modal(of_item, chosen[given], right * 1.0)))
    named, said, by = items.tolist(), answers.tolist(), answered_by.tolist()
    return {
        named[k]: ia.Consensus(said[a], n / by[k], by[k], r * 2 > n)
        for k, a, n, r in best
    }


def _modal(
    group: np.ndarray, answer: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group, in ascending order: the answer with the most rows (a tie: the one
    seen first), its rows and the sum of their `values`."""
    if not len(group):
        return group, answer, group, values
    width = int(answer.max()) + 1
    keys = group.astype(np.int64) * width + answer
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rows = np.bincount(inverse)
    sums = np.bincount(inverse, weights=values, minlength=len(unique))
    owner = unique // width
    ranked = np.lexsort((first, -rows, owner))
    top = ranked[np.r_[True, owner[ranked][1:] != owner[ranked][:-1]]]
    return owner[top], unique[top] % width, rows[top], sums[top]


def items_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The rows as a table (flags joined by `;`), for --csv."""
    frame = pd.DataFrame(rows, columns=list(ITEM_COLUMNS))
    return frame.assign(flags=frame["flags"].map(lambda f: ";".join(f or [])))


def flags_of(
    study: Study, grade: list[GradeCondition], item_id: str
) -> dict[str, list]:
    """{grade condition slug: flags} of one item, for `show` (empty lists dropped)."""
    slugs = {c.id: c.slug for c in grade}
    return {
        slugs[row["grade_condition_id"]]: row["flags"]
        for row in study_items(study, grade, irt=False)
        if row["item_id"] == item_id and row["flags"]
    }
