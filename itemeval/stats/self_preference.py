"""Whether a judge favours answers of its own model family: the judge-family ×
solver-family interaction, per judge, with a t interval over items and Holm's
adjustment across judges.

For judge j of family f, item i and solver s, the *excess* is j's score of s's answer
less the mean score other judges gave the same answer; the judges it is measured
against are of neither f nor s's family where there are any (else of any family but
f). The judge's self-preference on item i is

    d_i = mean excess over solvers of family f - mean excess over the other solvers,

a difference in differences: the judge's leniency, the answers' quality and the
item's difficulty cancel, and what is left is how much more j scores its own family
than other judges do (Panickssery, Bowman & Feng 2024, "LLM evaluators recognize and
favor their own generations"; Wataoka, Takahashi & Ri 2024, "Self-preference bias in
LLM-as-a-judge"). With three or more families, a judge that favours its own family
does not inflate another judge's d; with two, d is the sum of both judges'
preferences, since nothing else is there to compare against. The interval and the
test are Student's t over the items' d_i (items are the independent units); the
p-values are Holm-adjusted across the judges.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .intervals import NAN, special, t_interval
from .paired import holm


def family_of(model: str, families: Mapping[str, str] | None = None) -> str:
    """A model's family: `families[model]` when given, else its provider prefix
    (`openai/gpt-4o` -> `openai`; a model id without one is its own family)."""
    if families and model in families:
        return families[model]
    return model.split("/", 1)[0]


@dataclass(frozen=True)
class SelfPreference:
    """One judge's preference for its own family, on a score's scale."""

    judge: str
    family: str
    n: int
    """Items with a d_i."""
    estimate: float
    ci_low: float
    ci_high: float
    p: float
    p_holm: float


def excess_matrix(
    table: pd.DataFrame, judge: str, family: Mapping[str, str]
) -> np.ndarray:
    """Per row (item, solver) of `table`: `judge`'s score less the mean of the
    judges it is measured against (see the module); NaN where none scored it."""
    values = table.to_numpy(dtype=float)
    judge_family = np.array([family[j] for j in table.columns])
    own = family[judge]
    solver_family = np.array(
        [family[s] for s in table.index.get_level_values("solver")]
    )
    others = judge_family != own
    baseline = np.full(len(values), np.nan)
    for group in np.unique(solver_family):
        against = others & (judge_family != group)
        against = against if against.any() else others
        rows = solver_family == group
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a row nobody scored
            baseline[rows] = np.nanmean(values[np.ix_(rows, against)], axis=1)
    return values[:, list(table.columns).index(judge)] - baseline


def item_contrasts(
    table: pd.DataFrame, judge: str, family: Mapping[str, str]
) -> np.ndarray:
    """The d_i of every item that has both kinds of solver scored, in item order."""
    excess = excess_matrix(table, judge, family)
    solvers = table.index.get_level_values("solver")
    mine = np.array([family[s] == family[judge] for s in solvers])
    items, item = np.unique(
        table.index.get_level_values("item_id"), return_inverse=True
    )
    kept = ~np.isnan(excess)
    means = []
    for side in (mine, ~mine):
        chosen = kept & side
        total = np.bincount(item[chosen], excess[chosen], minlength=len(items))
        count = np.bincount(item[chosen], minlength=len(items))
        with np.errstate(invalid="ignore", divide="ignore"):
            means.append(total / count)
    d = means[0] - means[1]
    return d[~np.isnan(d)]


def two_sided_t_p(values: np.ndarray) -> float:
    """The p of Student's one-sample t-test of mean 0 (scipy's ttest_1samp)."""
    n = len(values)
    sd = values.std(ddof=1) if n > 1 else 0.0
    if not sd:
        return NAN
    t = values.mean() / (sd / np.sqrt(n))
    return float(2 * special.stdtr(n - 1, -abs(t)))


def self_preference(
    frame: pd.DataFrame, families: Mapping[str, str] | None = None
) -> list[SelfPreference]:
    """One row per judge whose family also solved, beside solvers of other
    families and judges of other families. `frame`: columns `item_id`, `solver`,
    `judge` (model ids) and `score` (several rows of a cell, say epochs or draws,
    are averaged)."""
    table = frame.groupby(["item_id", "solver", "judge"])["score"].mean()
    table = table.unstack("judge")
    models = {*table.columns, *table.index.get_level_values("solver")}
    family = {m: family_of(m, families) for m in models}
    solver_families = {family[s] for s in table.index.get_level_values("solver")}
    rows = []
    for judge in sorted(table.columns):
        others = {family[j] for j in table.columns} - {family[judge]}
        if family[judge] not in solver_families or not others:
            continue
        if len(solver_families) < 2:
            continue
        d = item_contrasts(table, judge, family)
        interval = t_interval(d)
        rows.append(
            (judge, family[judge], interval, two_sided_t_p(d) if len(d) > 1 else NAN)
        )
    adjusted = holm([p for *_, p in rows])
    return [
        SelfPreference(j, f, i.n, i.mean, i.ci_low, i.ci_high, p, q)
        for (j, f, i, p), q in zip(rows, adjusted)
    ]
