"""Pairwise judges on real inspect runs against the local server: three scripted
judges with known preferences over three stored conditions, results recomputed
independently, zero generation, resume."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import yaml

from itemeval.cli import main
from itemeval.hashing import sha256_hex
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer
from tests.processes import journaled, sigkill_when, start_itemeval

SOLVERS = ["s1", "s2", "s3"]
JUDGES = {"content": "pw-content", "first": "pw-first", "longer": "pw-longer"}
JUDGES_BY_MODEL = set(JUDGES.values())
ITEMS = [
    {"qid": f"q{i:02d}", "question": f"Describe topic {i}.", "answer": "", "d": "x"}
    for i in range(16)
]
_ANSWER = re.compile(
    r"\[The start of answer ([AB])\]\n(.*?)\n\[The end of answer \1\]", re.S
)
_QUALITY = re.compile(r"QUALITY(\d+)")


def _draw(*parts: object) -> int:
    return int(sha256_hex("|".join(map(str, parts)))[:8], 16)


def quality(model: str, item: str) -> int:
    """The content of a solver's answer: what the content judge prefers (0-3; equal
    is a tie)."""
    return _draw("quality", model, item) % 4


def length(model: str, item: str) -> int:
    """Words of padding, independent of quality: what the longer-answer judge
    prefers."""
    return 1 + _draw("length", model, item) % 30


def solver_answer(model: str, prompt: str) -> str:
    item = re.search(r"topic (\d+)", prompt).group(1)
    qid = f"q{int(item):02d}"
    return f"QUALITY{quality(model, qid)} " + " ".join(["pad"] * length(model, qid))


def verdict(judge: str, first: str, second: str) -> str:
    if judge == "pw-first":
        winner = "A"
    elif judge == "pw-longer":
        winner = (
            "A"
            if len(first) > len(second)
            else "B"
            if len(second) > len(first)
            else "tie"
        )
    else:
        qa, qb = (int(_QUALITY.search(text).group(1)) for text in (first, second))
        winner = "A" if qa > qb else "B" if qb > qa else "tie"
    return f'Compared.\n```json\n{{"winner": "{winner}", "reasoning": "{judge}"}}\n```'


def respond(body: dict[str, Any]) -> str | None:
    model = body.get("model", "")
    prompt = next(
        m["content"] for m in reversed(body["messages"]) if m["role"] == "user"
    )
    if model in SOLVERS:
        return solver_answer(model, prompt)
    answers = dict(_ANSWER.findall(prompt))
    return verdict(model, answers["A"], answers["B"])


@pytest.fixture
def server(monkeypatch):
    from inspect_ai.model import _model

    with OpenAIServer(responder=respond) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        yield srv
    _model._models.clear()


def study(root: Path, graders: dict[str, Any] | None = None) -> Path:
    config = base_config(
        cache=False,
        solvers__models=[f"openai-api/local/{s}" for s in SOLVERS],
        solvers__max_retries=0,
        benchmark__mapping={"input": "question", "target": "answer", "id": "qid"},
        facets__scorer="exact_match",
    )
    if graders:
        config["graders"] = graders
        config["facets"]["grader"] = list(graders)
    return write_study(root, config, rows=ITEMS, prompt="{input}")


def add_graders(config: Path, graders: dict[str, Any]) -> None:
    data = yaml.safe_load(config.read_text())
    data["graders"] = graders
    data["facets"]["grader"] = list(graders)
    config.write_text(yaml.safe_dump(data, sort_keys=False))


def pairwise_graders(**extra: Any) -> dict[str, Any]:
    return {
        name: {"model": f"openai-api/local/{judge}", "kind": "pairwise", **extra}
        for name, judge in JUDGES.items()
    }


def cli(capsys, *args: str) -> tuple[int, dict[str, Any]]:
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def solver_requests(srv: OpenAIServer) -> int:
    return sum(body.get("model") in SOLVERS for body in srv.requests)


def store(root: Path) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / "pairwise.parquet")


def test_three_judges_with_known_preferences_over_stored_answers(
    tmp_path, capsys, server
):
    config = study(tmp_path)
    assert cli(capsys, "generate", str(config))[0] == 0
    assert solver_requests(server) == 48
    add_graders(config, pairwise_graders())

    code, result = cli(capsys, "grade", str(config))
    assert code == 0, result
    assert solver_requests(server) == 48  # adding pairwise judges generates nothing
    planned = {c["slug"]: c["planned"] for c in result["conditions"]}
    assert planned == {
        "scorer_exact-match": 48,
        **{f"{name}_builtin-pairwise": 3 * 16 * 2 for name in JUDGES},
    }
    verdicts = store(tmp_path)
    assert len(verdicts) == 3 * 3 * 16 * 2 and verdicts["parse_ok"].all()
    assert (verdicts["condition_a"] < verdicts["condition_b"]).all()
    _check_winners_follow_the_script(tmp_path, verdicts)

    code, report = cli(capsys, "results", str(config))
    assert code == 0
    slugs = report["slugs"]
    by_judge = {
        slugs[row["grade_condition_id"]].split("_")[0]: [] for row in report["pairwise"]
    }
    for row in report["pairwise"]:
        by_judge[slugs[row["grade_condition_id"]].split("_")[0]].append(row)
    for name, rows in by_judge.items():
        own = verdicts[verdicts["grader_name"] == name]
        _check_win_rates(rows, own)
        strengths = [
            r
            for r in report["strengths"]
            if r["grade_condition_id"] == rows[0]["grade_condition_id"]
        ]
        _check_strengths(strengths, own)
    assert all(
        r["flip_rate"] == 0.0 and "position_bias" not in r["flags"]
        for r in by_judge["content"]
    )
    assert all(
        r["flip_rate"] == 1.0
        and r["first_position_rate"] == 1.0
        and "position_bias" in r["flags"]
        for r in by_judge["first"]
    )
    assert all(
        "length_bias" in r["flags"] and r["length_corr"] > 0.5
        for r in by_judge["longer"]
    )
    assert not any("length_bias" in r["flags"] for r in by_judge["content"])

    code, again = cli(capsys, "grade", str(config))
    assert code == 0 and all(c["planned"] == 0 for c in again["conditions"])
    assert solver_requests(server) == 48
    _check_status_show_export_report(tmp_path, capsys, config, verdicts)


def _check_status_show_export_report(root, capsys, config, verdicts) -> None:
    status = cli(capsys, "status", str(config))[1]
    pairwise_rows = [row for row in status["grade"] if row["kind"] == "pairwise"]
    assert {
        (r["slug"], r["solutions"], r["done"], r["pending"]) for r in pairwise_rows
    } == {(f"{name}_builtin-pairwise", 96, 96, 0) for name in JUDGES}
    shown = cli(capsys, "show", str(config), "q03")[1]
    assert len(shown["pairwise"]) == 3 * 3 * 2
    assert {row["reasoning"] for row in shown["pairwise"]} == set(JUDGES_BY_MODEL)
    exported = cli(capsys, "export", str(config))[1]
    assert exported["pairwise_rows"] == len(verdicts)
    long = pd.read_parquet(root / "studies" / "t" / "export" / "pairwise_long.parquet")
    assert len(long) == len(verdicts) and not long["stale"].any()
    first = long["shown_first"] == np.where(
        long["order"] == 1, long["condition_a"], long["condition_b"]
    )
    assert first.all() and long["answer_a"].str.startswith("QUALITY").all()
    report = cli(capsys, "report", str(config))[1]
    assert "pairwise" in report["sections"]
    html = Path(report["path"]).read_text()
    assert "Pairwise judges" in html and "win rate (row over column)" in html


def _check_winners_follow_the_script(root: Path, verdicts: pd.DataFrame) -> None:
    """Both orders of a pair never mix up: each stored winner is the condition the
    script prefers."""
    solutions = pd.read_parquet(root / "studies" / "t" / "solutions.parquet")
    model_of = dict(
        zip(solutions["condition_id"], solutions["model"].str.rsplit("/", n=1).str[-1])
    )
    for row in verdicts.itertuples():
        ma, mb = model_of[row.condition_a], model_of[row.condition_b]
        if row.grader_name == "content":
            qa, qb = quality(ma, row.item_id), quality(mb, row.item_id)
            expected = (
                row.condition_a if qa > qb else row.condition_b if qb > qa else "tie"
            )
        elif row.grader_name == "first":
            expected = row.condition_a if row.order == 1 else row.condition_b
        else:
            la, lb = row.length_a, row.length_b
            expected = (
                row.condition_a if la > lb else row.condition_b if lb > la else "tie"
            )
        assert row.winner == expected, row


def _check_win_rates(rows: list[dict[str, Any]], verdicts: pd.DataFrame) -> None:
    score = np.where(
        verdicts["winner"] == verdicts["condition_a"],
        1.0,
        np.where(verdicts["winner"] == "tie", 0.5, 0.0),
    )
    frame = verdicts.assign(score=score)
    expected = frame.groupby(["condition_a", "condition_b"])["score"].agg(
        ["mean", "size"]
    )
    assert len(rows) == 3
    for row in rows:
        mean, n = expected.loc[(row["a"], row["b"])]
        assert row["n"] == n and abs(row["win_rate"] - mean) < 1e-9
        assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
        pair = frame[
            (frame["condition_a"] == row["a"]) & (frame["condition_b"] == row["b"])
        ]
        cells = (
            pair.assign(diff=pair["length_a"] - pair["length_b"])
            .groupby(["item_id", "epoch"])[["diff", "score"]]
            .mean()
        )
        corr = np.corrcoef(cells["diff"], cells["score"])[0, 1]
        if np.isnan(
            corr
        ):  # e.g. the first-position judge: every cell's two orders average to a tie
            assert row["length_corr"] is None
        else:
            assert abs(row["length_corr"] - corr) < 1e-9


def _check_strengths(rows: list[dict[str, Any]], verdicts: pd.DataFrame) -> None:
    """Bradley–Terry as a logistic regression without intercept (statsmodels), ties
    as half a win."""
    ids = sorted(set(verdicts["condition_a"]) | set(verdicts["condition_b"]))
    column = {c: k for k, c in enumerate(ids)}
    x = np.zeros((len(verdicts), len(ids)))
    x[np.arange(len(verdicts)), verdicts["condition_a"].map(column)] = 1.0
    x[np.arange(len(verdicts)), verdicts["condition_b"].map(column)] = -1.0
    y = np.where(
        verdicts["winner"] == verdicts["condition_a"],
        1.0,
        np.where(verdicts["winner"] == "tie", 0.5, 0.0),
    )
    fit = sm.GLM(y, x[:, 1:], family=sm.families.Binomial()).fit(tol=1e-12)
    expected = [0.0, *fit.params]
    got = {row["gen_condition_id"]: row for row in rows}
    assert sorted(got) == ids
    for condition, value in zip(ids, expected):
        assert abs(got[condition]["strength"] - value) < 1e-6
        assert abs(got[condition]["elo"] - (1000 + 400 / np.log(10) * value)) < 1e-6
        assert got[condition]["ci_low"] <= got[condition]["strength"] + 1e-9
        assert got[condition]["strength"] <= got[condition]["ci_high"] + 1e-9


def test_a_killed_pairwise_grade_repays_only_the_calls_in_flight(
    tmp_path, capsys, server, monkeypatch
):
    config = study(tmp_path)
    assert cli(capsys, "generate", str(config))[0] == 0
    add_graders(
        config,
        {
            "content": {
                "model": "openai-api/local/pw-content",
                "kind": "pairwise",
                "max_connections": 1,
                "max_retries": 0,
            }
        },
    )
    assert (
        cli(capsys, "grade", str(config), "--condition", "scorer_exact-match")[0] == 0
    )
    total = 3 * 16 * 2
    pace = {
        "delay": 0.3
    }  # slow until the kill, so it lands mid-grade; then at full speed
    with OpenAIServer(responder=respond, delay=lambda _: pace["delay"]) as slow:
        env = {**os.environ, **slow.env(), "INSPECT_DISPLAY": "none"}
        proc = start_itemeval("grade", str(config), cwd=tmp_path, env=env)
        sigkill_when(
            proc,
            lambda: journaled(tmp_path / "studies" / "t", "pairwise") >= 4,
            "4 verdicts in the journal",
        )
        time.sleep(0.5)  # the call in flight at the kill ends on the server side
        pace["delay"] = 0.0
        paid_before = {_prompt(body) for body in slow.requests}
        sent_before = len(slow.requests)
        assert 4 <= sent_before < total

        from inspect_ai.model import _model

        for key, value in slow.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        code, result = cli(capsys, "grade", str(config))
        _model._models.clear()
        assert code == 0
        recovered = result["recovered_rows"].get("pairwise", 0)
        assert recovered >= 4
        assert {c["slug"]: c["planned"] for c in result["conditions"]}[
            "content_builtin-pairwise"
        ] == total - recovered
        resent = [_prompt(body) for body in slow.requests[sent_before:]]
        assert len(resent) == total - recovered  # only what the journal did not hold
        assert (
            len(paid_before & set(resent)) <= 1
        )  # at most the one call in flight at the kill
    verdicts = store(tmp_path)
    assert len(verdicts) == total and verdicts["error"].isna().all()
    assert solver_requests(server) == 48


def _prompt(body: dict[str, Any]) -> str:
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def offline_study(root: Path) -> Path:
    config = base_config(
        cache=False,
        solvers__models=[
            "itemeval/arith-good",
            "itemeval/arith-weak",
            "itemeval/arith-fair",
        ],
        facets__scorer=None,
        facets__grader=["pw"],
        graders={"pw": {"model": "itemeval/judge", "kind": "pairwise"}},
    )
    return write_study(root, config)


def test_a_launch_over_two_shards_asks_every_verdict_once(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")
    single, launched = (
        offline_study(tmp_path / "single"),
        offline_study(tmp_path / "launched"),
    )
    for config in (single, launched):
        assert cli(capsys, "generate", str(config))[0] == 0
    assert cli(capsys, "grade", str(single))[0] == 0
    code, result = cli(
        capsys, "launch", "grade", str(launched), "--shards", "2", "--yes"
    )
    assert code == 0 and result["outcome"] == "completed"
    assert result["totals"]["rows"] == 3 * 4 * 2  # 3 pairs x 4 items x 2 orders
    key = ["condition_a", "condition_b", "item_id", "epoch", "order"]
    one = store(tmp_path / "single").sort_values(key).reset_index(drop=True)
    two = store(tmp_path / "launched").sort_values(key).reset_index(drop=True)
    assert len(two) == 24 and two[[*key, "winner"]].equals(one[[*key, "winner"]])
    assert cli(capsys, "grade", str(launched))[1]["conditions"][0]["planned"] == 0
