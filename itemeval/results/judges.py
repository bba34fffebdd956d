"""`results --judges`: a reliability card per judge — how it agrees with itself across
draws, with people where they labelled, and whether it favours its own model family.

Read from the graded frame `results` builds (a frame without a `draw` column holds
draw 1 only); the figures are `stats.reliability` and `stats.self_preference`.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Callable

import pandas as pd

from ..records import GradeCondition
from ..result_values import clean
from ..stats.draws import ANSWER, draw_matrix, with_draw
from ..stats.reliability import Estimate, human_agreement, retest
from ..stats.scale_intervals import grade_scales
from ..stats.self_preference import family_of, self_preference
from ..study.load import Study


def scored(frame: pd.DataFrame) -> pd.DataFrame:
    """The scored grade rows, the keys as plain strings."""
    rows = frame[frame["status"] == "scored"] if "status" in frame else frame
    rows = with_draw(rows)
    keys = ["grade_condition_id", "gen_condition_id", "item_id"]
    return rows.assign(**{key: rows[key].astype(str) for key in keys})


def pass_mark(bounds, threshold: float | None) -> float:
    """`--threshold`, else the middle of the condition's observed scale."""
    if threshold is not None:
        return threshold
    return 0.5 if bounds is None else (bounds[0] + bounds[1]) / 2


def figures(prefix: str, estimate: Estimate) -> dict[str, float]:
    return {
        prefix: estimate.value,
        f"{prefix}_ci_low": estimate.ci_low,
        f"{prefix}_ci_high": estimate.ci_high,
    }


def answer_means(rows: pd.DataFrame) -> pd.Series:
    """Each answer's score, averaged over its draws."""
    return rows.groupby(list(ANSWER), observed=True)["score"].mean()


def card(
    rows: pd.DataFrame, human: pd.Series | None, *, mark: float, seed: int
) -> dict[str, Any]:
    """One judge's test-retest and agreement with people."""
    matrix, items = draw_matrix(rows)
    again = retest(matrix, items, pass_mark=mark, seed=seed)
    row: dict[str, Any] = {"n": again.n, "draws": again.draws, "pass_mark": mark}
    row |= figures("icc", again.icc) | figures("kappa", again.kappa)
    row |= {"kappa_kind": again.kappa_kind} | figures("flip_rate", again.flip_rate)
    if human is not None:
        judge = answer_means(rows)
        both = pd.concat([judge, human], axis=1, keys=["judge", "human"]).dropna()
        people = human_agreement(
            both["judge"].to_numpy(),
            both["human"].to_numpy(),
            both.index.get_level_values("item_id").to_numpy(),
            pass_mark=mark,
            seed=seed,
        )
        row |= {"n_human": people.n} | figures("kappa_human", people.kappa)
        row |= figures("leniency", people.leniency)
    return row


def preferences(
    study: Study,
    rows: pd.DataFrame,
    judges: list[GradeCondition],
    families: dict[str, str] | None,
) -> dict[str, dict[str, Any]]:
    """{grade condition id: its self-preference} over judges sharing a rubric
    (families: model id -> family; else the provider prefix)."""
    solver = {c.id: c.model for c in study.generate}
    found = {}
    by_rubric: dict[str, list[GradeCondition]] = {}
    for condition in judges:
        rubric = condition.rubric.ref if condition.rubric else ""
        by_rubric.setdefault(rubric, []).append(condition)
    for group in by_rubric.values():
        model = {c.id: c.grader_model for c in group}
        chosen = rows[rows["grade_condition_id"].isin(model)]
        long = pd.DataFrame(
            {
                "item_id": chosen["item_id"],
                "solver": chosen["gen_condition_id"].map(solver),
                "judge": chosen["grade_condition_id"].map(model),
                "score": chosen["score"],
            }
        ).dropna()
        if long.empty:
            continue
        for found_row in self_preference(long, families):
            for condition_id, judge_model in model.items():
                if judge_model == found_row.judge:
                    found[condition_id] = asdict(found_row)
    return found


def judge_cards(
    study: Study,
    frame: pd.DataFrame,
    grade: list[GradeCondition],
    *,
    threshold: float | None = None,
    seed: int = 0,
    families: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """A card per judge grade condition: `icc`, `kappa`, `flip_rate` across the pass
    mark (each with its interval), `kappa_human` and `leniency` where people
    labelled, and `self_preference` where judge and solver families cross."""
    rows = scored(frame)
    judges = [c for c in grade if c.kind == "judge"]
    humans = [c.id for c in grade if c.kind == "human"]
    human = (
        answer_means(rows[rows["grade_condition_id"].isin(humans)]) if humans else None
    )
    preferred = preferences(study, rows, judges, families)
    scales = grade_scales(frame)
    cards = []
    for condition in judges:
        mine = rows[rows["grade_condition_id"] == condition.id]
        mark = pass_mark(scales.get(condition.id), threshold)
        cards.append(
            {"grade_condition_id": condition.id, "slug": condition.slug}
            | {"judge": condition.grader_model}
            | card(mine, human, mark=mark, seed=seed)
            | {"self_preference": preferred.get(condition.id)}
        )
    return clean(cards)


ICC_FLOOR = 0.75
"""Below it a judge's single draw is a noisy measurement (Koo & Li 2016 call an ICC
under 0.75 moderate or poor): a lead decided under such a judge is marked."""


def measurable(
    grade: list[GradeCondition], families: dict[str, str] | None = None
) -> bool:
    """Whether a judge card has figures to give: a judge with draws, or judges of
    several families."""
    judges = [c for c in grade if c.kind == "judge"]
    kinds = {family_of(c.grader_model or "", families) for c in judges}
    return bool(judges) and (any(c.draws > 1 for c in judges) or len(kinds) > 1)


def judge_doubts(
    study: Study,
    grade: list[GradeCondition],
    frame_of: Callable[[], pd.DataFrame],
    families: dict[str, str] | None = None,
) -> dict[str, str]:
    """Grade condition id -> why its judge's verdicts are doubted, for the headline:
    a test-retest ICC under ICC_FLOOR, or a preference for its own family's answers
    (Holm p < 0.05). Computed only where it can be: a judge with draws, or judges of
    several families (`frame_of` gives every draw)."""
    if not measurable(grade, families):
        return {}
    doubts = {}
    for row in judge_cards(study, frame_of(), grade, families=families):
        reasons = _doubts(row)
        if reasons:
            doubts[row["grade_condition_id"]] = "; ".join(reasons)
    return doubts


def _doubts(row: dict[str, Any]) -> list[str]:
    reasons = []
    icc = row.get("icc")
    if icc is not None and icc < ICC_FLOOR:
        reasons.append(f"its test-retest ICC {icc:.2f} is under {ICC_FLOOR}")
    preferred = row.get("self_preference") or {}
    p, estimate = preferred.get("p_holm"), preferred.get("estimate")
    if p is not None and estimate is not None and p < 0.05 and estimate > 0:
        reasons.append(
            f"it favours its own family's answers by {estimate:+.3f} (Holm p {p:.3f})"
        )
    return reasons
