"""How a cascade's grades split between its stages: the share its judge sees (for
the estimate of solutions not generated yet) and who decided what (for `results`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow.compute as pc

from .cascade import cascades, decided_by
from .records import GradeCondition
from .store import read_store

if TYPE_CHECKING:
    from .paths import StudyPaths


# ---- results: who decided ------------------------------------------------------------


def decided_counts(
    frame: pd.DataFrame, conditions: Iterable[GradeCondition]
) -> list[dict[str, Any]]:
    """Per (generate condition, cascade, deciding stage): how many graded solutions
    that stage decided (`none`: no stage gave a verdict, a parse failure)."""
    ids = {c.id for c in cascades(conditions)}
    graded = frame[
        frame["grade_condition_id"].isin(ids)
        & frame["status"].isin(("scored", "parse_failure"))
    ]
    if graded.empty:
        return []
    stage = graded["score_metadata"].map(
        lambda text: decided_by(text if isinstance(text, str) else None) or "none"
    )
    keys = ["gen_condition_id", "grade_condition_id", "decided_by"]
    counts = graded.assign(decided_by=stage).groupby(keys, sort=True).size()
    return [{**dict(zip(keys, key)), "n": int(n)} for key, n in counts.items()]


# ---- the estimate of solutions not generated yet -------------------------------------


@dataclass(frozen=True)
class Share:
    """The share of a cascade's solutions its judge is expected to see."""

    undecided: float
    observed: int
    """Grade rows it was observed over; 0: none yet, so every solution is assumed
    undecided (the worst case, which keeps the spend gate and the cap safe)."""


def undecided_share(paths: StudyPaths, condition: GradeCondition) -> Share:
    """Of the cascade's stored grade rows, those its judge was asked about (a reply
    or a call error), over all of them."""
    table = read_store(
        paths,
        "grades",
        ["judge_completion", "error"],
        where={"grade_condition_id": [condition.id]},
    )
    if table.num_rows == 0:
        return Share(undecided=1.0, observed=0)
    asked = pc.or_(
        pc.is_valid(table.column("judge_completion")),
        pc.is_valid(table.column("error")),
    )
    judged = pc.sum(asked.cast("int64")).as_py() or 0
    return Share(undecided=judged / table.num_rows, observed=table.num_rows)


def estimate_note(condition: GradeCondition, share: Share) -> str:
    basis = (
        f"{share.undecided:.0%} of them undecided, as observed over "
        f"{share.observed:,} graded solutions"
        if share.observed
        else "all of them assumed undecided until some are graded"
    )
    return (
        f"{condition.slug}: the judge is priced on the solutions its scorers leave "
        f"undecided: stored ones counted exactly; ones not generated yet at {basis}"
    )
