"""The G-study's ANOVA estimators, checked against statsmodels (the OLS ANOVA table
and MixedLM's REML variance components) and by simulation; the G coefficient and the
D-study by their formulas."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm

from itemeval.stats.g_study import d_study, g_coefficient, table_groups
from itemeval.stats.variance_components import (
    anova_components,
    crossed_array,
    shares,
)

FACETS = ("item", "model", "replication")
TRUTH = {  # a design where every component is there to be found
    ("item",): 1.0,
    ("model",): 0.6,
    ("replication",): 0.3,
    ("item", "model"): 0.5,
    ("item", "replication"): 0.3,
    ("model", "replication"): 0.2,
    ("item", "model", "replication"): 0.6,
}


def simulate(rng, sizes: tuple[int, ...], truth=TRUTH, facets=FACETS) -> np.ndarray:
    """Scores as a sum of normal effects, one per subset of the facets."""
    scores = np.zeros(sizes)
    for effect, variance in truth.items():
        shape = [n if f in effect else 1 for f, n in zip(facets, sizes)]
        scores = scores + rng.normal(0, np.sqrt(variance), size=shape)
    return scores


def long_frame(scores: np.ndarray, facets=FACETS) -> pd.DataFrame:
    index = pd.MultiIndex.from_product([range(n) for n in scores.shape], names=facets)
    return pd.DataFrame({"score": scores.ravel()}, index=index).reset_index()


def test_mean_squares_are_the_ols_anova_tables():
    scores = simulate(np.random.default_rng(0), (12, 4, 3))
    fit = anova_components(scores, FACETS)
    table = anova_lm(
        smf.ols(
            "score ~ (C(item) + C(model) + C(replication)) ** 2", long_frame(scores)
        ).fit()
    )
    expected = table["mean_sq"].to_numpy()  # effects in our order, residual last
    assert np.max(np.abs(fit.mean_squares - expected)) < 1e-9
    assert fit.df.tolist() == table["df"].tolist()


def test_components_are_mixedlms_reml_on_a_balanced_design():
    """REML and ANOVA estimates coincide in a balanced design when none is
    negative (Searle, Casella & McCulloch 1992, §6.7)."""
    rng = np.random.default_rng(5)  # a draw with no negative estimate
    scores = simulate(rng, (15, 4, 3))
    fit = anova_components(scores, FACETS)
    assert (fit.sigma2 > 0).all()
    frame = long_frame(scores).assign(group=1)
    for a, b in (("item", "model"), ("item", "replication"), ("model", "replication")):
        frame[f"{a}_{b}"] = frame[a].astype(str) + "_" + frame[b].astype(str)
    formulas = {name: f"0 + C({name})" for name in frame.columns[:3]}
    formulas |= {name: f"0 + C({name})" for name in frame.columns[5:]}
    model = smf.mixedlm(
        "score ~ 1", frame, groups="group", vc_formula=formulas, re_formula="0"
    )
    reml = model.fit(reml=True, method="bfgs", gtol=1e-12)
    estimates = dict(zip(model.exog_vc.names, reml.vcomp)) | {"resid": reml.scale}
    ours = dict(zip(["item", "model", "replication", "item_model"], fit.sigma2))
    ours |= {"item_replication": fit.sigma2[4], "model_replication": fit.sigma2[5]}
    ours["resid"] = fit.sigma2[6]
    difference = max(abs(ours[name] - estimates[name]) for name in ours)
    print("REML max abs difference", difference)
    assert difference < 1e-6, difference


def test_an_unbalanced_item_is_dropped_and_a_duplicate_refused():
    frame = long_frame(simulate(np.random.default_rng(1), (5, 2, 2)))
    holed = frame.drop(index=3)  # item 0 lacks one cell
    assert crossed_array(holed, FACETS).shape == (4, 2, 2)
    with pytest.raises(ValueError, match="more than one score"):
        crossed_array(pd.concat([frame, frame.head(1)]), FACETS)


def test_each_components_interval_covers_the_truth_in_simulated_studies():
    """200 studies of 20 items × 4 models × 3 replications: every component's 95 %
    interval (variance and share) covers the truth in at least 90 % of them."""
    start = time.perf_counter()
    rng = np.random.default_rng(2024)
    truth = np.array(list(TRUTH.values()))
    covered_variance = np.zeros(len(truth))
    covered_share = np.zeros(len(truth))
    groups = {"+".join(map(str, e)): [i] for i, e in enumerate(TRUTH)}
    for study in range(200):
        fit = anova_components(simulate(rng, (20, 4, 3)), FACETS)
        rows = shares(fit, groups, seed=study, resamples=1000)
        for i, row in enumerate(rows):
            low, high = row.variance_ci
            covered_variance[i] += low <= truth[i] <= high
            low, high = row.share_ci
            covered_share[i] += low <= truth[i] / truth.sum() <= high
    print("variance coverage", covered_variance / 200)
    print("share coverage", covered_share / 200)
    assert (covered_variance / 200 >= 0.90).all()
    assert (covered_share / 200 >= 0.90).all()
    assert time.perf_counter() - start < 60


def test_g_coefficient_of_models_over_items_is_the_textbook_one():
    """Item × model: G = s2_model / (s2_model + s2_item:model / n_items)."""
    scores = simulate(
        np.random.default_rng(3),
        (30, 5),
        {("item",): 1.0, ("model",): 0.2, ("item", "model"): 1.0},
        ("item", "model"),
    )
    fit = anova_components(scores, ("item", "model"))
    model, interaction = fit.sigma2[1], fit.sigma2[2]
    assert g_coefficient(fit) == pytest.approx(model / (model + interaction / 30))
    assert g_coefficient(fit, {"item": 300}) == pytest.approx(
        model / (model + interaction / 300)
    )
    assert np.isnan(g_coefficient(fit, of="judge"))


def test_d_study_marks_the_cheapest_design_reaching_the_target():
    fit = anova_components(simulate(np.random.default_rng(5), (20, 4, 3)), FACETS)
    designs = d_study(
        fit,
        {"item": [10, 20, 50, 100, 400], "replication": [1, 2, 3, 5, 20]},
        price=lambda s: 0.01 * s["item"] * s["replication"] * 4,
    )
    assert len(designs) == 25
    cheapest = [d for d in designs if d.cheapest]
    reaching = [d for d in designs if d.g >= 0.8]
    assert len(cheapest) == 1 and cheapest[0].usd == min(d.usd for d in reaching)
    by_items = {d.sizes["item"]: d.g for d in designs if d.sizes["replication"] == 1}
    assert list(by_items.values()) == sorted(by_items.values())  # more items, more G


def test_the_table_pools_what_is_not_a_facet_or_an_item_interaction():
    fit = anova_components(simulate(np.random.default_rng(6), (8, 3, 2)), FACETS)
    groups = table_groups(fit)
    assert list(groups) == [
        "item",
        "model",
        "replication",
        "item:model",
        "item:replication",
        "residual",
    ]
    assert groups["residual"] == [5, 6]
    rows = shares(fit, groups, resamples=200)
    assert sum(r.share for r in rows) == pytest.approx(1.0)
