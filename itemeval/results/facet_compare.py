"""Paired comparisons at the level of a generate facet (`results --compare A B --by
model`): model A against model B over the items, each item's score under a level
averaged over the other facets' conditions, with its interval and Holm's adjustment
over the pairs of each grade condition."""

from __future__ import annotations

from dataclasses import asdict
from itertools import combinations
from typing import Any

import pandas as pd

from ..errors import ConfigError
from ..records import GenerateCondition, GradeCondition
from ..stats import paired as paired_tests
from ..study.grid import model_short_name
from ..wide import pivot_mean
from .facets import GEN_FACETS, facet_level


def levels_of(generate: list[GenerateCondition], facet: str) -> dict[str, str]:
    """Generate condition id -> its level of `facet` (model, prompt, model_config)."""
    return {c.id: facet_level(c, facet) for c in generate}


def varying_facets(generate: list[GenerateCondition]) -> list[str]:
    """The generate facets with two levels or more, in the order model, prompt,
    model_config."""
    return [f for f in GEN_FACETS if len(set(levels_of(generate, f).values())) > 1]


def compared_facet(generate: list[GenerateCondition], options: Any) -> str | None:
    """The facet whose levels `--compare` compares: `compare_by`, else the first
    generate facet of `--by`; None (compare conditions) where each level is one
    condition (the comparison would be the conditions' own) or where the names
    given are not two of its levels but, say, two conditions."""
    by = [f for f in options.by if f in GEN_FACETS]
    facet = options.compare_by or (by[0] if by else None)
    if facet is None:
        return None
    level_of = levels_of(generate, facet)
    if len(set(level_of.values())) == len(level_of):
        return None
    if options.compare == ("all",) or options.compare_by:
        return facet
    levels = set(level_of.values()) | {model_short_name(v) for v in level_of.values()}
    return facet if set(options.compare) <= levels else None


def unknown_names_levels(
    generate: list[GenerateCondition], options: Any, pairs_of: Any
) -> list[tuple[str, str]]:
    """`pairs_of(generate, compare)`, the conditions' pairs; where a name matches no
    condition and `--by` names a generate facet, the error lists its levels too,
    since the name was perhaps meant as one."""
    try:
        return pairs_of(generate, options.compare)
    except ConfigError as exc:
        by = [f for f in options.by if f in GEN_FACETS]
        if not by:
            raise
        levels = sorted(set(levels_of(generate, by[0]).values()))
        raise ConfigError(
            f"{exc}; nor is it a {by[0]} (levels of --by {by[0]}: {', '.join(levels)})"
        ) from exc


def level_pairs(
    levels: list[str], selectors: tuple[str, ...], facet: str
) -> list[tuple[str, str]]:
    """The pairs of levels `--compare` names: every pair for ("all",), else the two
    named (a level, or a model's name without its provider)."""
    if selectors == ("all",):
        return list(combinations(levels, 2))
    return [(_level(levels, selectors[0], facet), _level(levels, selectors[1], facet))]


def _level(levels: list[str], selector: str, facet: str) -> str:
    found = [level for level in levels if selector in (level, model_short_name(level))]
    if len(found) != 1:
        what = "no" if not found else "more than one"
        raise ConfigError(
            f"--compare: {what} {facet} matches {selector!r} (levels of --by "
            f"{facet}: {', '.join(levels)})"
        )
    return found[0]


def level_scores(
    items: pd.DataFrame, level_of: dict[str, str], grade_id: str
) -> pd.DataFrame:
    """Item × level: each item's score under a grade condition averaged over the
    generate conditions of each level (those that scored it)."""
    mine = items[items["grade_condition_id"] == grade_id]
    mine = mine.assign(level=mine["gen_condition_id"].map(level_of))
    return pivot_mean(mine.dropna(subset=["level"]), "item_id", "level", "score")


def facet_comparison_rows(
    items: pd.DataFrame,
    level_of: dict[str, str],
    facet: str,
    pairs: list[tuple[str, str]],
    grade: list[GradeCondition],
) -> list[dict[str, Any]]:
    """Level A − level B per grade condition on the items both levels scored;
    Holm over the pairs of each grade condition."""
    rows = []
    for grader in grade:
        table = level_scores(items, level_of, grader.id)
        at = {name: k for k, name in enumerate(table.columns)}
        kept = [(a, b) for a, b in pairs if a in at and b in at]
        if not kept:
            continue
        results = paired_tests.paired_many(
            table.to_numpy(dtype=float), [(at[a], at[b]) for a, b in kept]
        )
        family = [
            {"grade_condition_id": grader.id, "a": a, "b": b, **asdict(result)}
            for (a, b), result in zip(kept, results)
        ]
        for row, p in zip(family, paired_tests.holm([r["p"] for r in family])):
            row["p_adjusted"] = p
            row["facet"] = facet
        rows += family
    return rows
