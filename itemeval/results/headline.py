"""The sentences `results` and the report open with, per grade condition: which
generate condition scored best and whether its lead over the next one is more than
chance (the paired difference on the items both have, its 95% CI and the p-value
Holm-adjusted over every pair of that grade condition's conditions), or that no
difference is detectable. Where the conditions cross several facets, the sentence
about the facet whose levels differ most comes first ("by model: ..."), each item's
score under a level averaged over the other facets.

Higher scores are taken as better. The two compared are chosen by their means, which
is why the p-value is adjusted as if every pair had been compared: with k conditions
the lead is one of k(k-1)/2 comparisons. A pre-registered pair is `results --compare
A B`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import pandas as pd

from ..records import GradeCondition
from ..stats import paired as paired_tests
from ..study.grid import model_short_name
from ..wide import pivot_mean
from .facet_compare import level_scores

ALPHA = 0.05


def headlines(
    item_scores: pd.DataFrame,
    cells: Sequence[dict[str, Any]],
    grade: Sequence[GradeCondition],
    names: dict[str, str],
    facets: dict[str, dict[str, str]] | None = None,
    asked: str | None = None,
) -> list[dict[str, Any]]:
    """Per grade condition with a scored cell: the row of the facet that varies most
    (`facets`: facet -> {generate condition: level}, those with two levels or more,
    when they cross; `asked`, the facet of `--by`, when it varies), then the best
    generate condition, the next, their paired difference and the sentence that
    says it."""
    slugs = {c.id: c.slug for c in grade}
    rows = []
    # a rater labels a sample to check the judges: it is not a grader to rank by
    for grader in (g for g in grade if g.kind != "human"):
        lead = _facet_lead(item_scores, grader.id, facets or {}, asked)
        if lead is not None:
            lead["text"] = sentence(lead, _level_names(lead), slugs)
            rows.append(lead)
        row = _lead(item_scores, cells, grader.id)
        if row is not None:
            row["text"] = sentence(row, names, slugs)
            rows.append(row)
    return rows


def _facet_lead(
    item_scores: pd.DataFrame,
    grade_id: str,
    facets: dict[str, dict[str, str]],
    asked: str | None = None,
) -> dict[str, Any] | None:
    """The lead within the facet asked for, else the one whose level means spread
    most; None when fewer than two facets vary (the conditions' own headline says
    the same)."""
    if len(facets) < 2:
        return None
    tables = {
        facet: level_scores(item_scores, level_of, grade_id)
        for facet, level_of in facets.items()
    }
    spread = {
        f: float(t.mean().max() - t.mean().min())
        for f, t in tables.items()
        if t.shape[1] > 1
    }
    if not spread:
        return None
    facet = (
        asked
        if asked in spread
        else max(spread, key=lambda f: (spread[f], -list(facets).index(f)))
    )
    wide = tables[facet]
    means = wide.mean().sort_values(ascending=False, kind="stable")
    ranked = [
        {"gen_condition_id": level, "mean": float(m)} for level, m in means.items()
    ]
    best, runner_up = ranked[0], ranked[1]
    result = _paired(wide, best, runner_up)
    if result.diff < 0:
        best, runner_up = runner_up, best
        result = _paired(wide, best, runner_up)
    row = _row(grade_id, best, runner_up, result)
    row["pairs"] = len(ranked) * (len(ranked) - 1) // 2
    lead = (best["gen_condition_id"], runner_up["gen_condition_id"])
    row["p_adjusted"] = _adjusted(wide, lead)
    row["detectable"] = bool(row["p_adjusted"] < ALPHA)
    row["facet"] = facet
    return row


def _level_names(row: dict[str, Any]) -> dict[str, str]:
    """A facet lead's levels as the sentence names them: a model without its
    provider."""
    levels = (row["best"], row["runner_up"])
    short = {level: model_short_name(level) for level in levels}
    if row["facet"] != "model" or len(set(short.values())) < 2:
        return {level: level for level in levels}
    return short


def _lead(
    item_scores: pd.DataFrame, cells: Sequence[dict[str, Any]], grade_id: str
) -> dict[str, Any] | None:
    ranked = sorted(
        (c for c in cells if c["grade_condition_id"] == grade_id and c["items"]),
        key=lambda c: -c["mean"],
    )
    if len(ranked) < 2:
        return _row(grade_id, ranked[0], None, None) if ranked else None
    wide = _wide(item_scores, grade_id, [c["gen_condition_id"] for c in ranked])
    best, runner_up = ranked[0], ranked[1]
    result = _paired(wide, best, runner_up)
    if result.diff < 0:  # behind on the items both have (a tie, or fewer items)
        best, runner_up = runner_up, best
        result = _paired(wide, best, runner_up)
    row = _row(grade_id, best, runner_up, result)
    row["pairs"] = len(ranked) * (len(ranked) - 1) // 2
    lead = (best["gen_condition_id"], runner_up["gen_condition_id"])
    row["p_adjusted"] = _adjusted(wide, lead)
    row["detectable"] = bool(row["p_adjusted"] < ALPHA)
    return row


def _wide(item_scores: pd.DataFrame, grade_id: str, gen_ids: list[str]):
    """Item scores of one grade condition: a column per generate condition."""
    mine = item_scores[item_scores["grade_condition_id"] == grade_id]
    return pivot_mean(mine, "item_id", "gen_condition_id", "score").reindex(
        columns=gen_ids
    )


def _paired(wide: pd.DataFrame, best, runner_up) -> paired_tests.Comparison:
    result = paired_tests.paired(
        wide[best["gen_condition_id"]].to_numpy(dtype=float),
        wide[runner_up["gen_condition_id"]].to_numpy(dtype=float),
    )
    return paired_tests.within_range(result, wide.to_numpy(dtype=float))


def _adjusted(wide: pd.DataFrame, lead: tuple[str, str]) -> float:
    """The lead's p-value Holm-adjusted over every pair of the grade condition's
    conditions (two-sided: a pair's p does not depend on its order)."""
    family = list(combinations(range(len(wide.columns)), 2))
    p = paired_tests.paired_p_values(wide.to_numpy(dtype=float), family)
    at = {name: k for k, name in enumerate(wide.columns)}
    index = family.index(tuple(sorted((at[lead[0]], at[lead[1]]))))
    return paired_tests.holm(list(p))[index]


def _row(grade_id, best, runner_up, result: paired_tests.Comparison | None) -> dict:
    return {
        "grade_condition_id": grade_id,
        "best": best["gen_condition_id"],
        "best_mean": best["mean"],
        "runner_up": runner_up["gen_condition_id"] if runner_up else None,
        "runner_up_mean": runner_up["mean"] if runner_up else None,
        "n": result.n if result else 0,
        "diff": result.diff if result else None,
        "ci_low": result.ci_low if result else None,
        "ci_high": result.ci_high if result else None,
        "test": result.test if result else None,
        "p": result.p if result else float("nan"),
        "p_adjusted": result.p if result else float("nan"),
        "pairs": 1 if result else 0,
        "detectable": False,
        "facet": None,
    }


def sentence(row: dict[str, Any], names: dict[str, str], slugs: dict[str, str]) -> str:
    """The headline as a reader would quote it."""
    grader = slugs.get(row["grade_condition_id"], row["grade_condition_id"])
    if row.get("facet"):
        grader = f"{grader}, by {row['facet']}"
    best = names.get(row["best"], row["best"])
    if row["runner_up"] is None:
        return f"{grader}: {best} scores {row['best_mean']:.3f} (the only condition)"
    runner_up = names.get(row["runner_up"], row["runner_up"])
    lead = f"{row['diff']:+.3f} on the {row['n']} items both have"
    interval = _interval_text(row)
    p = _p_text(row)
    if row["detectable"]:
        return (
            f"{grader}: {best} is best ({row['best_mean']:.3f}), ahead of "
            f"{runner_up} ({row['runner_up_mean']:.3f}) by {lead} ({interval}; {p})"
        )
    if _excludes_zero(row):
        return (
            f"{grader}: {best} ({row['best_mean']:.3f}) leads {runner_up} "
            f"({row['runner_up_mean']:.3f}) by {lead} ({interval}), but "
            f"{_TESTS.get(row['test'], 'the test')} does not find the lead "
            f"significant ({p}): not conclusive"
        )
    return (
        f"{grader}: no detectable difference between the top two, {best} "
        f"({row['best_mean']:.3f}) and {runner_up} ({row['runner_up_mean']:.3f}): "
        f"{lead} ({interval}; {p})"
    )


_TESTS = {"mcnemar_exact": "the exact McNemar test", "paired_t": "the paired t-test"}


def _interval_text(row: dict[str, Any]) -> str:
    """The difference's 95% CI; a zero-width one is said for what it is."""
    low, high = row["ci_low"], row["ci_high"]
    if low is not None and low == low and low == high:
        return "no interval: the two scored every one of these items alike"
    if row["n"] < 2:
        return "no interval: one item is too few"
    return f"95% CI {_signed(low)} to {_signed(high)}"


def _excludes_zero(row: dict[str, Any]) -> bool:
    low, high = row["ci_low"], row["ci_high"]
    return low is not None and low == low and (low > 0 or high < 0)


def _p_text(row: dict[str, Any]) -> str:
    if row["pairs"] > 1:
        return f"Holm-adjusted over the {row['pairs']} pairs, p {_p(row['p_adjusted'])}"
    return f"p {_p(row['p_adjusted'])}"


def _signed(value: float | None) -> str:
    return "–" if value is None or value != value else f"{value:+.3f}"


def _p(value: float) -> str:
    if value != value:
        return "undefined"
    return "< 0.001" if value < 0.001 else f"= {value:.3f}"
