"""The built-in offline provider: pure reply functions, then real inspect runs
against `itemeval/*`."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.solver import generate

from itemeval.engine.offline import arithmetic
from itemeval.engine.offline import judge as offline_judge
from itemeval.engine.offline import solver as offline_solver
from itemeval.scorers.judge import parse_judge_reply, with_format_suffix
from tests.helpers import REPO

ROWS = [
    json.loads(line)
    for line in (REPO / "configs/data/arith.jsonl").read_text().splitlines()
]
PROMPT = (
    "Solve the following problem.\n\nProblem:\n{q}\n\nEnd with a last line "
    "`ANSWER: <number>`."
)
RUBRIC = (
    "Problem: {q}\nReference answer: {target}\n\nCandidate "
    "solution:\n{solution}\n\nScore 1 if correct, else 0."
)
SOLVERS = ["arith-good", "arith-fair", "arith-weak"]


def dataset(rows=ROWS, template=PROMPT) -> MemoryDataset:
    return MemoryDataset(
        [
            Sample(
                id=r["qid"], input=template.format(q=r["question"]), target=r["answer"]
            )
            for r in rows
        ]
    )


def run(model: str, log_dir: Path, *, ds=None, epochs: int = 1, **kwargs):
    task = Task(dataset=ds or dataset(), solver=[generate()], name="offline")
    return eval(
        task, model=model, epochs=epochs, log_dir=str(log_dir), display="none", **kwargs
    )[0]


def final_answer(text: str) -> str:
    return text.strip().splitlines()[-1].removeprefix("ANSWER: ")


def accuracy(log) -> float:
    return sum(
        final_answer(s.output.completion) == s.target for s in log.samples
    ) / len(log.samples)


@pytest.fixture(scope="module")
def solver_logs(tmp_path_factory):
    """One eval of the three solver models, 24 items x 3 epochs at temperature 0.7."""
    log_dir = tmp_path_factory.mktemp("solver-logs")
    tasks = [
        Task(
            dataset=dataset(),
            solver=[generate()],
            name=name,
            model=get_model(f"itemeval/{name}"),
        )
        for name in SOLVERS
    ]
    with (
        pytest.MonkeyPatch.context() as patch
    ):  # module scope runs before the per-test cwd isolation
        patch.chdir(log_dir)
        logs = eval(
            tasks,
            epochs=3,
            temperature=0.7,
            max_tasks=3,
            log_dir=str(log_dir),
            display="none",
        )
    return {log.eval.task: log for log in logs}


# --- pure functions
# -------------------------------------------------------------------------


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["qid"])
def test_solver_reads_every_demo_problem_inside_a_prompt(row):
    problem = arithmetic.find_problem(PROMPT.format(q=row["question"]))
    assert problem is not None and arithmetic.fmt(problem.answer) == row["answer"]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("What is 12 times 7 plus 5?", "89"),
        ("Start with 10, add 5, then divide by 2. Result?", "7.5"),
        ("Example: ANSWER: 42\nWhat is (2 + 3) * 4?", "20"),
        ("Tell me a joke.", None),
        ("What is 5 / 0?", None),
        ("Start with 5, divide by 0. What now?", None),
        ("Step 1\n2 + 3", "5"),
    ],
)
def test_find_problem_cases(text, answer):
    problem = arithmetic.find_problem(text)
    assert (problem and arithmetic.fmt(problem.answer)) == answer


def test_base_rates_for_known_numbered_and_other_names():
    assert [offline_solver.base_rate(m) for m in SOLVERS] == [0.92, 0.72, 0.45]
    assert offline_solver.base_rate("arith-80") == 0.80
    assert 0.35 <= offline_solver.base_rate("arith-mystery") <= 0.9
    assert offline_solver.base_rate("arith-mystery") == offline_solver.base_rate(
        "arith-mystery"
    )


def test_temperature_and_wording_move_the_rate():
    problem = arithmetic.find_problem("What is 17 * 23?")
    plain = "Compute: What is 17 * 23?"
    cold = offline_solver.correct_probability("arith-fair", plain, problem, 0.0)
    hot = offline_solver.correct_probability("arith-fair", plain, problem, 1.0)
    cued = offline_solver.correct_probability(
        "arith-fair", "Think step by step. " + plain, problem, 0.0
    )
    assert hot == pytest.approx(cold - 0.06)
    assert cued > cold


def test_greedy_replications_repeat_and_sampled_ones_vary():
    prompts = [PROMPT.format(q=r["question"]) for r in ROWS]

    def texts(temperature, seed=None):
        return [
            {
                offline_solver.solver_reply(
                    "arith-fair", p, temperature=temperature, epoch=e, seed=seed
                )
                for e in (1, 2, 3)
            }
            for p in prompts
        ]

    assert all(len(t) == 1 for t in texts(0.0))
    assert sum(len(t) > 1 for t in texts(0.7)) >= 12
    assert texts(0.7, seed=1) != texts(0.7, seed=2)


def test_wrong_answers_are_close_to_the_truth():
    prompt = PROMPT.format(q="What is 37 * 48 - 29 * 11?")
    answers = [
        float(
            final_answer(
                offline_solver.solver_reply(
                    "arith-weak", prompt, temperature=1.0, epoch=e
                )
            )
        )
        for e in range(1, 40)
    ]
    assert 1457 in answers and any(a != 1457 for a in answers)
    assert all(abs(a - 1457) <= 10 for a in answers)


def _rubric(target: str, final: str, i: int = 0) -> str:
    solution = f"Step 1: {i} + {i} = {2 * i}\nANSWER: {final}"
    return with_format_suffix(
        RUBRIC.format(q=f"What is {i} + {i}?", target=target, solution=solution)
    )


@pytest.mark.parametrize(
    ("target", "final", "score"),
    [
        ("42", "42", 1),
        ("42", "41", 0),
        ("1,000", "1000", 1),
        ("7.5", "7.50", 1),
        ("Paris", "paris", 1),
    ],
)
def test_judge_scores_the_last_answer_against_the_reference(target, final, score):
    reply = offline_judge.judge_reply(
        "judge", _rubric(target, final), malformed_rate=0.0
    )
    parsed = parse_judge_reply(reply)
    assert (parsed.score, parsed.parse_error) == (score, None)
    assert reply.rstrip().endswith("```") and "reasoning" in reply


def test_judge_reads_the_builtin_rubric_and_scales_to_ten():
    rubric = (REPO / "itemeval/_builtin/rubrics/standard.md").read_text()
    text = rubric.format(
        input="What is 6 * 7?",
        target="42",
        grading_scheme="",
        solution="6 * 7 = 42\nANSWER: 42",
    )
    assert (
        parse_judge_reply(
            offline_judge.judge_reply("judge", text, malformed_rate=0.0, scale=10)
        ).score
        == 10
    )


def test_judge_without_a_reference_still_answers_deterministically():
    text = "Candidate solution:\nANSWER: 5"
    reply = offline_judge.judge_reply("judge", text, malformed_rate=0.0)
    assert reply == offline_judge.judge_reply("judge", text, malformed_rate=0.0)
    assert parse_judge_reply(reply).score in (0, 1)


def test_judge_malformed_share_and_kinds():
    replies = [
        offline_judge.judge_reply(
            "judge", _rubric(str(2 * i), str(2 * i), i), malformed_rate=0.3
        )
        for i in range(400)
    ]
    errors = [parse_judge_reply(r).parse_error for r in replies]
    share = sum(e is not None for e in errors) / len(errors)
    assert 0.24 <= share <= 0.36
    assert {e for e in errors if e} == {
        "no_json_object",
        "no_score_in_json",
        "score_not_numeric",
    }
    assert all(
        parse_judge_reply(
            offline_judge.judge_reply("judge", _rubric("1", "1", i), malformed_rate=0.0)
        ).score
        == 1
        for i in range(100)
    )


# --- real inspect runs
# ---------------------------------------------------------------------


def test_accuracy_ordering_over_the_demo_dataset(solver_logs):
    rates = {name: accuracy(solver_logs[name]) for name in SOLVERS}
    print("measured accuracy, 24 items x 3 epochs, T=0.7:", rates)
    assert rates["arith-good"] > rates["arith-fair"] > rates["arith-weak"]
    assert rates["arith-good"] >= 0.75 and rates["arith-weak"] <= 0.6


def test_replications_differ_and_epoch_reaches_the_provider(solver_logs):
    log = solver_logs["arith-fair"]
    by_item = defaultdict(set)
    for s in log.samples:
        by_item[s.id].add(final_answer(s.output.completion))
        call = next(e for e in s.events if isinstance(e, ModelEvent)).call
        assert call.request["epoch"] == s.epoch
    assert sum(len(v) > 1 for v in by_item.values()) >= 3


def test_usage_and_answer_line_on_every_sample(solver_logs):
    for s in solver_logs["arith-good"].samples:
        usage = s.model_usage["itemeval/arith-good"]
        assert usage.input_tokens > 0 and usage.output_tokens > 0
        assert usage.total_tokens == usage.input_tokens + usage.output_tokens
        assert re.fullmatch(r"ANSWER: -?[\d.]+", s.output.completion.splitlines()[-1])
        assert s.output.stop_reason == "stop"


def test_same_call_twice_gives_the_same_text(solver_logs, tmp_path):
    again = run(
        "itemeval/arith-fair", tmp_path, ds=dataset(ROWS[:8]), epochs=2, temperature=0.7
    )
    first = {
        (s.id, s.epoch): s.output.completion for s in solver_logs["arith-fair"].samples
    }
    assert all(first[(s.id, s.epoch)] == s.output.completion for s in again.samples)


def test_max_tokens_truncates(tmp_path):
    log = run("itemeval/arith-good", tmp_path, ds=dataset(ROWS[:3]), max_tokens=5)
    for s in log.samples:
        assert s.output.stop_reason == "max_tokens"
        assert len(s.output.completion) <= 20 and s.output.usage.output_tokens == 5


def test_judge_through_inspect(tmp_path):
    ds = MemoryDataset(
        [
            Sample(id=f"j{i}", input=_rubric(str(i), str(i if i % 2 else i + 1), i))
            for i in range(6)
        ]
    )
    log = run("itemeval/judge", tmp_path, ds=ds, model_args={"malformed_rate": 0.0})
    scores = {s.id: parse_judge_reply(s.output.completion).score for s in log.samples}
    assert scores == {f"j{i}": float(i % 2) for i in range(6)}


def test_echo_and_fail(tmp_path, monkeypatch):
    echo = run("itemeval/echo", tmp_path, ds=dataset(ROWS[:2]))
    assert [s.output.completion for s in echo.samples] == [
        s.input for s in echo.samples
    ]
    failed = run("itemeval/fail", tmp_path, ds=dataset(ROWS[:2]), fail_on_error=False)
    assert all("injected failure" in s.error.message for s in failed.samples)
    monkeypatch.setenv("ITEMEVAL_OFFLINE_FAIL_RATE", "0.5")
    partial = run("itemeval/arith-good", tmp_path, ds=dataset(), fail_on_error=False)
    assert 4 <= sum(s.error is not None for s in partial.samples) <= 20


def test_bad_names_and_args_are_refused():
    with pytest.raises(ValueError, match="Unknown offline model"):
        get_model("itemeval/gpt-9")
    with pytest.raises(ValueError, match="Unknown model args"):
        get_model("itemeval/judge", malformd_rate=0.1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        get_model("itemeval/judge", malformed_rate=2)


def test_latency_model_arg_delays_each_call():
    model = get_model("itemeval/arith-good", latency=0.3)
    started = time.perf_counter()
    output = asyncio.run(
        model.generate("What is 2 + 2?", config=GenerateConfig(temperature=0))
    )
    assert time.perf_counter() - started >= 0.3
    assert final_answer(output.completion) == "4"


def test_resolved_by_entry_point_in_a_fresh_process(tmp_path):
    script = (
        "import asyncio, sys\n"
        "from inspect_ai.model import get_model\n"
        "assert not any(m.startswith('itemeval') for m in sys.modules)\n"
        "out = asyncio.run(get_model('itemeval/arith-good').generate('What is "
        "6 * 7?'))\n"
        "print(out.completion.splitlines()[-1], out.usage.output_tokens > 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"ANSWER: \d+ True", done.stdout.strip().splitlines()[-1])
