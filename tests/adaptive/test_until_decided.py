"""`generate --until-decided`, `plan` and `results --compare` beside the sequence, end
to end on the offline models."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from itemeval.adaptive.until_decided import (
    SequentialOptions,
    item_order,
    run_until_decided,
)
from itemeval.errors import ConfigError
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study
from tests.stats.test_item_analysis import _arithmetic


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "itemeval", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def study_config(tmp_path):
    config = base_config(
        solvers__models=["itemeval/arith-95", "itemeval/arith-40"],
        solvers__temperature=0.0,
    )
    return write_study(tmp_path, config, rows=_arithmetic(150, set(), seed=5))


def test_until_decided_stops_early_keeps_its_rows_and_records_the_decision(
    study_config, tmp_path
):
    out = _cli(
        "generate",
        str(study_config),
        "--until-decided",
        "arith-95",
        "arith-40",
        "--round",
        "10",
        "--seed",
        "3",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["decision"] == "a_better" and result["cs_low"] > 0
    assert (
        result["items_run"] < 150 and result["items_saved"] == 150 - result["items_run"]
    )
    assert result["items_run"] % 10 == 0 and len(result["rounds"]) >= 1
    study = tmp_path / "studies" / "t"
    solutions = pd.read_parquet(study / "solutions.parquet")
    # exactly the first items of the seeded order were run, for both conditions
    order = item_order(load_study(study_config).items, 3, None)
    ran = {item.id for item in order[: result["items_run"]]}
    assert set(solutions["item_id"]) == ran and len(solutions) == 2 * len(ran)
    assert len(pd.read_parquet(study / "grades.parquet")) == 2 * len(ran)
    manifest = json.loads(
        (study / "manifests" / f"{result['run_id']}.json").read_text()
    )
    assert manifest["stage"] == "sequential" and manifest["outcome"] == "completed"
    assert manifest["decision"] == "a_better"
    assert manifest["items_run"] == result["items_run"]
    assert manifest["bounds"] == {
        "cs_low": result["cs_low"],
        "cs_high": result["cs_high"],
    }

    compared = _cli(
        "results", str(study_config), "--compare", "arith-40", "arith-95", "--json"
    )
    assert compared.returncode == 0, compared.stderr
    (row,) = json.loads(compared.stdout)["sequential"]
    # asked as B - A: the sequence is turned round to match the comparison
    assert row["decision"] == "b_better" and row["cs_high"] == -result["cs_low"]
    assert row["items_saved"] == result["items_saved"] and row["fixed_items"] == len(
        ran
    )
    text = _cli("results", str(study_config), "--compare", "arith-95", "arith-40")
    assert f"{result['items_saved']} saved" in text.stdout

    planned = _cli("plan", str(study_config), "--detect", "0.2", "--json")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)
    assert {"items", "replications", "power", "usd"} <= set(plan["options"][0])
    assert plan["recommended"] in plan["options"]
    assert all(option["power"] >= 0.8 for option in plan["options"])
    assert plan["options"][0]["method"] == "mcnemar"  # 0/1 scores, one replication


def test_a_study_without_a_verifiable_scorer_is_refused(tmp_path):
    config = base_config(facets__scorer=None, facets__grader=["itemeval/judge"])
    study = load_study(write_study(tmp_path, config))
    with pytest.raises(ConfigError, match="verifiable scorer"):
        run_until_decided(
            study,
            SequentialOptions(pair=("arith-good", "arith-good")),
            ask=None,
            tell=None,
        )


def test_the_seeded_order_is_fixed_and_capped():
    items = list(range(50))
    assert item_order(items, 1, 10) == item_order(items, 1, 10)
    assert item_order(items, 1, 10) != item_order(items, 2, 10)
    assert sorted(item_order(items, 1, None)) == items


def test_until_decided_refuses_options_that_choose_items_or_conditions(study_config):
    out = _cli(
        "generate",
        str(study_config),
        "--until-decided",
        "arith-95",
        "arith-40",
        "--limit",
        "5",
    )
    assert out.returncode == 2 and "--until-decided chooses its own" in out.stderr


def test_plan_prices_cells_never_run_though_the_cache_answers_those_that_ran(
    tmp_path,
):
    """Once the study ran with the response cache on, its own calls are cached; the
    plan's options (more items, more replications than ever ran) still cost what a
    call costs, not $0, so the cheapest option means something."""
    config = base_config(
        solvers__models=["itemeval/arith-95", "itemeval/arith-40"],
        solvers__temperature=0.0,
        cache="study",
    )
    path = write_study(tmp_path, config, rows=_arithmetic(30, set(), seed=5))
    for stage in ("generate", "grade"):
        done = _cli(stage, str(path), "--yes", "--display", "none")
        assert done.returncode == 0, done.stderr
    estimated = _cli("estimate", str(path), "--force", "--json")
    assert json.loads(estimated.stdout)["total"]["usd_expected"] == 0  # all cached
    planned = _cli("plan", str(path), "--detect", "0.2", "--json")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads(planned.stdout)
    assert plan["usd_per_cell"] > 0
    for option in plan["options"]:
        cells = option["items"] * option["replications"]
        assert option["usd"] == pytest.approx(cells * plan["usd_per_cell"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--detect", "nan"], "--detect nan"),
        (["--detect", "inf"], "--detect inf"),
        (["--detect", "1.5"], "so two means differ by less than 1"),
        (["--detect", "0.1", "--compare", "arith-95", "arith-95"], "two different"),
    ],
)
def test_plan_refuses_a_difference_or_pair_it_cannot_plan_for(tmp_path, args, message):
    config = base_config(solvers__models=["itemeval/arith-95", "itemeval/arith-40"])
    path = write_study(tmp_path, config, rows=_arithmetic(12, set(), seed=5))
    for stage in ("generate", "grade"):
        assert _cli(stage, str(path), "--yes", "--display", "none").returncode == 0
    out = _cli("plan", str(path), *args)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr and "Traceback" not in out.stderr


def test_a_ctrl_c_between_rounds_stops_the_loop_before_its_next_round(
    study_config, monkeypatch
):
    """The signal arrives after a round (where inspect's finalizers run): it sets the
    stop flag rather than raising where it could be swallowed, and the loop ends
    interrupted after that round, sparing no item it claims to have saved."""
    import signal

    import itemeval.adaptive.until_decided as ud
    from itemeval import signals

    real = ud._round

    def round_then_ctrl_c(*args):
        stage = real(*args)
        signal.raise_signal(signal.SIGINT)  # our flag handler takes it
        return stage

    monkeypatch.setattr(ud, "_round", round_then_ctrl_c)
    try:
        result = run_until_decided(
            load_study(study_config),
            SequentialOptions(pair=("arith-95", "arith-40"), round_size=10, yes=True),
            ask=None,
            tell=None,
        )
    finally:
        signals.install()  # clears the stop flag for the tests after this one
    assert result.outcome == "interrupted" and result.exit_code == 130
    assert len(result.rounds) == 1 and result.items_run == 10
    assert result.as_dict()["items_saved"] == 0
    manifest = json.loads(open(result.manifest, encoding="utf-8").read())
    assert manifest["outcome"] == "interrupted"
