"""`itemeval estimate`: calls, tokens and USD of exactly the cells a run would
execute, with no model call."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from itemeval.cli import main
from itemeval.plan.cost import estimate_tokens
from itemeval.plan.pricing import load_prices
from itemeval.stages.grade.judge import judge_prompt
from itemeval.study.load import load_study
from tests.conftest import REPO
from tests.helpers import REPO, base_config, write_study
from tests.openai_server import OpenAIServer

PRICES = load_prices()


@pytest.fixture(autouse=True)
def well_formed_judges(monkeypatch):
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")


def make_study(root: Path, **overrides: Any) -> Path:
    config = base_config(
        **{
            "cache": False,
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {
                "j": {"model": "itemeval/judge", "max_tokens": 100},
                "k": {"model": "itemeval/judge", "max_tokens": 50},
                "other": {"model": "itemeval/judge-other", "max_tokens": 50},
            },
            **overrides,
        }
    )
    return write_study(root, config)


def estimate(capsys, config: Path, *args: str) -> dict[str, Any]:
    assert main(["estimate", str(config), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # exactly one JSON document


def lines(result: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(line["stage"], line["slug"]): line for line in result["conditions"]}


def calls(result: dict[str, Any]) -> dict[tuple[str, str], int]:
    """Calls per (stage, slug), leaving out conditions with nothing to run."""
    return {key: line["calls"] for key, line in lines(result).items() if line["calls"]}


def test_fresh_study_counts_every_cell_at_the_ceiling(tmp_path, capsys):
    config = make_study(tmp_path)
    result = estimate(capsys, config)
    study = load_study(config)
    gen = lines(result)[("generate", "arith-good_p_default")]
    prompts = [
        study.generate[0].prompt.text.replace("{input}", item.input)
        for item in study.items
    ]
    assert (
        gen["calls"] == 4
        and gen["basis"] == "ceiling"
        and gen["model"] == "itemeval/arith-good"
    )
    assert gen["input_tokens"] == sum(estimate_tokens(p) for p in prompts)
    assert gen["output_tokens_ceiling"] == gen["output_tokens_expected"] == 4 * 256
    price = PRICES.lookup("itemeval/arith-good")
    assert gen["usd_ceiling"] == pytest.approx(price.cost(gen["input_tokens"], 4 * 256))
    judge = lines(result)[("grade", "j_r")]
    assert (judge["calls"], judge["basis"], judge["output_tokens_ceiling"]) == (
        4,
        "ceiling",
        400,
    )
    scorer = lines(result)[("grade", "scorer_numeric")]
    assert (
        scorer["calls"],
        scorer["basis"],
        scorer["usd_ceiling"],
        scorer["usd_expected"],
    ) == (4, "free", 0.0, 0.0)
    assert (
        result["stages"]["generate"]["calls"] == 4
        and result["stages"]["grade"]["calls"] == 8
    )
    assert result["total"]["usd_ceiling"] == pytest.approx(
        gen["usd_ceiling"] + judge["usd_ceiling"]
    )
    assert not (
        tmp_path / "studies" / "t" / "solutions.parquet"
    ).exists()  # estimating writes no store


def test_counts_only_what_would_run_and_uses_what_is_stored(tmp_path, capsys):
    config = make_study(tmp_path)
    assert main(["generate", str(config), "--limit", "2"]) == 0
    capsys.readouterr()
    stored = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    result = estimate(capsys, config)
    gen = lines(result)[("generate", "arith-good_p_default")]
    assert gen["calls"] == 2 and gen["basis"] == "condition"
    assert gen["output_tokens_expected"] == round(2 * stored["output_tokens"].mean())
    assert gen["output_tokens_ceiling"] == 2 * 256
    assert (
        calls(result)[("grade", "j_r")] == 4
    )  # 2 stored solutions + 2 still to generate

    # the judge's input is the rubric over the stored solution
    study = load_study(config)
    items = {item.id: item for item in study.items}
    judge = next(c for c in study.grade if c.kind == "judge")
    graded_now = lines(estimate(capsys, config, "--stage", "grade"))
    assert set(graded_now) == {("grade", "j_r"), ("grade", "scorer_numeric")}
    assert graded_now[("grade", "j_r")]["calls"] == 2
    assert graded_now[("grade", "j_r")]["input_tokens"] == sum(
        estimate_tokens(judge_prompt(judge, items[i], text))
        for i, text in zip(stored["item_id"], stored["solution"])
    )

    forced = estimate(capsys, config, "--force")
    assert calls(forced) == {
        ("generate", "arith-good_p_default"): 4,
        ("grade", "j_r"): 4,
        ("grade", "scorer_numeric"): 4,
    }
    assert (
        calls(estimate(capsys, config, "--force", "--stage", "grade"))[("grade", "j_r")]
        == 2
    )
    assert calls(estimate(capsys, config, "--limit", "2")) == {
        ("grade", "j_r"): 2,
        ("grade", "scorer_numeric"): 2,
    }
    assert set(lines(estimate(capsys, config, "--stage", "generate"))) == {
        ("generate", "arith-good_p_default")
    }


def test_selection_options_and_the_expected_basis(tmp_path, capsys):
    config = make_study(tmp_path, facets__prompt=["p", "builtin:minimal"])
    assert main(["generate", str(config)]) == 0
    assert main(["grade", str(config), "--condition", "arith-good_p_default"]) == 0
    capsys.readouterr()
    gen_ids = {c.slug: c.id for c in load_study(config).generate}

    result = estimate(capsys, config)
    assert calls(result) == {("grade", "j_r"): 4, ("grade", "scorer_numeric"): 4}
    assert (
        lines(result)[("grade", "j_r")]["basis"] == "condition"
    )  # j_r has graded some solutions

    by_gen = estimate(
        capsys,
        config,
        "--condition",
        gen_ids["arith-good_builtin-minimal_default"],
        "--stage",
        "grade",
    )
    assert calls(by_gen) == {("grade", "j_r"): 4, ("grade", "scorer_numeric"): 4}
    assert calls(
        estimate(capsys, config, "--condition", "scorer_numeric", "--stage", "grade")
    ) == {("grade", "scorer_numeric"): 4}
    assert (
        calls(
            estimate(
                capsys,
                config,
                "--condition",
                gen_ids["arith-good_p_default"],
                "--stage",
                "grade",
            )
        )
        == {}
    )

    # a judge not in facets.grader: same model -> the model's observed lengths; a new
    # model -> the ceiling
    k = lines(estimate(capsys, config, "--grader", "k", "--stage", "grade"))
    assert (
        set(k) == {("grade", "k_r")}
        and k[("grade", "k_r")]["calls"] == 8
        and k[("grade", "k_r")]["basis"] == "model"
    )
    other = lines(estimate(capsys, config, "--grader", "other", "--stage", "grade"))[
        ("grade", "other_r")
    ]
    assert (other["calls"], other["basis"], other["output_tokens_expected"]) == (
        8,
        "ceiling",
        8 * 50,
    )
    both = estimate(
        capsys,
        config,
        "--grader",
        "k",
        "--condition",
        gen_ids["arith-good_p_default"],
        "--stage",
        "grade",
    )
    assert calls(both) == {("grade", "k_r"): 4}
    assert calls(estimate(capsys, config, "--rubric", "r", "--stage", "grade")) == {
        ("grade", "j_r"): 4
    }
    assert main(["estimate", str(config), "--rubric", "nope"]) == 2


def test_unpriced_models_are_unknown_and_estimating_calls_no_model(
    tmp_path, capsys, monkeypatch
):
    config = make_study(
        tmp_path,
        solvers__models=["openai-api/local/m"],
        graders={"j": {"model": "openai-api/local/judge"}},
    )
    with OpenAIServer() as server:
        for key, value in server.env().items():
            monkeypatch.setenv(key, value)
        result = estimate(capsys, config)
        assert main(["estimate", str(config)]) == 0
        text = capsys.readouterr().out
        assert server.requests == []
    gen, judge = (
        lines(result)[("generate", "m_p_default")],
        lines(result)[("grade", "j_r")],
    )
    for line in (gen, judge):
        assert line["calls"] == 4 and line["priced"] is False
        assert line["usd_ceiling"] is None and line["usd_expected"] is None
    assert (
        result["total"]["usd_ceiling"] is None
        and result["stages"]["grade"]["usd_expected"] is None
    )
    assert (
        "unknown" in text and "$0.0000" not in text.split("total:")[1].splitlines()[0]
    )
    assert any(
        "openai-api/local/judge" in note and "openai-api/local/m" in note
        for note in result["notes"]
    )


def test_nothing_left_to_run_costs_nothing_even_unpriced(tmp_path, capsys):
    config = make_study(tmp_path, graders={"j": {"model": "itemeval/judge-unpriced"}})
    assert main(["generate", str(config)]) == 0 and main(["grade", str(config)]) == 0
    capsys.readouterr()
    result = estimate(capsys, config)
    assert result["total"] == {
        "calls": 0,
        "cached": 0,
        "usd_ceiling": 0.0,
        "usd_expected": 0.0,
        "usd_low": None,
        "usd_high": None,
        "projected": True,  # nothing left to run: $0 is known, not a ceiling
    }
    assert not any("no price" in note for note in result["notes"])
    pending = estimate(capsys, config, "--force", "--stage", "grade")
    assert pending["total"]["calls"] == 8 and pending["total"]["usd_ceiling"] is None


def test_expected_generate_spend_is_within_15_percent_on_the_demo(tmp_path, capsys):
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    for folder in ("prompts", "rubrics"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    config = tmp_path / "configs" / "demo.yaml"
    data = yaml.safe_load(config.read_text())
    config.write_text(yaml.safe_dump({**data, "cache": False}, sort_keys=False))

    assert main(["generate", str(config), "--limit", "5"]) == 0
    capsys.readouterr()
    projected = estimate(capsys, config, "--stage", "generate")
    assert all(line["basis"] == "condition" for line in projected["conditions"])
    assert main(["generate", str(config), "--json"]) == 0
    run = json.loads(capsys.readouterr().out)

    solutions = pd.read_parquet(tmp_path / "studies" / "demo" / "solutions.parquet")
    new = solutions[solutions["run_id"] == run["run_id"]]
    assert len(new) == projected["stages"]["generate"]["calls"] == 8 * 19 * 2
    expected, actual = (
        projected["stages"]["generate"]["usd_expected"],
        float(new["usd"].sum()),
    )
    ratio = expected / actual
    print(
        f"demo estimate accuracy: expected ${expected:.6f} / actual "
        f"${actual:.6f} = {ratio:.3f}"
    )
    assert 0.85 <= ratio <= 1.15
    assert actual <= projected["stages"]["generate"]["usd_ceiling"]


def test_a_pilot_is_paid_so_it_has_generates_gate_and_cap(
    tmp_path, capsys, monkeypatch
):
    # Issue 26 case 11: `estimate --pilot` made paid calls with no --yes or --max-usd.
    from inspect_ai.model import _model

    from tests.openai_server import OpenAIServer
    from tests.plan.test_budget import capped_study

    with OpenAIServer() as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        path = capped_study(tmp_path, budget__confirm_above_usd=0.0001)
        assert main(["estimate", str(path), "--pilot", "2"]) == 3  # the gate
        assert "--yes" in capsys.readouterr().err
        assert srv.requests == []
        # $0.005 a call: the cap lets two calls start, never a third
        code = main(
            ["estimate", str(path), "--pilot", "3", "--yes", "--max-usd", "0.012"]
        )
        assert code == 4, capsys.readouterr().err
        assert 1 <= len(srv.requests) <= 2
        capsys.readouterr()
        before = len(srv.requests)
        assert main(["estimate", str(path), "--pilot", "2", "--yes", "--json"]) == 0
        assert 0 < len(srv.requests) - before <= 4  # two items × two prompts at most
        bodies = [json.dumps(body, sort_keys=True) for body in srv.requests]
        assert len(bodies) == len(set(bodies))  # nothing paid twice
    _model._models.clear()


def test_calls_in_the_response_cache_are_counted_at_no_cost(
    tmp_path, capsys, monkeypatch
):
    """A wiped study re-run with the cache on: estimated at $0, and it makes no call."""
    config = make_study(
        tmp_path,
        cache=True,
        solvers__models=["openai-api/local/m"],
        graders={"j": {"model": "openai-api/local/judge", "max_tokens": 100}},
    )
    with OpenAIServer() as server:
        for key, value in server.env().items():
            monkeypatch.setenv(key, value)
        assert main(["generate", str(config)]) == 0
        assert main(["grade", str(config)]) == 0
        sent = len(server.requests)
        assert sent == 8
        shutil.rmtree(tmp_path / "studies" / "t")
        capsys.readouterr()

        result = estimate(capsys, config, "--stage", "generate")
        gen = lines(result)[("generate", "m_p_default")]
        assert (gen["calls"], gen["cached"], gen["usd_expected"]) == (4, 4, 0.0)
        assert result["total"]["cached"] == 4
        # whose: the study's own earlier calls (its store was wiped, the cache kept)
        assert any(
            "4 of these calls are in inspect's response cache (4 from this study's "
            "earlier calls)" in note
            for note in result["notes"]
        ), result["notes"]
        assert main(["generate", str(config)]) == 0
        assert len(server.requests) == sent  # every reply came from the cache

        capsys.readouterr()
        graded = lines(estimate(capsys, config, "--stage", "grade"))[("grade", "j_r")]
        assert (graded["calls"], graded["cached"], graded["usd_ceiling"]) == (4, 4, 0.0)
        assert main(["grade", str(config)]) == 0
        assert len(server.requests) == sent
        # a new reply ceiling is a new request: nothing of it is cached
        capsys.readouterr()
        changed = make_study(
            tmp_path,
            cache=True,
            solvers__models=["openai-api/local/m"],
            solvers__max_tokens=64,
        )
        fresh = lines(estimate(capsys, changed, "--stage", "generate"))
        assert fresh[("generate", "m_p_default")]["cached"] == 0
