"""The judge cards from a graded frame with draws, people's labels and judges of
several families (the frame as `results` builds it, with the `draw` key column)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from itemeval.results.judges import judge_cards
from itemeval.results.variance import graded_conditions
from itemeval.stats.reliability import icc_2_1

FAMILIES = ("openai", "anthropic", "google")


def condition(cid, kind, model=None, rubric="r"):
    return SimpleNamespace(
        id=cid,
        slug=cid,
        kind=kind,
        grader_model=model,
        rubric=SimpleNamespace(ref=rubric),
    )


def graded(seed: int = 0, items: int = 40, draws: int = 3, bonus: float = 0.0):
    """Three judges (one a family) grade three solvers' answers `draws` times on a
    0-1 scale; people labelled every answer once; openai's judge adds `bonus` to
    openai's answers."""
    rng = np.random.default_rng(seed)
    quality = rng.random((len(FAMILIES), items))
    rows = []
    for g, family in enumerate(FAMILIES):
        for judge in FAMILIES:
            own = bonus if judge == family == "openai" else 0.0
            for draw in range(1, draws + 1):
                noise = rng.normal(0, 0.1, items)
                rows.append(
                    pd.DataFrame(
                        {
                            "gen_condition_id": f"gen-{family}",
                            "grade_condition_id": f"judge-{judge}",
                            "item_id": [f"i{k}" for k in range(items)],
                            "epoch": 1,
                            "draw": draw,
                            "status": "scored",
                            "score": np.clip(quality[g] + noise + own, 0, 1),
                        }
                    )
                )
        rows.append(
            pd.DataFrame(
                {
                    "gen_condition_id": f"gen-{family}",
                    "grade_condition_id": "human",
                    "item_id": [f"i{k}" for k in range(items)],
                    "epoch": 1,
                    "draw": 1,
                    "status": "scored",
                    "score": (quality[g] > 0.5).astype(float),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


STUDY = SimpleNamespace(
    generate=[SimpleNamespace(id=f"gen-{f}", model=f"{f}/solver") for f in FAMILIES]
)
GRADE = [condition(f"judge-{f}", "judge", f"{f}/judge") for f in FAMILIES] + [
    condition("human", "human")
]


def test_a_card_per_judge_with_draws_people_and_self_preference():
    frame = graded(bonus=0.3)
    cards = {c["slug"]: c for c in judge_cards(STUDY, frame, GRADE, seed=1)}
    assert set(cards) == {"judge-openai", "judge-anthropic", "judge-google"}
    card = cards["judge-anthropic"]
    assert (card["n"], card["draws"], card["kappa_kind"]) == (120, 3, "fleiss")
    mine = frame[frame["grade_condition_id"] == "judge-anthropic"]
    matrix = mine.pivot_table(
        index=["gen_condition_id", "item_id"], columns="draw", values="score"
    ).to_numpy()
    assert card["icc"] == pytest.approx(icc_2_1(matrix)[0], abs=1e-12)
    assert card["icc_ci_low"] <= card["icc"] <= card["icc_ci_high"]
    assert card["n_human"] == 120 and card["kappa_human"] > 0.5
    assert card["pass_mark"] == pytest.approx(0.5, abs=0.05)
    openai = cards["judge-openai"]["self_preference"]
    # the bonus, less what the top of the scale cut off
    assert 0.2 < openai["estimate"] <= 0.3 and openai["p_holm"] < 0.05
    for other in ("judge-google", "judge-anthropic"):
        assert abs(cards[other]["self_preference"]["estimate"]) < 0.05
    assert cards["judge-openai"]["leniency"] > cards["judge-google"]["leniency"]


def test_a_frame_without_draws_is_draw_one():
    frame = graded(draws=1).drop(columns="draw")
    cards = judge_cards(STUDY, frame, GRADE)
    assert all(c["draws"] == 1 and c["icc"] is None for c in cards)


def test_the_g_study_reads_the_judges_of_the_most_shared_rubric():
    grade = [*GRADE, condition("other", "judge", "openai/judge", rubric="s")]
    assert [c.id for c in graded_conditions(grade)] == [
        "judge-openai",
        "judge-anthropic",
        "judge-google",
    ]
    assert graded_conditions([condition("v", "verifiable")])[0].id == "v"


def test_the_g_study_of_judges_and_draws_over_the_graded_frame():
    """Three solvers (the models) graded by three judges three times: judge and draw
    are facets; the figures are stats' on the same array."""
    from itemeval.results.variance import variance_report
    from itemeval.stats.g_study import g_coefficient
    from itemeval.stats.variance_components import anova_components

    frame = graded(seed=3)
    study = SimpleNamespace(
        generate=[
            SimpleNamespace(
                id=f"gen-{f}",
                model=f"{f}/solver",
                prompt=SimpleNamespace(ref="p"),
                model_config_name="default",
                solver="plain",
            )
            for f in FAMILIES
        ]
    )
    table = variance_report(study, frame, GRADE, price=lambda s: s["item"] * 0.01)
    assert table["facets"] == ["item", "model", "judge", "draw"]
    names = [row["component"] for row in table["rows"]]
    assert names == [
        "item", "model", "judge", "draw", "item:model", "item:judge", "item:draw",
        "residual",
    ]  # fmt: skip
    judged = frame[frame["grade_condition_id"].str.startswith("judge-")]
    array = (
        judged.sort_values(
            ["item_id", "gen_condition_id", "grade_condition_id", "draw"]
        )
        .score.to_numpy()
        .reshape(40, 3, 3, 3)
    )
    fit = anova_components(array, ("item", "model", "judge", "draw"))
    assert table["g_coefficient"] == pytest.approx(g_coefficient(fit), abs=1e-12)
    # the solvers differ item by item, not on the whole: little to rank them by
    assert table["g_coefficient"] < 0.8
    assert not any(d["cheapest"] for d in table["designs"])
    assert {d["judges"] for d in table["designs"]} == {1, 2, 3, 5}
