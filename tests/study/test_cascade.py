"""Cascade grade conditions (itemeval.cascade): the decision rule on realistic
replies, the condition's identity, and a study whose judge is asked only about what
`numeric` could not read (counted at the local server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.scorers import ScoreResult, score_solution
from itemeval.study import cascade
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer
from tests.processes import journaled, sigkill_when, start_itemeval

# ---- the undecided rule on realistic replies ----------------------------------------

# (solution, target, stage that decides it or None for "ask the judge", what numeric
# said: its score or its failure code)
REPLIES = [
    ("Adding them gives 5.\nANSWER: 5", "5", "numeric", 1.0),
    ("ANSWER: 41", "42", "numeric", 0.0),  # read and wrong: decided, never judged
    ("So the total is \\boxed{\\frac{3}{4}}.", "0.75", "numeric", 1.0),
    ("The area is 12 cm^2.\nANSWER: 12", "12", "numeric", 1.0),
    ("It is $1,234.", "1234", "numeric", 1.0),
    # numbers in words are read since issue 50; Roman numerals are not
    ("XLII, I believe.", "42", None, "no_number_found"),
    ("I cannot solve this without more information.", "7", None, "no_number_found"),
    ("The answer is either 2 or 0.5.", "2", None, "ambiguous_answer"),
    ("Somewhere in 40-42.", "41", None, "ambiguous_answer"),
    ("", "3", None, "no_number_found"),  # a blank answer: the judge says so
    ("So the speed is 180 / 2.5", "72", None, "unfinished_expression"),
    ("Final answer: 7 (or possibly 8)", "7", None, "ambiguous_answer"),
    ("ANSWER: Paris", "Paris", None, "target_not_numeric"),  # not numeric's to read
    ("<think>maybe 3</think>\n**Answer:** 4", "4", "numeric", 1.0),
]


@pytest.mark.parametrize(("solution", "target", "decided_by", "said"), REPLIES)
def test_numeric_decides_what_it_reads_and_leaves_the_rest_to_the_judge(
    solution, target, decided_by, said
):
    result = score_solution("numeric", {}, solution, target)
    trail = cascade.decide([("numeric", result)])
    assert (trail.decided[0] if trail.decided else None) == decided_by
    assert trail.said == {"numeric": said}


def _verdict(score: float | None, code: str | None = None) -> ScoreResult:
    return ScoreResult(score=score, answer=None, parse_error=code)


@pytest.mark.parametrize(
    ("verdicts", "threshold", "decided", "last"),
    [
        # no threshold: every real score settles, the first stage that reads decides
        ([("a", _verdict(0.0)), ("b", _verdict(1.0))], None, "a", "a"),
        ([("a", _verdict(None, "x")), ("b", _verdict(0.0))], None, "b", "b"),
        ([("a", _verdict(None, "x")), ("b", _verdict(None, "y"))], None, None, None),
        ([("a", _verdict(float("nan")))], None, None, None),  # inspect's unscored
        # inspect's default threshold 1.0: an incorrect verdict goes on to the next
        ([("a", _verdict(0.0)), ("b", _verdict(1.0))], 1.0, "b", "b"),
        ([("a", _verdict(0.0)), ("b", _verdict(None, "y"))], 1.0, None, "a"),
        ([("a", _verdict(0.5)), ("b", _verdict(0.2))], 0.5, "a", "a"),
    ],
)
def test_stages_run_in_order_until_one_settles(verdicts, threshold, decided, last):
    trail = cascade.decide(verdicts, threshold)
    assert (trail.decided[0] if trail.decided else None) == decided
    assert (trail.last_scored[0] if trail.last_scored else None) == last


def _judge_row(**values: Any) -> dict[str, Any]:
    return {"score": None, "parse_ok": False, "error": None, **values}


def test_a_judge_that_gives_no_verdict_falls_back_to_the_last_real_score():
    condition = _condition({"threshold": 1.0}, facets={})
    trail = cascade.decide([("numeric", _verdict(0.0))], 1.0)
    failed = _judge_row(parse_error="no_json_object", judge_completion="hmm")
    row = cascade.judged_row(condition, failed, trail)
    meta = json.loads(row["score_metadata"])
    assert (row["score"], row["parse_ok"], row["parse_error"]) == (0.0, True, None)
    assert meta == {
        "decided_by": "numeric",
        "stages": {"numeric": 0.0, "j": "no_json_object"},
    }
    assert row["judge_completion"] == "hmm"  # what the judge said stays readable

    judged = cascade.judged_row(condition, _judge_row(score=1.0, parse_ok=True), trail)
    assert json.loads(judged["score_metadata"])["decided_by"] == "j"
    errored = _judge_row(error="HTTP 500")
    assert cascade.judged_row(condition, errored, trail) == errored  # asked again


# ---- the condition: config shape, identity, errors -----------------------------------


def _config(params: dict[str, Any], facets: dict[str, Any] | None = None) -> dict:
    return base_config(
        graders={"j": {"model": "itemeval/judge"}},
        facets__scorer=[
            *(facets or {}).get("scorer", []),
            {"name": "cascade", "params": params},
        ],
        facets__rubric=["r"],
    )


def _load(tmp_path: Path, params: dict[str, Any], **facets: Any):
    return load_study(write_study(tmp_path, _config(params, facets)))


def _condition(extra: dict[str, Any], facets: dict[str, Any]):
    import tempfile

    params = {"first": ["numeric"], "then": {"grader": "j", "rubric": "r"}, **extra}
    with tempfile.TemporaryDirectory() as root:
        return cascade.cascades(_load(Path(root), params, **facets).grade)[0]


def test_a_cascade_is_one_condition_whose_id_covers_every_stage(tmp_path):
    base = {"first": ["numeric"], "then": {"grader": "j", "rubric": "r"}}
    study = _load(tmp_path, base, scorer=["numeric"])
    (condition,) = cascade.cascades(study.grade)
    plain = next(c for c in study.grade if c.kind == "verifiable")
    # golden: the scheme is `slug--hash` of {"cascade": {first, then[, threshold]}}
    # (numeric's rule version 3 since issue 50; with version 2 it was
    # cascade_numeric_j_r--28e382656e14)
    assert condition.id == "cascade_numeric_j_r--f685be3aad3c"
    assert condition.stages[0].id == plain.id  # a stage is the scorer's own identity
    assert condition.grader_model == "itemeval/judge" and condition.rubric.ref == "r"

    ids = {condition.id}
    for params in (
        {**base, "first": [{"name": "numeric", "params": {"rel_tol": 0.01}}]},
        {**base, "threshold": 1.0},
        {**base, "then": {"grader": "openai/gpt-4o", "rubric": "r"}},
        {**base, "first": ["numeric", "exact_match"]},
    ):
        (other,) = cascade.cascades(_load(tmp_path, params).grade)
        ids.add(other.id)
    assert len(ids) == 5
    (again,) = cascade.cascades(_load(tmp_path, base).grade)
    assert again.id == condition.id  # no sibling entry changes it


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"then": "j"}, "first: Field required"),
        ({"first": [], "then": "j"}, "first"),
        ({"first": ["numeric"], "then": "nobody"}, "not defined under `graders:`"),
        ({"first": ["nosuch"], "then": "j"}, "first[0]"),
        ({"first": ["numeric"], "then": "j", "extra": 1}, "extra"),
        (
            {"first": [{"name": "model_graded_qa", "params": {"model": "x/y"}}]}
            | {"then": "j"},
            "calls a model",
        ),
        ({"first": ["numeric"], "then": {"grader": "j", "rubric": "gone"}}, "gone"),
    ],
)
def test_a_bad_cascade_is_a_config_error_naming_the_entry(tmp_path, params, message):
    with pytest.raises(ConfigError) as raised:
        _load(tmp_path, params)
    assert "facets.scorer[0] (cascade)" in str(raised.value)
    assert message in str(raised.value)


def test_a_bare_cascade_entry_is_a_config_error_not_ignored(tmp_path):
    config = base_config(facets__scorer=["numeric", "cascade"])
    with pytest.raises(ConfigError, match=r"facets.scorer\[1\] \(cascade\): first"):
        load_study(write_study(tmp_path, config))


def test_grader_selects_the_cascade_of_that_judge_and_adds_no_plain_judge(
    tmp_path, capsys
):
    base = {"first": ["numeric"], "then": {"grader": "j", "rubric": "r"}}
    config = write_study(tmp_path, _config(base, {"scorer": ["numeric"]}))
    for options in (("--grader", "j"), ("--rubric", "r")):
        code, estimate = _cli(capsys, "estimate", str(config), *options)
        slugs = {line["slug"] for line in estimate["conditions"]}
        assert code == 0 and slugs == {"arith-good_p_default", "cascade_numeric_j_r"}


# ---- a study: the judge only where numeric could not read ----------------------------

ROWS = [
    {"qid": "a1", "question": "What is 2 + 3?", "answer": "5"},
    {"qid": "a2", "question": "What is 7 * 6?", "answer": "42"},
    {"qid": "w1", "question": "Seven times six, in Roman numerals?", "answer": "42"},
    {"qid": "w2", "question": "Which root, 2 or 0.5?", "answer": "2"},
]
SOLVER_REPLIES = {
    "in Roman numerals": "XLII, I believe.",
    "Which root": "It is either 2 or 0.5.",
    "7 * 6": "ANSWER: 41",
}
JUDGE_MARK = "## How to reply"


def _reply(body: dict[str, Any]) -> str | None:
    prompt = body["messages"][-1]["content"]
    prompt = prompt if isinstance(prompt, str) else json.dumps(prompt)
    if JUDGE_MARK in prompt:  # the judge: a verdict, except on the hedged answer
        return "No verdict from me." if "either 2" in prompt else '{"score": 1}'
    return next((r for k, r in SOLVER_REPLIES.items() if k in prompt), None)


@pytest.fixture
def server(monkeypatch):
    from inspect_ai.model import _model

    with OpenAIServer(responder=_reply) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        yield srv
    _model._models.clear()


def _cli(capsys, *args: str) -> tuple[int, dict[str, Any]]:
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def planned(result: dict[str, Any]) -> int:
    return sum(c["planned"] for c in result["conditions"])


def _cascade_line(estimate: dict[str, Any]) -> dict[str, Any]:
    (line,) = [x for x in estimate["conditions"] if x["slug"].startswith("cascade_")]
    return line


def _cascade_study(
    root: Path, rows: list[dict[str, Any]] = ROWS, **grader: Any
) -> Path:
    config = base_config(
        cache=False,
        solvers__models=["openai-api/local/solver"],
        graders={"j": {"model": "openai-api/local/judge", "max_tokens": 64, **grader}},
        facets__rubric=["r"],
        facets__scorer=[
            {
                "name": "cascade",
                "params": {"first": ["numeric"], "then": {"grader": "j"}},
            }
        ],
    )
    config["benchmark"]["mapping"]["metadata"] = []
    return write_study(root, config, rows=rows)


def test_the_judge_is_asked_only_about_what_numeric_could_not_read(
    tmp_path, capsys, server
):
    config = _cascade_study(tmp_path)
    code, before = _cli(capsys, "estimate", str(config))
    assert code == 0 and _cascade_line(before)["calls"] == 4  # none read yet
    assert any("all of them assumed undecided" in n for n in before["notes"])
    assert _cli(capsys, "generate", str(config))[0] == 0
    solver_calls = len(server.requests)

    code, estimate = _cli(capsys, "estimate", str(config), "--stage", "grade")
    assert code == 0
    # numeric reads a1 and a2: the judge is priced on the other two
    assert _cascade_line(estimate)["calls"] == 2

    code, result = _cli(capsys, "grade", str(config))
    assert code == 0 and result["outcome"] == "completed"
    judged = server.requests[solver_calls:]
    assert len(judged) == 2 == server.count(JUDGE_MARK)
    # the judge saw the two answers numeric could not read, and neither it could
    assert server.count("XLII") == 1 and server.count("either 2 or 0.5") == 1
    assert server.count("ANSWER: 41") == 0 and server.count("ANSWER: 5") == 0

    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    assert grades["grade_condition_id"].nunique() == 1 and len(grades) == 4
    assert set(grades["grade_kind"]) == {"cascade"}
    rows = grades.set_index("item_id")
    meta = {i: json.loads(m) for i, m in rows["score_metadata"].items()}
    assert {i: m.get("decided_by") for i, m in meta.items()} == {
        "a1": "numeric",
        "a2": "numeric",
        "w1": "j",
        "w2": None,  # no stage gave a verdict: a parse failure, final
    }
    assert meta["w2"]["stages"] == {
        "numeric": "ambiguous_answer",
        "j": "no_json_object",
    }
    assert rows.loc["a2", "score"] == 0.0 and rows.loc["w1", "score"] == 1.0
    assert rows.loc[["a1", "a2"], "judge_completion"].isna().all()
    assert (rows.loc[["a1", "a2"], "usd"] == 0.0).all()
    assert (
        not rows.loc["w2", "parse_ok"]
        and rows.loc["w2", "score"] != rows.loc["w2", "score"]
    )

    before = len(server.requests)
    code, again = _cli(capsys, "grade", str(config))
    assert code == 0 and len(server.requests) == before  # nothing asked twice

    code, after = _cli(capsys, "estimate", str(config), "--force")
    assert code == 0 and _cascade_line(after)["calls"] == 2  # half were undecided
    assert any("50% of them undecided" in n for n in after["notes"])

    code, results = _cli(capsys, "results", str(config))
    assert code == 0
    graded = {c["grade_condition_id"] for c in results["cells"]}
    assert graded == {grades["grade_condition_id"].iloc[0]}
    decided = {row["decided_by"]: row["n"] for row in results["cascades"]}
    assert decided == {"numeric": 2, "j": 1, "none": 1}

    code, status = _cli(capsys, "status", str(config))
    assert code == 0 and [g["done"] for g in status["grade"]] == [4]
    code, shown = _cli(capsys, "show", str(config), "w1")
    (grade,) = shown["conditions"][0]["solutions"][0]["grades"]
    assert code == 0 and (grade["kind"], grade["decided_by"]) == ("cascade", "j")
    assert _cli(capsys, "export", str(config))[0] == 0
    export = pd.read_parquet(
        tmp_path / "studies" / "t" / "export" / "grades_long.parquet"
    )
    decided = [v if isinstance(v, str) else None for v in export["decided_by"]]
    assert dict(zip(export["item_id"], decided)) == {
        "a1": "numeric",
        "a2": "numeric",
        "w1": "j",
        "w2": None,
    }


def test_a_killed_cascade_grade_rerun_pays_no_judge_call_already_recorded(
    tmp_path, capsys, monkeypatch
):
    import os
    import time

    from inspect_ai.model import _model

    rows = [
        {
            "qid": f"w{i}",
            "question": f"Seven times {i}, in Roman numerals?",
            "answer": str(7 * i),
        }
        for i in range(1, 7)
    ] + [{"qid": "a1", "question": "What is 2 + 3?", "answer": "5"}]
    config = _cascade_study(tmp_path, rows, max_connections=1, max_retries=0)

    def slow_judge(prompt: str) -> float:
        return 0.5 if JUDGE_MARK in prompt else 0.0

    with OpenAIServer(responder=_reply, delay=slow_judge) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        assert _cli(capsys, "generate", str(config))[0] == 0
        env = {**os.environ, **srv.env(), "INSPECT_DISPLAY": "none"}
        proc = start_itemeval("grade", str(config), cwd=tmp_path, env=env)
        sigkill_when(
            proc,
            lambda: journaled(tmp_path / "studies" / "t", "grades") >= 2,
            "2 judge verdicts in the journal",
        )
        time.sleep(0.6)  # the request in flight at the kill finishes server-side
        asked_before = srv.count(JUDGE_MARK)
        assert 2 <= srv.answered(JUDGE_MARK) < 6

        _model._models.clear()
        code, result = _cli(capsys, "grade", str(config))
        _model._models.clear()
        assert code == 0
        # a1's row (numeric's) went to the store before any judge call; the judge's
        # rows of the killed run come back from its journal
        judged_first = result["recovered_rows"].get("grades", 0)
        assert judged_first >= 2 and planned(result) == 6 - judged_first
        # the re-run asked the judge only about what the killed run had not recorded
        assert srv.count(JUDGE_MARK) - asked_before == 6 - judged_first

    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    assert len(grades) == 7 and grades["error"].isna().all()
    decided = {
        i: cascade.decided_by(m)
        for i, m in zip(grades["item_id"], grades["score_metadata"])
    }
    assert decided == {"a1": "numeric", **{f"w{i}": "j" for i in range(1, 7)}}
