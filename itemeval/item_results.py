"""`itemeval results --items`: per item and grade condition, the item analysis of
`itemeval.item_analysis` over the study's stored grades (README "Spending less")."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import item_analysis as ia
from .records import GradeCondition
from .state import grade_state
from .study import Study

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
    rows: list[dict[str, Any]] = []
    for condition in grade:
        frame = graded[graded["grade_condition_id"] == condition.id]
        if not frame.empty:
            rows += _condition_items(condition.id, frame, targets, irt=irt)
    return rows


def _condition_items(
    grade_id: str, frame: pd.DataFrame, targets: dict[str, str], *, irt: bool
) -> list[dict[str, Any]]:
    scores = frame.pivot_table(
        index="item_id", columns="gen_condition_id", values="score", aggfunc="mean"
    )
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
    responses = frame.pivot_table(
        index="item_id", columns=["gen_condition_id", "epoch"], values="score"
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

    Grouped once, not per (item, condition): a loop over the report's 200,000 groups
    took minutes on a million grades (issue 27)."""
    answered = frame[frame["answer"].notna()]
    rows = pd.DataFrame(
        {
            "item_id": answered["item_id"].to_numpy(),
            "gen": answered["gen_condition_id"].to_numpy(),
            "answer": answered["answer"].astype(str).str.strip().to_numpy(),
            "score": answered["score"].to_numpy(dtype=float),
            "order": np.arange(len(answered)),
        }
    )
    modal = _first_most(rows, ["item_id", "gen"], "order", score=("score", "mean"))
    given = modal[modal["answer"] != ""].assign(right=lambda m: m["score"] >= 0.5)
    given = given.assign(rank=np.arange(len(given)))
    best = _first_most(given, ["item_id"], "rank", right=("right", "sum"))
    answered_by = given.groupby("item_id", sort=False).size().to_dict()
    return {
        item_id: ia.Consensus(
            answer,
            count / answered_by[item_id],
            answered_by[item_id],
            right * 2 > count,
        )
        for item_id, answer, count, right in zip(
            best["item_id"].tolist(),
            best["answer"].tolist(),
            best["count"].tolist(),
            best["right"].tolist(),
        )
    }


def _first_most(rows: pd.DataFrame, keys: list[str], order: str, **extra):
    """Per `keys`, the answer with the most rows (ties: the smallest `order`), with
    its count and the `extra` aggregates; sorted by `keys`."""
    counted = (
        rows.groupby([*keys, "answer"], sort=False)
        .agg(count=(order, "size"), first=(order, "min"), **extra)
        .reset_index()
    )
    ranked = counted.sort_values(
        [*keys, "count", "first"],
        ascending=[*(True for _ in keys), False, True],
        kind="stable",
    )
    return ranked.drop_duplicates(keys).reset_index(drop=True)


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
