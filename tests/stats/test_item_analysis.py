"""itemeval.item_analysis and `results --items`: statistics, flags, the IRT fit against
girth's own, and suspect targets found on a study with corrupted targets."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from itemeval.results import items as item_results
from itemeval.results.items import _condition_items
from itemeval.stats import item_analysis as ia
from tests.helpers import base_config, write_study

# ---- pure statistics ----


def test_difficulty_is_the_mean_over_conditions_ignoring_missing():
    scores = np.array([[1.0, 0.0, np.nan], [np.nan, np.nan, np.nan], [0.5, 1.0, 0.0]])
    found = ia.difficulty(scores)
    assert found[0] == 0.5 and np.isnan(found[1]) and found[2] == 0.5


def test_discrimination_is_the_item_rest_correlation():
    rng = np.random.default_rng(0)
    scores = (rng.random((6, 8)) < 0.5).astype(float)
    found = ia.discrimination(scores)
    for i in range(6):
        rest = np.delete(scores, i, axis=0).mean(axis=0)
        assert found[i] == pytest.approx(np.corrcoef(scores[i], rest)[0, 1])


@pytest.mark.parametrize("seed", range(5))
def test_discrimination_with_missing_scores_and_flat_items(seed):
    """Each item against the mean of the other items of the conditions both have,
    recomputed one item at a time with scipy; NaN where either side is flat or fewer
    than three conditions are left."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 5, (12, 7)).astype(float) / 4
    scores[rng.random(scores.shape) < 0.2] = np.nan
    scores[0] = 0.5  # flat: no correlation
    scores[1, 2:] = np.nan  # two conditions left
    found = ia.discrimination(scores)
    for i, row in enumerate(scores):
        others = np.delete(scores, i, axis=0)
        with np.errstate(invalid="ignore"):
            rest = np.nanmean(others, axis=0)  # a condition with no other: NaN
        both = ~np.isnan(row) & ~np.isnan(rest)
        x, y = row[both], rest[both]
        if len(x) < 3 or x.std() == 0 or y.std() == 0:
            assert np.isnan(found[i]), i
        else:
            assert found[i] == pytest.approx(sps.pearsonr(x, y).statistic, abs=1e-12)


def test_flags_for_silent_and_negatively_discriminating_items():
    strong = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    scores = np.vstack([strong, strong, strong, 1 - strong, np.ones(6)])
    silent = ia.no_signal(scores)
    assert silent.tolist() == [False, False, False, False, True]
    discrimination = ia.discrimination(scores)
    assert discrimination[3] < ia.NEGATIVE_BELOW < discrimination[0]
    assert ia.flags(suspect=False, silent=False, discriminates=discrimination[3]) == (
        "negative_discrimination",
    )
    assert ia.flags(suspect=True, silent=True, discriminates=np.nan) == (
        "suspect_target",
        "no_signal",
    )


@pytest.mark.parametrize(
    "answers,correct,suspect",
    [
        (["7", "7", "7", "9"], [False, False, False, False], True),
        (["7", "7", "7", "9"], [True, True, True, False], False),  # they are right
        (["7", "8", "9", "10"], [False] * 4, False),  # no agreement
        (["7", "7", None, None], [False, False, False, False], False),  # too few
        ([" 7", "7 ", "7", "8"], [False] * 4, True),  # whitespace is not an answer
    ],
)
def test_suspect_target_needs_a_wrong_majority(answers, correct, suspect):
    assert ia.suspect_target(ia.consensus(answers, correct)) is suspect


# ---- the IRT fit is girth's own ----


def test_irt_parameters_equal_girths_own_fit_on_the_same_responses():
    from girth import twopl_mml
    from girth.synthetic import create_synthetic_irt_dichotomous

    rng = np.random.default_rng(4)
    a, b = rng.uniform(0.8, 2.0, 12), rng.normal(size=12)
    data = create_synthetic_irt_dichotomous(b, a, rng.normal(size=12), seed=3)
    data = np.vstack([data, np.ones((1, 12), dtype=int)])  # everyone got it right
    items = [f"i{k:02d}" for k in range(len(data))]
    # the long table a study holds: 6 conditions x 2 replications are the respondents
    rows = [
        {
            "gen_condition_id": f"c{r % 6}",
            "epoch": 1 + r // 6,
            "item_id": items[i],
            "score": float(data[i, r]),
            "answer": None,
        }
        for i in range(len(data))
        for r in range(data.shape[1])
    ]
    found = _condition_items("g", pd.DataFrame(rows), {}, irt=True)
    assert [row["item_id"] for row in found] == items
    informative = ~((data == 0).all(axis=1) | (data == 1).all(axis=1))
    respondents = [r for c in range(6) for r in (c, c + 6)]  # the table's column order
    theirs = twopl_mml(data[informative][:, respondents], dict(ia.IRT_OPTIONS))
    ours_a = np.array([row["irt_a"] for row in found])
    ours_b = np.array([row["irt_b"] for row in found])
    np.testing.assert_allclose(ours_a[informative], theirs["Discrimination"], rtol=1e-9)
    np.testing.assert_allclose(ours_b[informative], theirs["Difficulty"], rtol=1e-9)
    assert np.isnan(ours_a[~informative]).all() and found[-1]["flags"] == ["no_signal"]


# ---- a study with 5% of its targets corrupted ----

MODELS = ["itemeval/arith-90", "itemeval/arith-85", "itemeval/arith-80"]


def _arithmetic(count: int, corrupted: set[int], seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for k in range(count):
        x, y = rng.randint(11, 99), rng.randint(11, 99)
        op = "+" if k % 2 else "*"
        answer = x + y if op == "+" else x * y
        rows.append(
            {
                "qid": f"q{k:03d}",
                "question": f"What is {x} {op} {y}?",
                # +7 is no slip the offline models make, so no model agrees by chance
                "answer": str(answer + 7 if k in corrupted else answer),
                "difficulty": "easy",
            }
        )
    return rows


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "itemeval", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_suspect_target_finds_corrupted_targets(tmp_path):
    corrupted = set(random.Random(1).sample(range(100), 5))
    models = [*MODELS, "itemeval/arith-75"]
    config = write_study(
        tmp_path,
        base_config(solvers__models=models, solvers__temperature=0.0),
        rows=_arithmetic(100, corrupted, seed=2),
    )
    for stage in ("generate", "grade"):
        assert _cli(stage, str(config), "--yes").returncode == 0
    out = _cli("results", str(config), "--items", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["items"]
    assert {
        "item_id",
        "difficulty",
        "discrimination",
        "irt_a",
        "irt_b",
        "flags",
    } <= set(rows[0])
    flagged = {row["item_id"] for row in rows if "suspect_target" in row["flags"]}
    truth = {f"q{k:03d}" for k in corrupted}
    recall = len(flagged & truth) / len(truth)
    precision = len(flagged & truth) / max(len(flagged), 1)
    print(f"suspect_target: recall {recall:.2f}, precision {precision:.2f}")
    assert recall >= 0.8 and precision >= 0.8
    csv = tmp_path / "items.csv"
    assert _cli("results", str(config), "--items", "--csv", str(csv)).returncode == 0
    table = pd.read_csv(csv)
    assert len(table) == 100 and table["flags"].fillna("").str.contains(
        "suspect_target"
    ).sum() == len(flagged)
    shown = _cli("show", str(config), sorted(flagged & truth)[0])
    assert "suspect_target" in shown.stdout


@pytest.mark.parametrize(
    "arguments,expected",
    [
        (["results", "c.yaml", "--items"], ["results", "c.yaml", "--items", "*"]),
        (
            ["results", "c.yaml", "--items", "--json"],
            ["results", "c.yaml", "--items", "*", "--json"],
        ),
        (
            ["results", "c.yaml", "--items", "a1"],
            ["results", "c.yaml", "--items", "a1"],
        ),
        (["generate", "c.yaml", "--items"], ["generate", "c.yaml", "--items"]),
    ],
)
def test_a_bare_items_on_results_is_the_item_analysis(arguments, expected):
    from itemeval.cli import bare_items

    assert bare_items(arguments) == expected


def _first_most(rows: pd.DataFrame, keys: list[str], order: str, **extra):
    """The pandas reading of a consensus step: per `keys`, the answer with the most
    rows (ties: the smallest `order`)."""
    counted = (
        rows.groupby([*keys, "answer"], sort=False)
        .agg(count=(order, "size"), first=(order, "min"), **extra)
        .reset_index()
    )
    ranked = counted.sort_values(
        [*keys, "count", "first"],
        ascending=[*(True for _ in keys), False, True],
        kind="stable",
    )
    return ranked.drop_duplicates(keys).reset_index(drop=True)


def _pandas_consensus(frame: pd.DataFrame) -> dict:
    answered = frame[frame["answer"].notna()]
    rows = pd.DataFrame(
        {
            "item_id": answered["item_id"].to_numpy(),
            "gen": answered["gen_condition_id"].to_numpy(),
            "answer": answered["answer"].astype(str).str.strip().to_numpy(),
            "score": answered["score"].to_numpy(dtype=float),
            "order": np.arange(len(answered)),
        }
    )
    modal = _first_most(rows, ["item_id", "gen"], "order", score=("score", "mean"))
    given = modal[modal["answer"] != ""].assign(right=lambda m: m["score"] >= 0.5)
    given = given.assign(rank=np.arange(len(given)))
    best = _first_most(given, ["item_id"], "rank", right=("right", "sum"))
    by = given.groupby("item_id", sort=False).size().to_dict()
    return {
        i: ia.Consensus(a, n / by[i], by[i], r * 2 > n)
        for i, a, n, r in zip(
            best["item_id"], best["answer"], best["count"], best["right"]
        )
    }


@pytest.mark.parametrize("seed", range(40))
def test_consensus_by_codes_is_the_pandas_grouping(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 80))
    frame = pd.DataFrame(
        {
            "item_id": rng.choice(["q1", "q2", "q10", "q3"], n),
            "gen_condition_id": rng.choice(["gen-b", "gen-a", "gen-c"], n),
            "answer": rng.choice(["12", " 12", "7", "", None, "7.0"], n),
            "score": rng.choice([0.0, 1.0, 0.5], n),
            "epoch": rng.integers(1, 4, n),
        }
    )
    assert item_results._consensus(frame) == _pandas_consensus(frame)
