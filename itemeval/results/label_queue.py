"""The labelling queue: which stored answers a rater labels, in an order fixed by the
seed, and where each stands (unlabelled, labelled, or labelled on a text that has
since changed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..records import GradeCondition
from ..stats.active_ppi import SHARE
from ..store import read_store
from ..study.load import Study
from .labels import journaled_labels

KEY = ["condition_id", "item_id", "epoch"]


@dataclass(frozen=True)
class QueueOptions:
    sample: int | None = None
    seed: int = 0
    blind: bool = False
    active: bool = False
    """Draw each next answer by how much its label is expected to narrow the
    corrected means (results/active_queue.py), not in a fixed shuffled order."""
    judge: str | None = None
    """The judge whose verdicts stratify the active queue (slug or id); None: the
    first grading under the rater's rubric."""
    share: float = SHARE
    """The active queue's uniform share: each answer keeps at least share/N."""


def label_queue(study: Study, options: QueueOptions) -> pd.DataFrame:
    """The answers to label, in queue order: columns condition_id, item_id, epoch,
    solution_hash.

    Every stored, error-free, non-blank solution of the grid, shuffled by `seed` (the
    same seed gives the same queue on any machine), the first `sample` of them when
    given."""
    stored = read_store(
        study.paths,
        "solutions",
        [*KEY, "solution_hash", "error", "blank"],
        where={
            "condition_id": [c.id for c in study.generate],
            "item_id": [item.id for item in study.items],
        },
    ).to_pandas()
    ok = stored["error"].isna() & stored["solution_hash"].notna()
    ok &= ~stored["blank"].fillna(False).astype(bool)
    answers = stored.loc[ok, [*KEY, "solution_hash"]].sort_values(KEY)
    order = np.random.default_rng(options.seed).permutation(len(answers))
    queue = answers.iloc[order].reset_index(drop=True)
    return queue if options.sample is None else queue.head(options.sample)


def queue_labels(
    study: Study, condition: GradeCondition
) -> dict[tuple, dict[str, Any]]:
    """The rater's current labels by (condition_id, item_id, epoch): the store's, then
    any still journaled."""
    rows = read_store(
        study.paths,
        "grades",
        [
            "gen_condition_id",
            "item_id",
            "epoch",
            "score",
            "solution_hash",
            "score_metadata",
        ],
        where={"grade_condition_id": [condition.id]},
    ).to_pylist()
    labels = {}
    for row in [*rows, *journaled_labels(study, condition.id)]:
        labels[(row["gen_condition_id"], row["item_id"], int(row["epoch"]))] = row
    return labels


def label_status(entry: dict[str, Any], labels: dict[tuple, dict[str, Any]]) -> str:
    """unlabelled, labelled, or stale (labelled on an older text of the answer)."""
    label = labels.get((entry["condition_id"], entry["item_id"], int(entry["epoch"])))
    if label is None:
        return "unlabelled"
    return "labelled" if label["solution_hash"] == entry["solution_hash"] else "stale"


def next_position(queue: pd.DataFrame, labels: dict[tuple, dict[str, Any]]) -> int:
    """The first answer in the queue without a current label; len(queue) when all are
    done."""
    for position, entry in enumerate(queue.to_dict("records")):
        if label_status(entry, labels) != "labelled":
            return position
    return len(queue)
