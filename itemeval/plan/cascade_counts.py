"""How a cascade's grades split between its stages: the share its judge sees (for
the estimate of solutions not generated yet) and who decided what (for `results`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow.compute as pc

from ..records import GradeCondition
from ..result_values import Decided
from ..store import read_store
from ..study.cascade import cascades, decided_by, judge_name

if TYPE_CHECKING:
    from ..paths import StudyPaths


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


@dataclass(frozen=True)
class Settled:
    """A cascade cell's graded solutions: settled by its cheap scorers (each a judge
    call saved) or sent to its judge."""

    gen_condition_id: str
    grade_condition_id: str
    graded: int
    settled: int
    judged: int
    usd_saved: float | None
    """The calls saved at the cascade's judge spend per judge call; None when
    unknown (no priced judge call yet)."""


def settled(
    decided: Iterable[Decided],
    conditions: Iterable[GradeCondition],
    spend: Mapping[str, float | None],
) -> list[Settled]:
    """Per (generate condition, cascade), from `decided_counts` and each grade
    condition's spend: a solution no stage decided (`none`) was sent to the judge,
    which gave no verdict. Cascades not among `conditions` are left out."""
    judges = {c.id: (judge_name(c), "none") for c in cascades(conditions)}
    cells: dict[tuple[str, str], list[int]] = {}
    for row in (r for r in decided if r.grade_condition_id in judges):
        counts = cells.setdefault(
            (row.gen_condition_id, row.grade_condition_id), [0, 0]
        )
        asked = row.decided_by in judges[row.grade_condition_id]
        counts[1 if asked else 0] += row.n
    judged: dict[str, int] = {}
    for (_, grade_id), (_, asked) in cells.items():
        judged[grade_id] = judged.get(grade_id, 0) + asked
    return [
        Settled(
            gen_id,
            grade_id,
            graded=scorers + asked,
            settled=scorers,
            judged=asked,
            usd_saved=_saved(scorers, judged[grade_id], spend.get(grade_id)),
        )
        for (gen_id, grade_id), (scorers, asked) in cells.items()
    ]


def _saved(calls: int, judged: int, usd: float | None) -> float | None:
    return None if usd is None or not judged else calls * usd / judged


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
