"""Which grade conditions a grade run covers (after --condition, --grader and
--rubric) and the grades each still owes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..paths import StudyPaths
from ..records import GRADE_KEY, GenerateCondition, GradeCondition, Item, Shard
from ..store.journal import journaled_keys
from ..study.grid import matches, select
from ..study.load import Study, extra_judges, extra_pairwise
from . import cells as planner
from . import shards as plan_shards
from .state import Stored

if TYPE_CHECKING:
    from .options import GradeOptions


def select_grade(
    study: Study, options: GradeOptions
) -> tuple[list[GenerateCondition], list[GradeCondition], list[GradeCondition]]:
    """(generate conditions, grade conditions, pairwise conditions) this run covers,
    after --condition, --grader and --rubric."""
    # a name these conditions answer to selects them; it never adds a plain judge
    model_graded = [c for c in study.grade if c.is_model_graded or c.is_cascade]
    judge_names = [
        name
        for name in options.graders
        if not any(_graded_by(c, [name]) for c in model_graded)
    ]
    grade = (
        study.grade
        + study.pairwise
        + extra_judges(study.config, study.rubrics, judge_names)
        + extra_pairwise(study.loaded, study.generate, judge_names)
    )
    if options.graders or options.rubrics:
        grade = _judges(grade, options.graders, options.rubrics)
    gen_selectors, grade_selectors = _split_selectors(
        study.generate, grade, list(options.conditions)
    )
    grade = select(grade, grade_selectors)
    return (
        select(study.generate, gen_selectors),
        [c for c in grade if not c.is_pairwise],
        [c for c in grade if c.is_pairwise],
    )


def _judges(
    grade: list[GradeCondition], graders: tuple[str, ...], rubrics: tuple[str, ...]
) -> list[GradeCondition]:
    """The judge conditions --grader and --rubric name; refuses when none is."""
    everything = grade
    grade = [
        c
        for c in grade
        if not c.is_verifiable
        and (not graders or _graded_by(c, graders))
        and (not rubrics or (c.rubric is not None and c.rubric.ref in rubrics))
    ]
    if not grade:
        asked = " ".join(
            [*(f"--grader {g}" for g in graders), *(f"--rubric {r}" for r in rubrics)]
        )
        raise ConfigError(f"no judge condition matches {asked}; {_known(everything)}")
    return grade


def _known(grade: list[GradeCondition]) -> str:
    """The graders and rubrics the study has, for a message."""
    graders = sorted({c.grader_name for c in grade if c.grader_name})
    rubrics = sorted({c.rubric.ref for c in grade if c.rubric is not None})
    return (
        f"the study's graders: {', '.join(graders) or 'none'}; its rubrics: "
        f"{', '.join(rubrics) or 'none'}"
    )


def _graded_by(condition: GradeCondition, names: list[str] | tuple[str, ...]) -> bool:
    """Whether `--grader` names this condition: a judge's grader name; a model-graded
    scorer's name or model."""
    if condition.kind in ("judge", "pairwise", "cascade"):
        return condition.grader_name in names
    return condition.is_model_graded and (
        condition.scorer in names or any(m in names for m in condition.models)
    )


def _split_selectors(
    generate: list[GenerateCondition], grade: list[GradeCondition], selectors: list[str]
) -> tuple[list[str], list[str]]:
    """--condition may name generate or grade conditions; each narrows its own side."""
    gen, grade_side = [], []
    for selector in selectors:
        matched_gen = any(matches(c, selector) for c in generate)
        if not (matched_gen or any(matches(c, selector) for c in grade)):
            known = ", ".join(c.slug for c in [*generate, *grade])
            raise ConfigError(
                f"--condition: no condition matches {selector!r} (conditions: {known})"
            )
        (gen if matched_gen else grade_side).append(selector)
    return gen, grade_side


def pending(
    stored: Stored,
    generate: list[GenerateCondition],
    grade: list[GradeCondition],
    items: list[Item],
    *,
    force: bool,
    only: tuple[str, ...] = (),
) -> pd.DataFrame:
    """(grade condition × solution) pairs to grade now, with the solution's current
    hash."""
    if not grade:  # e.g. a run of pairwise judges only
        return pd.DataFrame(columns=[*GRADE_KEY, "solution_hash", "state"])
    merged = stored.solutions([c.id for c in generate], [item.id for item in items])
    return planner.plan_grade(stored.grades(grade, merged), force=force, only=only)


def shard_pending(
    paths: StudyPaths,
    grade: list[GradeCondition],
    todo: pd.DataFrame,
    shard: Shard,
) -> pd.DataFrame:
    """The shard's part of the pending grades, less those its own earlier journal parts
    already hold.

    A grade belongs to the shard of (grade condition, item); with `--shard-by model`, of
    its grader model (a verifiable scorer's cells go by scorer name).
    """
    owners = {c.id: c.grader_model or c.scorer for c in grade}
    todo = todo[plan_shards.in_shard(todo, shard, "grade_condition_id", owners)]
    done = journaled_keys(paths, "", "grades", GRADE_KEY)  # every part's (generate)
    if done and len(todo):
        keep = [
            tuple(
                int(v) if name in ("epoch", "draw") else v
                for name, v in zip(GRADE_KEY, values)
            )
            not in done
            for values in zip(*(todo[name] for name in GRADE_KEY))
        ]
        todo = todo[np.asarray(keep, dtype=bool)]
    return todo.reset_index(drop=True)
