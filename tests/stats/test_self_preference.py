"""Self-preference of judges: families, the contrast by hand, the test against
scipy, and by simulation its false-positive rate and coverage."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from itemeval.stats.self_preference import family_of, item_contrasts, self_preference

FAMILIES = ("openai", "anthropic", "google", "mistral")


@pytest.mark.parametrize(
    "model, mapping, expected",
    [
        ("openai/gpt-4o", None, "openai"),
        ("anthropic/claude-3-5-sonnet", None, "anthropic"),
        ("together/meta-llama/Llama-3-70b", None, "together"),
        (
            "together/meta-llama/Llama-3-70b",
            {"together/meta-llama/Llama-3-70b": "meta"},
            "meta",
        ),
        ("itemeval/echo", {"openai/gpt-4o": "openai"}, "itemeval"),
        ("local-model", None, "local-model"),
    ],
)
def test_family_is_the_provider_prefix_unless_mapped(model, mapping, expected):
    assert family_of(model, mapping) == expected


def study(rng, bonus: dict[str, float], items: int = 30, solvers: int = 2):
    """Every family's judge scores every family's solvers' answers: item
    difficulty, solver quality, judge leniency, judge × item taste, answer noise,
    judge noise, and the judge's bonus on its own family's answers."""
    rows = []
    difficulty = rng.normal(0, 1, items)
    judges = [f"{f}/judge" for f in FAMILIES]
    leniency = dict(zip(judges, rng.normal(0, 0.5, len(judges))))
    taste = {j: rng.normal(0, 0.3, items) for j in judges}
    for family in FAMILIES:
        for k in range(solvers):
            solver = f"{family}/solver-{k}"
            answer = difficulty + rng.normal(0, 0.5) + rng.normal(0, 0.5, items)
            for judge in judges:
                own = family_of(judge) == family
                score = answer + leniency[judge] + taste[judge]
                score = score + rng.normal(0, 0.5, items) + own * bonus[judge]
                rows.append(
                    pd.DataFrame(
                        {
                            "item_id": np.arange(items),
                            "solver": solver,
                            "judge": judge,
                            "score": score,
                        }
                    )
                )
    return pd.concat(rows, ignore_index=True)


def test_the_contrast_by_hand_and_the_test_as_scipys():
    frame = pd.DataFrame(
        {
            "item_id": [1] * 4 + [2] * 4 + [3] * 4,
            "solver": ["openai/a", "openai/a", "google/b", "google/b"] * 3,
            "judge": ["openai/j", "google/k"] * 6,
            "score": [5, 3, 2, 2, 4, 4, 1, 2, 3, 1, 3, 3],
        }
    )
    table = frame.set_index(["item_id", "solver", "judge"])["score"].unstack("judge")
    family = {m: family_of(m) for m in ["openai/a", "google/b", "openai/j", "google/k"]}
    # item 1: (5-3) - (2-2) = 2; item 2: (4-4) - (1-2) = 1; item 3: (3-1) - (3-3) = 2
    assert item_contrasts(table, "openai/j", family).tolist() == [2, 1, 2]
    rows = {row.judge: row for row in self_preference(frame)}
    d = np.array([2.0, 1.0, 2.0])
    test = scipy_stats.ttest_1samp(d, 0)
    assert abs(rows["openai/j"].p - test.pvalue) < 1e-12
    low, high = test.confidence_interval()
    assert abs(rows["openai/j"].ci_low - low) < 1e-12
    assert abs(rows["openai/j"].ci_high - high) < 1e-12
    # two families: google's judge sees the same interaction from its side, the sum
    # of both judges' preferences (item 1: (2-2) - (3-5) = 2, as openai's)
    assert rows["google/k"].estimate == pytest.approx(5 / 3)
    assert rows["openai/j"].p_holm == pytest.approx(min(1, 2 * rows["openai/j"].p))


def test_judges_without_a_family_solving_get_no_row():
    frame = study(
        np.random.default_rng(0), dict.fromkeys([f"{f}/judge" for f in FAMILIES], 0.0)
    )
    frame = frame[~frame["solver"].str.startswith("mistral/")]
    assert [r.family for r in self_preference(frame)] == [
        "anthropic",
        "google",
        "openai",
    ]


def test_no_bonus_rarely_flags_a_judge_and_a_known_bonus_is_recovered():
    """200 studies of 4 families (a judge and 2 solvers each) on 30 items. Without
    a bonus, at most 5 % of studies flag any judge at Holm-adjusted p < 0.05; with
    bonuses 0, 0.2, 0.4 and 0.6, each judge's interval covers its bonus in at least
    90 % of the studies."""
    rng = np.random.default_rng(51)
    judges = [f"{f}/judge" for f in FAMILIES]
    null = dict.fromkeys(judges, 0.0)
    truth = dict(zip(judges, [0.0, 0.2, 0.4, 0.6]))
    flagged, covered = 0, dict.fromkeys(judges, 0)
    for _ in range(200):
        flagged += any(r.p_holm < 0.05 for r in self_preference(study(rng, null)))
        for row in self_preference(study(rng, truth)):
            covered[row.judge] += row.ci_low <= truth[row.judge] <= row.ci_high
    print("false-positive rate", flagged / 200)
    print("coverage", {j: c / 200 for j, c in covered.items()})
    assert flagged / 200 <= 0.05
    assert all(c / 200 >= 0.90 for c in covered.values())
