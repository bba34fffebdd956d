"""inspect's model-graded scorers as graders: a grade task replays each stored
solution and inspect's scorer makes the model calls, with logs, cache, retries, cost,
the spend cap, resume and --grader selection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from itemeval.cli import main
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer

QA = {"name": "model_graded_qa", "params": {"model": "itemeval/judge"}}


@pytest.fixture(autouse=True)
def well_formed_judges(monkeypatch):
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")


PANEL_PRICES = {
    "models": {
        "itemeval/judge-b": {"input": 0.5, "output": 1.0},
        "itemeval/judge-c": {"input": 0.5, "output": 1.0},
    }
}


def study(root: Path, *scorers: Any, **overrides: Any) -> Path:
    """The arithmetic study graded by `numeric` and the given scorers; judge-b and
    judge-c get prices too."""
    overrides.setdefault("budget", {"pricing_path": "panel-prices.json"})
    config = base_config(
        solvers__models=["itemeval/arith-fair"],
        facets__scorer=["numeric", *scorers],
        **overrides,
    )
    path = write_study(root, config)
    (root / "panel-prices.json").write_text(json.dumps(PANEL_PRICES))
    return path


def cli(capsys, *args: str) -> tuple[int, dict]:
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def grades(root: Path) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / "grades.parquet")


def by_scorer(root: Path, scorer: str) -> pd.DataFrame:
    table = grades(root)
    return table[table["scorer"] == scorer].set_index("item_id")


def test_model_graded_qa_grades_stored_solutions_like_a_judge(tmp_path, capsys):
    path = study(tmp_path, QA)
    assert cli(capsys, "generate", str(path), "--yes")[0] == 0
    code, result = cli(capsys, "grade", str(path), "--yes")
    assert code == 0
    graded = by_scorer(tmp_path, "model_graded_qa")
    numeric = by_scorer(tmp_path, "numeric")
    assert len(graded) == 4 and (graded["grade_kind"] == "model_graded").all()
    assert set(graded["score_raw"]) <= {"C", "I"} and graded["parse_ok"].all()
    assert (
        graded["score"] == numeric.loc[graded.index, "score"]
    ).all()  # the offline judge checks the answer exactly
    assert (
        (graded["usd"] > 0).all()
        and (graded["input_tokens"] > 0).all()
        and graded["error"].isna().all()
    )
    assert (graded["grader_model"] == "itemeval/judge").all() and graded[
        "log_file"
    ].str.startswith("logs/grade/").all()
    assert (
        graded["explanation"].str.contains("GRADE:").all()
    )  # the grader's reply, as inspect reports it
    assert all((tmp_path / "studies" / "t" / f).is_file() for f in graded["log_file"])
    line = next(
        c
        for c in result["conditions"]
        if c["slug"].startswith("scorer_model-graded-qa-")
    )
    assert line["rows"] == 4 and line["usd"] == pytest.approx(graded["usd"].sum())
    assert (
        cli(capsys, "grade", str(path), "--yes")[1]["totals"]["rows"] == 0
    )  # resumable


def test_a_panel_of_graders_votes_and_every_call_is_paid(tmp_path, capsys):
    panel = {
        "name": "model_graded_fact",
        "params": {
            "model": ["itemeval/judge", "itemeval/judge-b", "itemeval/judge-c"],
            "reducer": "mode",
        },
    }
    single = {"name": "model_graded_fact", "params": {"model": "itemeval/judge"}}
    path = study(tmp_path, panel, single)
    cli(capsys, "generate", str(path), "--yes")
    code, _ = cli(capsys, "grade", str(path), "--yes")
    assert code == 0
    table = grades(tmp_path)
    facts = table[table["scorer"] == "model_graded_fact"]
    panel_rows = facts[facts["grader_model"].str.contains(",")].set_index("item_id")
    single_rows = facts[~facts["grader_model"].str.contains(",")].set_index("item_id")
    assert len(panel_rows) == len(single_rows) == 4
    assert (panel_rows["score"] == single_rows.loc[panel_rows.index, "score"]).all()
    # three calls per panel grade: three times the tokens of one grader reading the same
    # prompt
    assert (
        panel_rows["input_tokens"]
        == 3 * single_rows.loc[panel_rows.index, "input_tokens"]
    ).all()
    assert (panel_rows["usd"] > single_rows.loc[panel_rows.index, "usd"]).all()


def test_grader_selects_model_graded_conditions_by_name_or_model(tmp_path, capsys):
    path = study(
        tmp_path,
        QA,
        facets__grader=["j"],
        graders={"j": {"model": "itemeval/judge"}},
        facets__rubric=["r"],
    )
    cli(capsys, "generate", str(path), "--yes")
    code, result = cli(
        capsys, "grade", str(path), "--yes", "--grader", "model_graded_qa"
    )
    assert code == 0 and [c["slug"][:-5] for c in result["conditions"]] == [
        "scorer_model-graded-qa"
    ]
    code, result = cli(capsys, "grade", str(path), "--yes", "--grader", "j")
    assert {c["slug"] for c in result["conditions"]} == {"j_r"}
    assert set(grades(tmp_path)["grade_kind"]) == {"model_graded", "judge"}


def test_unparseable_grades_are_final_and_grader_errors_are_retried(
    tmp_path, capsys, monkeypatch
):
    path = study(
        tmp_path, QA, {"name": "model_graded_qa", "params": {"model": "itemeval/fail"}}
    )
    cli(capsys, "generate", str(path), "--yes")
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "1")
    cli(capsys, "grade", str(path), "--yes")
    table = grades(tmp_path)
    unparsed = table[table["grader_model"] == "itemeval/judge"]
    failed = table[table["grader_model"] == "itemeval/fail"]
    assert (unparsed["parse_error"] == "unscored").all() and (
        ~unparsed["parse_ok"]
    ).all()
    assert unparsed["score"].isna().all() and unparsed["error"].isna().all()
    assert (
        failed["error"].str.contains("injected failure").all()
        and failed["score"].isna().all()
    )
    code, again = cli(capsys, "grade", str(path), "--yes")
    planned = {c["slug"]: c["planned"] for c in again["conditions"]}
    assert (
        sum(planned.values()) == 4
    )  # only the errored grades run again; parse failures are final


def test_the_spend_cap_holds_for_model_graded_panels(tmp_path, capsys):
    panel = {
        "name": "model_graded_qa",
        "params": {
            "model": ["itemeval/judge", "itemeval/judge-b"],
            "max_tokens": 64,
            "reducer": "mode",  # every release of the range has it
        },
    }
    path = study(tmp_path, panel)
    cli(capsys, "generate", str(path), "--yes")
    code, result = cli(capsys, "grade", str(path), "--yes", "--max-usd", "0.0001")
    assert code == 4 and result["outcome"] == "budget_stopped"
    spent = grades(tmp_path).query("grade_kind == 'model_graded'")["usd"].sum()
    assert spent <= 0.0001


def test_the_estimate_counts_each_model_of_a_panel(tmp_path, capsys):
    panel = {
        "name": "model_graded_qa",
        "params": {"model": ["itemeval/judge", "itemeval/judge-b"], "reducer": "mode"},
    }
    path = study(tmp_path, panel)
    cli(capsys, "generate", str(path), "--yes")
    code, estimate = cli(capsys, "estimate", str(path), "--stage", "grade")
    line = next(
        c
        for c in estimate["conditions"]
        if c["slug"].startswith("scorer_model-graded-qa-")
    )
    assert code == 0 and line["calls"] == 8 and line["usd_ceiling"] > 0


def test_a_panel_is_reduced_by_majority_where_inspect_has_it(tmp_path, capsys):
    """inspect's `majority` reducer, a panel's default, is 0.3.262's and later's: on
    an older inspect-ai the study is refused when it loads, saying what to set."""
    from itemeval.version import inspect_version, release

    panel = {
        "name": "model_graded_qa",
        "params": {"model": ["itemeval/judge", "itemeval/judge-b", "itemeval/judge-c"]},
    }
    path = study(tmp_path, panel)
    code, result = cli(capsys, "generate", str(path), "--yes")
    if release(inspect_version() or "") >= (0, 3, 262):
        code, result = cli(capsys, "grade", str(path), "--yes")
        assert code == 0, result
        panel_rows = grades(tmp_path).query("grade_kind == 'model_graded'")
        assert len(panel_rows) == 4 and panel_rows["score"].notna().any()
    else:
        assert code == 2
        assert "unknown reducer 'majority'" in result["error"]["message"]
        assert "set `reducer: mode`" in result["error"]["message"]


class GradingServer(OpenAIServer):
    """Replies in inspect's model-graded protocol to grading prompts."""

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        reply = super()._completion(body)
        if "GRADE: $LETTER" in self._last_user(body):
            reply["choices"][0]["message"]["content"] = (
                "The submission matches the criterion.\nGRADE: C"
            )
        return reply


def test_a_real_provider_grades_through_the_openai_sdk_and_the_cache_repays_nothing(
    tmp_path, capsys, monkeypatch
):
    from inspect_ai.model import _model

    with GradingServer() as server:
        for key, value in server.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        path = study(
            tmp_path,
            {"name": "model_graded_qa", "params": {"model": "openai-api/local/grader"}},
            budget={"pricing_path": "prices.json"},
        )
        (tmp_path / "prices.json").write_text(
            json.dumps(
                {"models": {"openai-api/local/grader": {"input": 1, "output": 2}}}
            )
        )
        cli(capsys, "generate", str(path), "--yes")
        assert cli(capsys, "grade", str(path), "--yes")[0] == 0
        first = len(server.requests)
        table = by_scorer(tmp_path, "model_graded_qa")
        (
            tmp_path / "studies" / "t" / "grades.parquet"
        ).unlink()  # lose the grades: the cache has the calls
        assert cli(capsys, "grade", str(path), "--yes")[0] == 0
        again = len(server.requests)
    _model._models.clear()
    assert first == 4 and again == first
    assert (table["score"] == 1.0).all() and (table["usd"] > 0).all()
    assert by_scorer(tmp_path, "model_graded_qa")["cache_hit"].all()
    assert (by_scorer(tmp_path, "model_graded_qa")["usd"] == 0).all()
