"""One study with every scorer family at once, end to end: offline, and through the
OpenAI SDK to a local server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from itemeval.cli import main
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer

CLAIMS = [
    {"qid": "c1", "question": "Is 17 * 23 greater than 400?", "label": "0"},
    {"qid": "c2", "question": "Is 12 + 30 equal to 42?", "label": "1"},
    {"qid": "c3", "question": "Is 81 / 9 less than 10?", "label": "1"},
    {"qid": "c4", "question": "Is 100 - 58 at least 50?", "label": "0"},
    {"qid": "c5", "question": "Is 7 * 8 at most 56?", "label": "1"},
]
SCORERS = [
    "numeric",
    {"name": "match", "params": {"location": "exact"}},
    "includes",
    "f1",
    "risk",
    {"name": "model_graded_qa", "params": {"model": "MODEL"}},
]


def study(root: Path, model: str, grader: str) -> Path:
    scorers = [
        {"name": "model_graded_qa", "params": {"model": grader}}
        if isinstance(s, dict) and s["name"] == "model_graded_qa"
        else s
        for s in SCORERS
    ]
    config = base_config(
        solvers__models=[model],
        solvers__temperature=0.0,
        solvers__max_tokens=16,
        solvers__logprobs=True,
        solvers__top_logprobs=20,
        facets__scorer=scorers,
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": grader, "max_tokens": 256}},
        facets__replications=2,
        benchmark__mapping={"input": "question", "target": "label", "id": "qid"},
        budget={"pricing_path": "prices.json", "confirm_above_usd": None},
    )
    path = write_study(
        root,
        config,
        rows=CLAIMS,
        prompt="{input} Reply with 1 if yes and 0 if no, nothing else.",
        rubric="Question: {input}\nReference answer: {target}\nANSWER: "
        "{solution}\nScore 1 if right.",
    )
    prices = {
        "models": {name: {"input": 1.0, "output": 2.0} for name in (model, grader)}
    }
    (root / "prices.json").write_text(json.dumps(prices))
    return path


def run(capsys, *args: str) -> dict:
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def check_study(root: Path, path: Path, capsys) -> pd.DataFrame:
    generated = run(capsys, "generate", str(path))
    assert generated["totals"]["rows"] == 10 and generated["totals"]["errors"] == 0
    graded = run(capsys, "grade", str(path))
    rows = {c["slug"]: c["rows"] for c in graded["conditions"]}
    assert (
        set(rows.values()) == {10} and len(rows) == 7
    )  # six scorer entries and the judge, 10 solutions each
    grades = pd.read_parquet(root / "studies" / "t" / "grades.parquet")
    assert set(grades["grade_kind"]) == {"verifiable", "model_graded", "judge"}
    assert grades["error"].isna().all()
    for scorer in ("numeric", "match", "includes", "f1", "risk"):
        part = grades[grades["scorer"] == scorer]
        assert (
            len(part) == 10
            and part["parse_ok"].all()
            and part["score"].between(0, 1).all()
        ), scorer
    risk = grades[grades["scorer"] == "risk"]
    assert all(json.loads(m)["risk_score"] is not None for m in risk["score_metadata"])
    exact = grades[grades["scorer"] == "match"].set_index(["item_id", "epoch"])["score"]
    numeric = grades[grades["scorer"] == "numeric"].set_index(["item_id", "epoch"])[
        "score"
    ]
    assert (
        exact == numeric.loc[exact.index]
    ).all()  # a one-token reply: exact match and numeric agree
    paid = grades[grades["grade_kind"] != "verifiable"]
    # A model-graded replication shows its grader the same prompt as the first at
    # temperature 0: a cache hit.
    assert ((paid["usd"] > 0) | (paid["cache_hit"] & (paid["usd"] == 0))).all() and (
        paid["usd"] > 0
    ).any()
    assert (grades.loc[grades["grade_kind"] == "verifiable", "usd"] == 0).all()
    again = run(capsys, "grade", str(path))
    assert again["totals"]["rows"] == 0
    status = run(capsys, "status", str(path))
    assert {row["slug"]: row["done"] for row in status["grade"]} == {
        slug: 10 for slug in rows
    }
    export = run(capsys, "export", str(path))
    exported = pd.read_parquet(export["parquet"])
    assert len(exported) == 70 and {"answer", "explanation", "score_metadata"} <= set(
        exported.columns
    )
    return grades


def test_every_scorer_family_offline(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")
    grades = check_study(
        tmp_path, study(tmp_path, "itemeval/arith-good", "itemeval/judge"), capsys
    )
    assert set(grades.loc[grades["grade_kind"] == "model_graded", "score_raw"]) <= {
        "C",
        "I",
    }


class ClaimsServer(OpenAIServer):
    """Answers claims with 0/1 and logprobs; judge prompts with the JSON verdict;
    model-graded ones with a GRADE."""

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        reply = super()._completion(body)
        prompt = self._last_user(body)
        message = reply["choices"][0]["message"]
        if "GRADE: $LETTER" in prompt:
            message["content"] = "The submission meets the criterion.\nGRADE: C"
        elif "## How to reply" in prompt:
            message["content"] = (
                'Correct.\n```json\n{"score": 1, "reasoning": "matches the '
                'reference"}\n```'
            )
        return reply


def test_every_scorer_family_through_the_openai_sdk(tmp_path, capsys, monkeypatch):
    from inspect_ai.model import _model

    with ClaimsServer() as server:
        for key, value in server.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        grades = check_study(
            tmp_path,
            study(tmp_path, "openai-api/local/solver", "openai-api/local/grader"),
            capsys,
        )
        requests = server.requests
    _model._models.clear()
    solver_calls = [r for r in requests if r["model"] == "solver"]
    assert len(solver_calls) == 10 and all(
        r["logprobs"] is True and r["top_logprobs"] == 20 for r in solver_calls
    )
    assert (
        len([r for r in requests if r["model"] == "grader"]) == 20
    )  # 10 judge calls + 10 model-graded calls
    assert (
        grades["score"].dropna() == 1.0
    ).all()  # the server always answers right and its graders agree


def test_the_claims_demo_runs_offline_end_to_end(tmp_path, capsys):
    """configs/claims.yaml, as `make demo` runs it: logprobs stored, every scorer
    grades every solution."""
    from tests.conftest import REPO

    config = REPO / "configs" / "claims.yaml"
    base = str(
        tmp_path / "run"
    )  # its output_dir is ../studies: the study lands in tmp_path/studies
    assert (
        run(capsys, "generate", str(config), "-C", base, "--yes")["totals"]["rows"]
        == 32
    )
    assert (
        run(capsys, "grade", str(config), "-C", base, "--yes")["totals"]["rows"] == 160
    )
    solutions = pd.read_parquet(tmp_path / "studies" / "claims" / "solutions.parquet")
    assert (
        solutions["solution"].isin(["0", "1"]).all()
        and solutions["logprobs"].notna().all()
    )
    grades = pd.read_parquet(tmp_path / "studies" / "claims" / "grades.parquet")
    by_scorer = grades.pivot_table(
        index=["gen_condition_id", "item_id"], columns="scorer", values="score"
    )
    # One-token replies: exact match, includes, risk's argmax and numeric_risk's
    # threshold all read the same label.
    for scorer in ("includes", "risk", "numeric_risk"):
        assert (by_scorer[scorer] == by_scorer["match"]).all(), scorer
    accuracy = (
        grades[grades["scorer"] == "match"].groupby("gen_condition_id")["score"].mean()
    )
    assert (
        accuracy[accuracy.index.str.startswith("arith-good")].item()
        > accuracy[accuracy.index.str.startswith("arith-weak")].item()
    )
