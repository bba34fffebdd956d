"""Agents at generate (README "Agents"): real inspect react() agents with a user tool
and inspect's python/bash in the local sandbox, on the offline models and through
the real OpenAI SDK at the local server; resumed after SIGKILL, capped, graded with
{transcript}, compared by solver."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import yaml

from itemeval.cli import main
from itemeval.study.load import load_study
from tests.helpers import TESTS, base_config, write_study
from tests.openai_server import OpenAIServer
from tests.processes import journaled, sigkill_when, start_itemeval

pytestmark = pytest.mark.inspect

N_ITEMS = 40


def _rows(n: int = N_ITEMS) -> list[dict]:
    """Two-step problems (a product, then a sum), each tagged `[qN]` so its requests
    can be counted at the server."""
    return [
        {
            "qid": f"q{i}",
            "question": f"[q{i}] What is {i + 3} * {i % 7 + 2} + {i + 5}?",
            "answer": str((i + 3) * (i % 7 + 2) + i + 5),
        }
        for i in range(n)
    ]


def agent_study(root: Path, n: int = N_ITEMS, **overrides) -> Path:
    """2 offline models × (plain, a react agent with the user's calculator) over n
    items, the calculator beside the config."""
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "agents": {
                "calc": {
                    "solver": "react",
                    "tools": ["tools:calculator"],
                    "message_limit": 12,
                }
            },
            "facets__solver": ["plain", "calc"],
            "budget__confirm_above_usd": None,
            **overrides,
        }
    )
    config["benchmark"]["mapping"]["metadata"] = []
    path = write_study(root, config, rows=_rows(n), prompt="{input}")
    shutil.copy(TESTS / "engine" / "agent_tools.py", root / "tools.py")
    return path


def _solutions(root: Path) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / "solutions.parquet")


def _json(capsys, *args: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


# ---- identity ------------------------------------------------------------------------


def test_plain_conditions_keep_their_ids_and_an_agents_id_covers_what_defines_it(
    tmp_path,
):
    plain_only = write_study(tmp_path / "a", base_config())
    listed = write_study(tmp_path / "b", base_config(facets__solver=["plain"]))
    assert [c.id for c in load_study(plain_only).generate] == [
        c.id for c in load_study(listed).generate
    ]
    base = agent_study(tmp_path / "c")
    ids = {c.slug: c.id for c in load_study(base).generate}
    alone = agent_study(tmp_path / "d", facets__solver=["plain"], agents={})
    assert ids["arith-good_p_default"] == load_study(alone).generate[0].id
    assert set(ids) == {
        "arith-good_p_default",
        "arith-good_p_default_calc",
        "arith-weak_p_default",
        "arith-weak_p_default_calc",
    }

    def agent_id(**changes) -> str:
        root = tmp_path / f"v{len(list(tmp_path.iterdir()))}"
        entry = {"solver": "react", "tools": ["tools:calculator"], "message_limit": 12}
        path = agent_study(root, agents={"calc": {**entry, **changes}})
        return {c.slug: c.id for c in load_study(path).generate}[
            "arith-good_p_default_calc"
        ]

    same = agent_id()
    assert same == ids["arith-good_p_default_calc"]
    changed = [
        agent_id(message_limit=13),
        agent_id(token_limit=5000),
        agent_id(args={"attempts": 2}),
        agent_id(tools=["tools:calculator", "think"]),
    ]
    assert len({same, *changed}) == 5
    # the user's tool source is part of the id
    root = tmp_path / "edited"
    path = agent_study(root)
    before = {c.slug: c.id for c in load_study(path).generate}
    with (root / "tools.py").open("a") as handle:
        handle.write("\n# a changed tool\n")
    after = {c.slug: c.id for c in load_study(path).generate}
    assert before["arith-good_p_default"] == after["arith-good_p_default"]
    assert before["arith-good_p_default_calc"] != after["arith-good_p_default_calc"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"facets__solver": ["plain", "nope"]}, "facets.solver: unknown solver 'nope'"),
        ({"facets__solver": ["calc", "calc"]}, "calc listed twice"),
        ({"facets__solver": ["task"]}, "benchmark.adapter is 'local'"),
        (
            {"agents": {"calc": {"solver": "reactt"}}, "facets__solver": ["calc"]},
            "unknown solver 'reactt'",
        ),
        (
            {
                "agents": {"calc": {"solver": "react", "tools": ["calculatr"]}},
                "facets__solver": ["calc"],
            },
            "agents.calc.tools[0]: unknown tool 'calculatr'",
        ),
        (
            {
                "agents": {"calc": {"solver": "react", "tools": ["bash"]}},
                "facets__solver": ["calc"],
            },
            "set `sandbox: local`",
        ),
        (
            {
                "agents": {"calc": {"solver": "react", "tools": ["missing:calc"]}},
                "facets__solver": ["calc"],
            },
            "cannot import tool module 'missing'",
        ),
        (
            {
                "agents": {"calc": {"solver": "react", "tools": ["tools:nothing"]}},
                "facets__solver": ["calc"],
            },
            "tools has no tool 'nothing'",
        ),
        (
            {
                "agents": {"calc": {"solver": "react", "message_limit": 0}},
                "facets__solver": ["calc"],
            },
            "message_limit",
        ),
        (
            {"agents": {"plain": {"solver": "react"}}},
            "agents.plain: 'plain' is a built-in solver name",
        ),
    ],
)
def test_a_bad_solver_facet_is_refused_at_load_naming_the_field(
    tmp_path, capsys, changes, message
):
    path = agent_study(tmp_path, n=4, **changes)
    capsys.readouterr()
    assert main(["estimate", str(path)]) == 2
    assert message in capsys.readouterr().err


# ---- the done-when study -------------------------------------------------------------


def test_two_models_by_two_solvers_generate_grade_with_a_transcript_judge_and_compare(
    tmp_path, capsys
):
    rubric = (
        "Question: {input}\nReference: {target}\nAnswer: {solution}\n"
        "How it worked:\n{transcript}\nScore 1 if the answer is right."
    )
    path = agent_study(tmp_path, facets__grader=["itemeval/judge"])
    (tmp_path / "rubrics" / "process.md").write_text(rubric)
    config = yaml.safe_load(path.read_text())
    config["facets"]["rubric"] = ["process"]
    path.write_text(yaml.safe_dump(config))

    code, generated = _json(capsys, "generate", str(path))
    assert code == 0 and generated["totals"]["rows"] == 4 * N_ITEMS
    rows = _solutions(tmp_path)
    agents, plain = rows[rows["solver"] == "calc"], rows[rows["solver"] == "plain"]
    assert len(agents) == len(plain) == 2 * N_ITEMS
    # two calculator steps, then react's submit: three model turns
    assert (agents["turns"] == 3).all() and (agents["tool_calls"] == 2).all()
    assert (
        agents["tools_used"]
        .map(list)
        .map(tuple)
        .map(lambda used: used == ("calculator",))
        .all()
    )
    assert agents["limit_hit"].isna().all() and agents["error"].isna().all()
    assert plain["turns"].isna().all() and plain["transcript"].isna().all()
    first = agents[agents["item_id"] == "q0"].iloc[0]
    assert "-> calculator(" in first["transcript"]
    assert "[tool calculator] 6" in first["transcript"]  # 3 * 2
    assert (
        first["solution"].rstrip().endswith("ANSWER: 11")
        or "ANSWER:" in (first["solution"])
    )
    # every call's tokens summed into the cell's row
    assert (agents["input_tokens"] > 3 * plain["input_tokens"].mean()).all()
    assert (agents["usd"] > 0).all()

    code, graded = _json(capsys, "grade", str(path))
    assert code == 0
    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    judged = grades[grades["grade_kind"] == "judge"]
    assert len(judged) == 4 * N_ITEMS
    # the judge read each agent's transcript (its prompts, in its .eval logs)
    from inspect_ai.log import read_eval_log

    prompts = [
        sample.input if isinstance(sample.input, str) else sample.input[-1].text
        for log_file in judged["log_file"].unique()
        for sample in read_eval_log(str(tmp_path / "studies" / "t" / log_file)).samples
    ]
    assert len(prompts) == 4 * N_ITEMS
    assert sum("-> calculator(" in p for p in prompts) == 2 * N_ITEMS
    assert sum("(no transcript:" in p for p in prompts) == 2 * N_ITEMS

    code, results = _json(
        capsys, "results", str(path), "--compare", "all", "--by", "solver"
    )
    assert code == 0
    (comparison,) = [
        row
        for row in results["comparisons"]
        if row["grade_condition_id"].startswith("scorer_numeric")
    ]
    assert comparison["facet"] == "solver" and comparison["n"] == N_ITEMS
    assert {comparison["a"], comparison["b"]} == {"plain", "calc"}
    assert comparison["ci_low"] <= comparison["diff"] <= comparison["ci_high"]
    # the weak model gains most from its calculator
    scores = grades[grades["scorer"] == "numeric"].merge(
        rows[["condition_id", "item_id", "solver", "model"]],
        left_on=["gen_condition_id", "item_id"],
        right_on=["condition_id", "item_id"],
    )
    weak = scores[scores["model"] == "itemeval/arith-weak"]
    by_solver = weak.groupby("solver")["score"].mean()
    assert by_solver["calc"] > by_solver["plain"] + 0.2


def test_the_judge_prompt_holds_the_transcript(tmp_path):
    from itemeval.records import GradeCondition, Item, Template
    from itemeval.stages.grade.judge import NO_TRANSCRIPT, judge_prompt

    rubric = Template("r", "rubric", "A: {solution}\nT: {transcript}", "h", "local", "")
    condition = GradeCondition(
        id="j", slug="j", kind="judge", payload={}, rubric=rubric
    )
    item = Item("q", "What?", "1", None, {}, "d", "r", 0)
    assert "T: [assistant] hi" in judge_prompt(condition, item, "1", "[assistant] hi")
    assert NO_TRANSCRIPT in judge_prompt(condition, item, "1", None)


# ---- limits, show, the estimate ------------------------------------------------------


def test_a_cell_that_hits_its_limit_is_a_finished_row_with_its_stop_reason(
    tmp_path, capsys
):
    path = agent_study(
        tmp_path,
        n=4,
        agents={
            "calc": {
                "solver": "react",
                "tools": ["tools:calculator"],
                "message_limit": 4,
            }
        },
        facets__solver=["calc"],
    )
    code, _ = _json(capsys, "generate", str(path))
    assert code == 0
    rows = _solutions(tmp_path)
    assert len(rows) == 2 * 4
    assert (rows["limit_hit"] == "message").all()
    assert (rows["stop_reason"] == "message_limit").all()
    assert rows["error"].isna().all()
    code, again = _json(capsys, "generate", str(path))
    assert code == 0 and again["totals"]["planned"] == 0  # finished, not retried


def test_show_prints_an_agents_transcript_turn_by_turn(tmp_path, capsys):
    path = agent_study(tmp_path, n=2, facets__solver=["calc"])
    assert main(["generate", str(path)]) == 0
    capsys.readouterr()
    assert (
        main(["show", str(path), "q1", "--condition", "arith-good_p_default_calc"]) == 0
    )
    out = capsys.readouterr().out
    assert "3 turns, 2 tool calls" in out
    assert "-> calculator(" in out and "[tool calculator] 12" in out  # 4 * 3
    assert "whole transcript: inspect view" in out


def test_the_estimate_ceiling_is_the_limits_worst_case_and_a_pilot_projects(
    tmp_path, capsys
):
    from itemeval.plan.agent_cost import TOOL_OUTPUT_TOKENS

    path = agent_study(
        tmp_path,
        n=10,
        facets__solver=["calc"],
        solvers__models=["itemeval/arith-good"],
        agents={
            "calc": {
                "solver": "react",
                "tools": ["tools:calculator"],
                "message_limit": 8,
            }
        },
    )
    code, estimate = _json(capsys, "estimate", str(path), "--stage", "generate")
    assert code == 0
    (line,) = estimate["conditions"]
    assert line["basis"] == "ceiling" and line["calls"] == 10 * 8
    assert line["output_tokens_ceiling"] == 10 * 8 * 256
    assert line["input_tokens"] > 10 * 8 * 8 * TOOL_OUTPUT_TOKENS
    code, _ = _json(capsys, "generate", str(path), "--pilot", "3", "--yes")
    assert _solutions(tmp_path)["limit_hit"].isna().all()
    code, after = _json(capsys, "estimate", str(path), "--stage", "generate", "--force")
    (projected,) = after["conditions"]
    assert projected["basis"] == "condition"
    assert projected["calls"] == 10 * 3  # three turns a cell, as the pilot showed
    assert 0 < projected["usd_expected"] < line["usd_ceiling"] / 100


# ---- inspect's own tools in the local sandbox ----------------------------------------


@pytest.mark.parametrize("tool", ["python", "bash"])
def test_inspects_python_and_bash_tools_run_in_the_local_sandbox(
    tmp_path, capsys, tool
):
    path = agent_study(
        tmp_path,
        n=3,
        solvers__models=["itemeval/arith-good"],
        agents={"calc": {"solver": "react", "tools": [tool], "message_limit": 12}},
        facets__solver=["calc"],
        sandbox="local",
    )
    code, _ = _json(capsys, "generate", str(path))
    assert code == 0
    rows = _solutions(tmp_path).set_index("item_id")
    assert (
        rows["tools_used"].map(list).map(tuple).map(lambda used: used == (tool,)).all()
    )
    # the real interpreter's output came back as the tool result: 5 * 4 for q2
    assert f"[tool {tool}] 20" in rows.loc["q2", "transcript"]


# ---- an inspect task's own solver ----------------------------------------------------

TASK_FILE = """
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate, prompt_template, system_message

SAMPLES = [
    Sample(id=f"s{i}", input=f"What is {i + 2} * {i + 3}?", target=str(i * i))
    for i in range(8)
]


@task
def chained():
    return Task(
        dataset=MemoryDataset(SAMPLES, name="chained"),
        solver=[
            system_message("You are a careful calculator."),
            prompt_template("Work it out step by step.\\n\\n{prompt}"),
            generate(),
        ],
        scorer=match(numeric=True),
    )
"""


def test_a_tasks_own_solver_chain_answers_as_inspect_eval_does(tmp_path, capsys):
    from inspect_ai import eval as inspect_eval

    (tmp_path / "chained_task.py").write_text(TASK_FILE)
    config = {
        "study": "t",
        "cache": False,
        "benchmark": {"adapter": "inspect", "task": "chained_task.py@chained"},
        "solvers": {"models": ["itemeval/arith-fair"], "temperature": 0.0},
        "facets": {"prompt": ["p"], "solver": ["task"], "scorer": "match"},
    }
    path = write_study(tmp_path, config, prompt="{input}")
    # the task's solver may call as often as its message limit allows: --yes
    code, _ = _json(capsys, "generate", str(path), "--yes")
    assert code == 0
    ours = _solutions(tmp_path).set_index("item_id")["solution"].to_dict()

    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "chained_task", tmp_path / "chained_task.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (log,) = inspect_eval(
        module.chained(),
        model="itemeval/arith-fair",
        temperature=0.0,
        display="none",
        log_dir=str(tmp_path / "inspect-logs"),
    )
    theirs = {str(sample.id): sample.output.completion for sample in log.samples}
    assert len(theirs) == 8 and ours == theirs
    # the chain ran: its system message and template reached the model
    from inspect_ai.log import read_eval_log

    rows = _solutions(tmp_path)
    assert (rows["solver"] == "task").all()
    log = read_eval_log(str(tmp_path / "studies" / "t" / rows["log_file"].iloc[0]))
    sent = [message.text for message in log.samples[0].messages]
    assert sent[0] == "You are a careful calculator."
    assert sent[1].startswith("Work it out step by step.")


# ---- through the real OpenAI SDK at the local server ---------------------------------

PRICE = {"input": 100.0, "output": 100.0}
"""$ per 1M tokens of the local model: a call of a few hundred tokens costs cents."""


def server_study(root: Path, **overrides) -> Path:
    """The local server's model as a react agent with the calculator, on N_ITEMS
    items, priced so the cap bites."""
    path = agent_study(
        root,
        **{
            "cache": False,
            "solvers__models": ["openai-api/local/m"],
            "solvers__max_retries": 0,
            "facets__solver": ["calc"],
            "budget__pricing_path": "prices.json",
            **overrides,
        },
    )
    (root / "prices.json").write_text(
        json.dumps({"models": {"openai-api/local/m": PRICE}})
    )
    return path


def _requests_per_cell(srv: OpenAIServer) -> Counter:
    """Requests by (model, solver, item): an agent's carry tools."""
    counts: Counter = Counter()
    for body in srv.requests:
        tag = re.search(r"\[(q\d+)\]", json.dumps(body.get("messages", [])))
        solver = "calc" if body.get("tools") else "plain"
        counts[(body.get("model"), solver, tag.group(1) if tag else None)] += 1
    return counts


def test_a_killed_two_by_two_agent_study_repays_no_finished_cell(
    tmp_path, capsys, monkeypatch
):
    path = server_study(
        tmp_path,
        solvers__models=["openai-api/local/m", "openai-api/local/m2"],
        facets__solver=["plain", "calc"],
        solvers__max_connections=2,
    )
    (tmp_path / "prices.json").write_text(
        json.dumps(
            {"models": {"openai-api/local/m": PRICE, "openai-api/local/m2": PRICE}}
        )
    )
    study_dir = tmp_path / "studies" / "t"
    with OpenAIServer(delay=0.05) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        proc = start_itemeval(
            "generate", str(path), "--yes", cwd=tmp_path, env=dict(os.environ)
        )
        sigkill_when(
            proc, lambda: journaled(study_dir, "solutions") >= 30, "30 journaled cells"
        )
        before = _requests_per_cell(srv)
        code, result = _json(capsys, "generate", str(path), "--yes")
        after = _requests_per_cell(srv)
    assert code == 0
    rows = _solutions(tmp_path)
    assert len(rows) == 4 * N_ITEMS and rows["error"].isna().all()
    rows["key"] = list(
        zip(
            rows["model"].str.replace("openai-api/local/", ""),
            rows["solver"],
            rows["item_id"],
        )
    )
    finished = rows[rows["run_id"] != result["run_id"]]
    assert len(finished) >= 30
    assert result["totals"]["planned"] == 4 * N_ITEMS - len(finished)
    # a finished cell is never asked again; an unfinished one runs whole again
    assert {key: after[key] - before[key] for key in finished["key"]} == dict.fromkeys(
        finished["key"], 0
    )
    rerun = rows[rows["run_id"] == result["run_id"]]
    expected = {"plain": 1, "calc": 3}  # an agent: two calculator steps and its answer
    for key in rerun["key"]:
        assert after[key] - before[key] == expected[key[1]]
    agents = rows[rows["solver"] == "calc"]
    assert (agents["turns"] == 3).all() and (agents["tool_calls"] == 2).all()


def test_max_usd_counts_every_call_of_every_running_agent(
    tmp_path, capsys, monkeypatch
):
    cap = 0.5
    path = server_study(tmp_path, solvers__max_connections=4, budget__max_usd=cap)
    with OpenAIServer() as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        code, result = _json(capsys, "generate", str(path), "--yes")
        billed = [dict(u) for u in srv.billed]
    charged = sum(
        (u["prompt_tokens"] * PRICE["input"] + u["completion_tokens"] * PRICE["output"])
        / 1e6
        for u in billed
    )
    assert result["outcome"] == "budget_stopped" and code == 4
    rows = _solutions(tmp_path)
    finished, cut = rows[rows["error"].isna()], rows[rows["error"].notna()]
    assert 0 < len(finished) < N_ITEMS  # it stopped part way
    assert (finished["turns"] == 3).all()
    # an agent cut off mid-trajectory: its paid calls in an errored row, run again
    assert cut["error"].str.startswith("stopped by the spend cap").all()
    assert (cut["usd"] > 0).all()
    # what the provider billed, every agent call included, stayed within the cap,
    # and every billed call is in a row
    assert charged <= cap
    assert sum(rows["usd"]) == pytest.approx(charged, rel=1e-6)


SANDBOX_TASK = """
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, accuracy, scorer
from inspect_ai.solver import generate
from inspect_ai.util import sandbox


@scorer(metrics=[accuracy()])
def file_written():
    async def score(state, target):
        result = await sandbox().exec(["cat", "answer.txt"])
        return Score(value=1 if result.stdout.strip() == target.text else 0)

    return score


@task
def in_sandbox():
    return Task(
        dataset=MemoryDataset([Sample(id="s1", input="What is 2 + 3?", target="5")]),
        solver=[generate()],
        scorer=file_written(),
        sandbox="local",
    )
"""


def test_a_task_scorer_that_needs_a_live_sandbox_says_so(tmp_path, capsys):
    (tmp_path / "sandboxed.py").write_text(SANDBOX_TASK)
    config = {
        "study": "t",
        "benchmark": {"adapter": "inspect", "task": "sandboxed.py@in_sandbox"},
        "solvers": {"models": ["itemeval/arith-good"]},
        "facets": {"prompt": ["p"], "scorer": "task_scorer"},
    }
    path = write_study(tmp_path, config, prompt="{input}")
    assert main(["generate", str(path)]) == 0
    assert main(["grade", str(path)]) in (0, 1)
    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    (row,) = grades.to_dict("records")
    assert row["score"] is None or pd.isna(row["score"])
    assert "cannot run here" in row["explanation"]
    assert "sandbox" in row["explanation"]


def test_ctrl_c_stops_agents_keeps_what_they_paid_and_a_rerun_finishes(
    tmp_path, capsys, monkeypatch
):
    import signal
    import time

    path = server_study(tmp_path, solvers__max_connections=3)
    study_dir = tmp_path / "studies" / "t"
    with OpenAIServer(delay=0.05) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        proc = start_itemeval(
            "generate", str(path), "--yes", cwd=tmp_path, env=dict(os.environ)
        )
        deadline = time.monotonic() + 120
        while journaled(study_dir, "solutions") < 4 and proc.poll() is None:
            assert time.monotonic() < deadline, "no journaled cell in time"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=120) == 130, proc.stderr.read().decode()[-2000:]
        billed_at_stop = len(srv.billed)
        code, _ = _json(capsys, "status", str(path))
        stopped = _solutions(tmp_path)
        code, result = _json(capsys, "generate", str(path), "--yes")
        assert code == 0
    cut = stopped[stopped["error"].notna()]
    assert cut["error"].str.startswith("stopped by an interrupt").all()
    assert len(stopped[stopped["error"].isna()]) >= 4
    # every call paid before the stop is in a row (finished or cut off)
    calls = (
        stopped["error"].isna().sum() * 3
        + cut["error"].str.extract(r"after (\d+) paid")[0].astype(int).sum()
    )
    assert calls == billed_at_stop
    final = _solutions(tmp_path)
    assert len(final) == N_ITEMS and final["error"].isna().all()
    assert result["totals"]["planned"] == N_ITEMS - stopped["error"].isna().sum()
