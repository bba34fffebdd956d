"""`generate --race`: end to end against the local OpenAI-compatible server (counting
its requests) and the offline models, resumed, on a judge, and refused."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pandas as pd
import pytest

from itemeval.adaptive.until_decided import item_order
from itemeval.cli import main
from itemeval.study.load import load_study
from tests.helpers import base_config, cli_json, write_study
from tests.stats.test_item_analysis import _arithmetic

ACCURACY = {"m90": 0.9, "m50": 0.5, "m45": 0.45, "m40": 0.4}
"""The local server's models and how often each answers right."""


def _scripted(body: dict) -> str | None:
    """Right (the server's own reply) with the model's accuracy, else a wrong
    number; fixed by the model and the question, so a re-sent request would agree."""
    question = body["messages"][-1]["content"]
    question = question if isinstance(question, str) else json.dumps(question)
    key = f"{body['model']}|{question}".encode()
    draw = int(hashlib.sha256(key).hexdigest()[:8], 16) / 16**8
    return None if draw < ACCURACY[body["model"]] else "ANSWER: -1"


@pytest.fixture
def server(monkeypatch):
    from inspect_ai.model import _model

    from tests.openai_server import OpenAIServer

    with OpenAIServer(responder=_scripted) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        _model._models.clear()
        yield srv
    _model._models.clear()


def _local_study(tmp_path, items: int = 200):
    config = base_config(
        cache=False,
        solvers__models=[f"openai-api/local/{m}" for m in ACCURACY],
        solvers__temperature=0.0,
    )
    return write_study(tmp_path, config, rows=_arithmetic(items, set(), seed=5))


def _race(capsys, path, *args: str):
    return cli_json(
        capsys, "generate", str(path), "--race", "--round", "20", "--json", *args
    )


def _by_model(requests: list[dict]) -> Counter:
    return Counter(body["model"] for body in requests)


def test_a_race_stops_early_names_the_best_and_pays_only_for_contenders(
    server, tmp_path, capsys
):
    path = _local_study(tmp_path)
    code, race, err = _race(capsys, path, "--seed", "4")
    assert code == 0, err
    assert "round 1 (20 items): 4 in; out: -" in err  # told as each round ends
    winner = race["slugs"][race["winners"][0]]
    assert race["stopped"] == "decided" and winner.startswith("m90_")
    # the server saw exactly the cells the race gave each condition, no more
    sent = _by_model(server.requests)
    given = {race["slugs"][c].split("_")[0]: n for c, n in race["items"].items()}
    assert sent == Counter(given)
    assert sum(sent.values()) == race["calls"] < race["calls_full"] == 4 * 200
    assert race["share_of_full_grid"] == pytest.approx(race["calls"] / 800)
    # the losers left in rounds, each on a pair whose lower bound is above 0
    losers = set(race["conditions"]) - set(race["winners"])
    assert {e["condition"] for e in race["eliminations"]} == losers
    for gone in race["eliminations"]:
        assert given[race["slugs"][gone["condition"]].split("_")[0]] == gone["items"]
        assert gone["beaten_by"] and all(p["low"] > 0 for p in gone["beaten_by"])
        assert all(p["b"] == gone["condition"] for p in gone["beaten_by"])
    # exactly the first items of the seeded order were run and graded
    study = tmp_path / "studies" / "t"
    solutions = pd.read_parquet(study / "solutions.parquet")
    order = [i.id for i in item_order(load_study(path).items, 4, None)]
    assert set(solutions["item_id"]) == set(order[: race["items"][race["winners"][0]]])
    assert len(pd.read_parquet(study / "grades.parquet")) == len(solutions)

    manifest = json.loads(open(race["manifest"], encoding="utf-8").read())
    assert manifest["stage"] == "race" and manifest["outcome"] == "completed"
    assert manifest["stopped"] == "decided"
    rounds = manifest["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    assert rounds[-1]["survivors"] == race["winners"]
    left = [c for r in rounds for c in r["eliminated"]]
    assert sorted(left) == sorted(e["condition"] for e in race["eliminations"])
    assert all(len(r["pairs"]) == 6 for r in rounds)

    # resumed: the same rounds replay from the store, with no request sent
    before = len(server.requests)
    code, again, err = _race(capsys, path, "--seed", "4")
    assert code == 0, err
    assert len(server.requests) == before and again["usd"] == 0
    assert again["eliminations"] == race["eliminations"]

    code, results, err = cli_json(capsys, "results", str(path), "--json")
    assert code == 0, err
    assert results["race"]["run_id"] == again["run_id"]
    assert results["race"]["calls_saved"] == 800 - race["calls"]
    capsys.readouterr()
    assert main(["results", str(path), "-C", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (
        f"top 1: {winner}" in out and "full-grid calls" in out and "left after" in out
    )


def test_a_race_among_equals_runs_out_of_items_undecided(tmp_path, capsys):
    config = base_config(
        solvers__models=["itemeval/arith-60", "itemeval/arith-61"],
        solvers__temperature=0.0,
    )
    path = write_study(tmp_path, config, rows=_arithmetic(40, set(), seed=5))
    code, race, err = _race(capsys, path)
    assert code == 0, err
    assert race["stopped"] == "items_ran_out" and race["decision"] == "undecided"
    assert race["winners"] == [] and race["calls"] == race["calls_full"] == 80
    assert sorted(race["alive"]) == sorted(race["conditions"])


def test_top_all_ranks_every_condition_and_each_leaves_once_placed(tmp_path, capsys):
    config = base_config(
        solvers__models=["itemeval/arith-95", "itemeval/arith-60", "itemeval/arith-20"],
        solvers__temperature=0.0,
    )
    path = write_study(tmp_path, config, rows=_arithmetic(200, set(), seed=5))
    code, race, err = _race(capsys, path, "--top", "all")
    assert code == 0, err
    assert race["top"] == "all" and race["stopped"] == "decided"
    names = [race["slugs"][c].split("_")[0] for c in race["ranking"]]
    assert names == ["arith-95", "arith-60", "arith-20"]
    assert race["winners"] == race["ranking"] and race["alive"] == []
    assert sorted(e["rank"] for e in race["eliminations"]) == [1, 2, 3]
    # a placed condition ran no further: its items are those of its last round
    for placed in race["eliminations"]:
        assert race["items"][placed["condition"]] == placed["items"]
        assert placed["beaten_by"] or placed["beats"]
    assert race["calls"] < race["calls_full"] == 600


def test_a_judge_races_when_there_is_no_scorer(tmp_path, capsys):
    """Its grades are written between rounds, before the next round is sent."""
    config = base_config(
        solvers__models=["itemeval/arith-95", "itemeval/arith-30"],
        solvers__temperature=0.0,
        facets__scorer=None,
        facets__grader=["itemeval/judge"],
    )
    path = write_study(tmp_path, config, rows=_arithmetic(120, set(), seed=5))
    code, race, err = _race(capsys, path)
    assert code == 0, err
    assert (
        race["grade_condition_id"].startswith("itemeval-judge")
        or "judge" in (race["slugs"][race["grade_condition_id"]])
    )
    assert race["stopped"] == "decided"
    assert race["slugs"][race["winners"][0]].startswith("arith-95")
    assert race["calls_per_item"] == 2  # the answer and its judge's grade
    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    solutions = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    assert len(grades) == len(solutions) == sum(race["items"].values())


def test_the_spend_cap_stops_a_race_and_says_so(tmp_path, capsys):
    config = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-fair"],
        solvers__temperature=0.0,
    )
    path = write_study(tmp_path, config, rows=_arithmetic(200, set(), seed=5))
    code, race, err = _race(capsys, path, "--max-usd", "0.002")
    assert race is not None, err
    assert race["stopped"] == "budget" and race["decision"] == "undecided"
    assert code == 4 and race["calls"] < race["calls_full"]
    manifest = json.loads(open(race["manifest"], encoding="utf-8").read())
    assert manifest["stopped"] == "budget" and manifest["outcome"] == "budget_stopped"
    assert race["usd"] <= 0.002 + 1e-9


@pytest.mark.parametrize(
    "args, message",
    [
        (["--until-decided", "arith-good", "arith-fair"], "use one of them"),
        (["--top", "2"], "--top 2: must be from 1 to 1"),
        (["--top", "0"], "--top 0: name how many"),
        (["--top", "best"], "--top best: name how many"),
        (["--limit", "5"], "--race chooses its own conditions and items"),
        (["--alpha", "1.5"], "--alpha 1.5"),
    ],
)
def test_a_race_refuses_what_it_cannot_run(tmp_path, capsys, args, message):
    config = base_config(solvers__models=["itemeval/arith-good", "itemeval/arith-fair"])
    path = write_study(tmp_path, config)
    code, _, err = cli_json(capsys, "generate", str(path), "--race", *args)
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "studies" / "t" / "solutions.parquet").exists()


def test_top_without_race_and_a_race_with_nothing_to_race_on_are_refused(
    tmp_path, capsys
):
    config = base_config(solvers__models=["itemeval/arith-good", "itemeval/arith-fair"])
    path = write_study(tmp_path, config)
    code, _, err = cli_json(capsys, "generate", str(path), "--top", "1")
    assert code == 2 and "add --race" in err
    from tests.stages.grade.test_pairwise import offline_study

    pairwise_only = offline_study(tmp_path / "pairwise")
    code, _, err = cli_json(capsys, "generate", str(pairwise_only), "--race")
    assert code == 2 and "no verifiable scorer and no judge" in err
    alone = write_study(tmp_path, base_config())
    code, _, err = cli_json(capsys, "generate", str(alone), "--race")
    assert code == 2 and "needs at least 2" in err


def test_a_ctrl_c_between_rounds_stops_the_race_and_a_rerun_resumes_it(
    tmp_path, monkeypatch
):
    """Interrupted after its first round, the race ends `interrupted` (exit 130) with
    that round kept; run again, it goes on to its decision without re-running a cell
    of the first round (their rows keep the first run's id)."""
    import signal

    import itemeval.adaptive.racing as racing_module
    from itemeval import signals
    from itemeval.adaptive.racing import RaceOptions, run_race

    config = base_config(
        solvers__models=["itemeval/arith-95", "itemeval/arith-20"],
        solvers__temperature=0.0,
    )
    path = write_study(tmp_path, config, rows=_arithmetic(100, set(), seed=5))
    real = racing_module._round

    def round_then_ctrl_c(*args):
        stage = real(*args)
        signal.raise_signal(signal.SIGINT)  # the flag handler takes it
        return stage

    monkeypatch.setattr(racing_module, "_round", round_then_ctrl_c)
    options = RaceOptions(round_size=10, yes=True)
    try:
        first = run_race(load_study(path), options, ask=None, tell=None)
    finally:
        signals.install()  # clears the stop flag for the tests after this one
    assert first.stopped == "interrupted" and first.exit_code == 130
    assert len(first.rounds) == 1 and first.as_dict()["decision"] == "undecided"
    manifest = json.loads(open(first.manifest, encoding="utf-8").read())
    assert manifest["outcome"] == "interrupted" and len(manifest["rounds"]) == 1
    solutions = tmp_path / "studies" / "t" / "solutions.parquet"
    kept = pd.read_parquet(solutions)[["condition_id", "item_id", "run_id"]]
    assert len(kept) == 20

    monkeypatch.setattr(racing_module, "_round", real)
    again = run_race(load_study(path), options, ask=None, tell=None)
    assert again.stopped == "decided" and again.exit_code == 0
    after = pd.read_parquet(solutions).merge(
        kept, on=["condition_id", "item_id"], suffixes=("", "_1")
    )
    assert len(after) == 20 and (after["run_id"] == after["run_id_1"]).all()


@pytest.mark.parametrize(
    "rubric, code",
    [
        # "Score 1 if right." states no range: 0/1, and a 7 cannot be raced on
        ("Q: {input}\nRef: {target}\nA: {solution}\nScore 1 if right.", 2),
        # the rubric's 0-10 scale holds the 7s (equal scores: nobody leaves)
        ("Q: {input}\nRef: {target}\nA: {solution}\nScore from 0 to 10.", 0),
    ],
)
def test_a_judge_races_on_the_scale_its_rubric_states(
    tmp_path, capsys, monkeypatch, rubric, code
):
    from inspect_ai.model import _model

    from tests.openai_server import OpenAIServer

    def judge_gives_7(body):
        if body["model"] == "j":
            return '```json\n{"score": 7, "reasoning": "r"}\n```'
        return None

    config = base_config(
        solvers__models=["itemeval/arith-95", "itemeval/arith-20"],
        facets__scorer=None,
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "openai-api/local/j"}},
    )
    path = write_study(tmp_path, config, rows=_arithmetic(20, set(), seed=5))
    (tmp_path / "rubrics" / "r.md").write_text(rubric)
    with OpenAIServer(responder=judge_gives_7) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        _model._models.clear()
        got, race, err = _race(capsys, path, "--round", "10")
    _model._models.clear()
    assert got == code, err
    (manifest,) = (tmp_path / "studies" / "t" / "manifests").glob("*-race-*.json")
    recorded = json.loads(manifest.read_text())
    if code:
        assert "outside its scale [0, 1]" in err and "state it in the rubric" in err
        assert (
            recorded["outcome"] == "failed" and "outside its scale" in recorded["error"]
        )
    else:
        assert race["stopped"] == "items_ran_out" and recorded["outcome"] == "completed"
        assert srv.count("Score from 0 to 10") == 40  # every answer judged once
