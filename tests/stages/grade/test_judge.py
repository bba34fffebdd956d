"""Stage 2 on real inspect runs: verifiable scorers and judges over stored solutions,
resume, selection, adding a judge."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from itemeval.cli import main
from itemeval.scorers import score_solution
from itemeval.scorers.judge import parse_judge_reply
from tests.helpers import ARITH, base_config, write_study
from tests.openai_server import OpenAIServer
from tests.processes import journaled, sigkill_when, start_itemeval

RUBRIC = (
    "Problem: {input}\nReference answer: {target}\n\nCandidate "
    "solution:\n{solution}\n\nScore 1 if correct, else 0."
)
SPEC_GRADE_COLUMNS = [
    "grade_condition_id",
    "grade_condition_slug",
    "gen_condition_id",
    "item_id",
    "epoch",
    "grade_kind",
    "scorer",
    "grader_name",
    "grader_model",
    "rubric_name",
    "rubric_hash",
    "solution_hash",
    "score",
    "score_raw",
    "parse_ok",
    "parse_error",
    "reasoning",
    "judge_completion",
    "error",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "usd",
    "cache_hit",
    "latency_s",
    "run_id",
    "log_file",
    "created_at",
]
PARSE_CODES = {
    "no_json_object",
    "invalid_json",
    "no_score_in_json",
    "score_not_numeric",
    "score_not_finite",
    "score_out_of_range",
}


class StudyServer(OpenAIServer):
    """The local server as solver and judge: judge prompts (they carry the format
    suffix) get a JSON verdict, and solver replies end with `tag`, so a re-generation
    can change a stored text."""

    tag = ""

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        reply = super()._completion(body)
        message = reply["choices"][0]["message"]
        if "## How to reply" in self._last_user(body):
            message["content"] = (
                'The answer matches.\n```json\n{"score": 1, "reasoning": '
                '"matches"}\n```'
            )
        elif self.tag:
            message["content"] = f"{message['content']}\n{self.tag}"
        return reply


@pytest.fixture(autouse=True)
def well_formed_judges(monkeypatch):
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")


@pytest.fixture
def server(monkeypatch):
    """A started StudyServer that `openai-api/local/*` models reach (inspect memoizes
    models, so forget them)."""
    from inspect_ai.model import _model

    with StudyServer() as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        yield srv
    _model._models.clear()


def study_config(**overrides: Any) -> dict[str, Any]:
    return base_config(
        **{
            "cache": False,
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge", "max_tokens": 256}},
            **overrides,
        }
    )


def make_study(root: Path, **overrides: Any) -> Path:
    return write_study(root, study_config(**overrides), rubric=RUBRIC)


def edit_config(path: Path, **changes: Any) -> None:
    config = yaml.safe_load(path.read_text())
    for dotted, value in changes.items():
        node = config
        *parents, last = dotted.split("__")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    path.write_text(yaml.safe_dump(config, sort_keys=False))


def cli(capsys, *args: str) -> tuple[int, dict[str, Any]]:
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def planned(result: dict[str, Any]) -> dict[str, int]:
    return {c["slug"]: c["planned"] for c in result["conditions"]}


def grades_table(root: Path) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / "grades.parquet")


def solutions_table(root: Path) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / "solutions.parquet")


def tree_digest(directory: Path) -> dict[str, str]:
    """sha256 of every file under `directory`, following a store's symlink to its
    version dir."""
    directory = directory.resolve()
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def study_digest(root: Path) -> dict[str, str]:
    study = root / "studies" / "t"
    digest = {
        f"{name}/{k}": v
        for name in ("solutions.parquet", "grades.parquet", "items.parquet")
        if (study / name).exists()
        for k, v in tree_digest(study / name).items()
    }
    for name in ("solutions.parquet", "grades.parquet", "items.parquet"):
        if (study / name).is_symlink():
            digest[f"{name}->"] = os.readlink(study / name)
    for sub in ("manifests", "logs", "journal"):
        digest.update(
            {f"{sub}/{k}": v for k, v in tree_digest(study / sub).items()}
            if (study / sub).exists()
            else {}
        )
    digest["dataset_locks.json"] = hashlib.sha256(
        (study / "dataset_locks.json").read_bytes()
    ).hexdigest()
    return digest


def assert_invariant(frame: pd.DataFrame) -> None:
    """The grades invariant (README "The study directory"): for rows without error,
    parse_ok false ⇔ parse_error set ⇔ score null."""
    ok = frame[frame["error"].isna()]
    assert not ok.empty
    failed = ~ok["parse_ok"].astype(bool)
    assert (failed == ok["parse_error"].notna()).all()
    assert (failed == ok["score"].isna()).all()


# ---- a generated study, graded
# -------------------------------------------------------------------------


def test_grade_writes_verifiable_and_judge_rows_then_rerun_writes_nothing(
    tmp_path, capsys
):
    config = make_study(tmp_path)
    assert cli(capsys, "generate", str(config))[0] == 0
    solutions = solutions_table(tmp_path)
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and result["outcome"] == "completed"
    assert planned(result) == {"j_r": 4, "scorer_numeric": 4}

    grades = grades_table(tmp_path)
    assert set(SPEC_GRADE_COLUMNS) <= set(grades.columns)
    assert (
        len(grades) == 8
        and not grades.duplicated(
            ["grade_condition_id", "gen_condition_id", "item_id", "epoch"]
        ).any()
    )
    assert grades["error"].isna().all()
    assert_invariant(grades)

    texts = dict(zip(solutions["item_id"], solutions["solution"]))
    hashes = dict(zip(solutions["item_id"], solutions["solution_hash"]))
    targets = {row["qid"]: row["answer"] for row in ARITH}
    verifiable = grades[grades["grade_kind"] == "verifiable"].set_index("item_id")
    for item_id, row in verifiable.iterrows():
        expected = score_solution("numeric", {}, texts[item_id], targets[item_id])
        assert row["score"] == expected.score and row["score_raw"] == expected.answer
        assert (
            row["usd"] == 0.0
            and row["scorer"] == "numeric"
            and row["solution_hash"] == hashes[item_id]
        )

    judge = grades[grades["grade_kind"] == "judge"]
    assert set(judge["grader_name"]) == {"j"} and set(judge["grader_model"]) == {
        "itemeval/judge"
    }
    assert set(judge["rubric_name"]) == {"r"} and judge["rubric_hash"].notna().all()
    assert (judge["input_tokens"] > 0).all() and (judge["output_tokens"] > 0).all()
    assert (
        (judge["usd"] > 0).all()
        and not judge["cache_hit"].any()
        and judge["latency_s"].notna().all()
    )
    for log_file, completion, score in zip(
        judge["log_file"], judge["judge_completion"], judge["score"]
    ):
        assert (
            log_file.startswith("logs/grade/")
            and (tmp_path / "studies" / "t" / log_file).is_file()
        )
        assert parse_judge_reply(completion).score == score

    before = study_digest(tmp_path)
    code, again = cli(capsys, "grade", str(config))
    assert code == 0 and sum(planned(again).values()) == 0 and again["run_id"] is None
    assert (
        study_digest(tmp_path) == before
    )  # no row, no manifest, no log: no judge call was made


def test_judging_cut_into_several_evals_grades_every_solution_once(
    tmp_path, capsys, monkeypatch
):
    config = make_study(tmp_path, facets__replications=2)
    assert cli(capsys, "generate", str(config))[0] == 0
    monkeypatch.setenv("ITEMEVAL_CELLS_PER_EVAL", "3")  # 8 judge calls -> 3 evals
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result) == {"j_r": 8, "scorer_numeric": 8}
    judge = grades_table(tmp_path).query("grade_kind == 'judge'")
    assert len(judge) == 8 and judge["error"].isna().all()
    assert not judge.duplicated(["gen_condition_id", "item_id", "epoch"]).any()
    assert judge["log_file"].nunique() == 3
    assert sum(planned(cli(capsys, "grade", str(config))[1]).values()) == 0


def test_force_regrades_everything(tmp_path, capsys):
    config = make_study(tmp_path)
    assert cli(capsys, "generate", str(config))[0] == 0
    first = cli(capsys, "grade", str(config))[1]["run_id"]
    code, result = cli(capsys, "grade", str(config), "--force")
    assert code == 0 and planned(result) == {"j_r": 4, "scorer_numeric": 4}
    grades = grades_table(tmp_path)
    assert len(grades) == 8 and set(grades["run_id"]) == {result["run_id"]} != {first}


def test_errored_solutions_are_never_graded_and_blank_ones_follow_on_empty(
    tmp_path, capsys, monkeypatch
):
    from itemeval.hashing import text_hash
    from itemeval.store import read_store, upsert
    from itemeval.study.load import load_study

    config = make_study(tmp_path, facets__grader=[])
    assert cli(capsys, "generate", str(config))[0] == 0
    monkeypatch.setenv("ITEMEVAL_OFFLINE_FAIL_RATE", "1")
    assert (
        cli(capsys, "generate", str(config), "--force", "--limit", "1")[1]["totals"][
            "errors"
        ]
        == 1
    )  # a1 fails now
    monkeypatch.delenv("ITEMEVAL_OFFLINE_FAIL_RATE")
    # The offline solvers never reply blank: store one as a provider could have returned
    # it.
    study = load_study(config)
    stored = {
        row["item_id"]: row for row in read_store(study.paths, "solutions").to_pylist()
    }
    assert stored["a1"]["error"] and stored["a1"]["solution"] is None
    upsert(
        study.paths,
        "solutions",
        [
            {
                **stored["a2"],
                "solution": "  \n",
                "solution_hash": text_hash("  \n"),
                "blank": True,
            }
        ],
    )

    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result) == {"scorer_numeric": 2}
    assert sorted(grades_table(tmp_path)["item_id"]) == ["a3", "a4"]

    edit_config(
        config, solvers__on_empty="grade"
    )  # not part of any id: same conditions, blank now graded
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result) == {"scorer_numeric": 1}
    grades = grades_table(tmp_path).set_index("item_id")
    assert sorted(grades.index) == ["a2", "a3", "a4"]
    assert grades.loc["a2", "parse_error"] == "no_number_found" and pd.isna(
        grades.loc["a2", "score"]
    )

    status = cli(capsys, "status", str(config))[1]
    assert status["generate"][0]["errors"] == 1 and status["generate"][0]["empty"] == 1
    assert status["grade"][0]["solutions"] == 3 and status["grade"][0]["pending"] == 0


def test_condition_grader_and_rubric_select_what_is_graded(tmp_path, capsys):
    config = make_study(
        tmp_path,
        facets__prompt=["p", "builtin:minimal"],
        facets__rubric=["r", "builtin:standard"],
        graders={"j": {"model": "itemeval/judge"}, "k": {"model": "itemeval/judge-k"}},
        facets__grader=["j", "k"],
    )
    assert cli(capsys, "generate", str(config))[0] == 0
    gen = {
        row["slug"]: row["condition_id"]
        for row in cli(capsys, "status", str(config))[1]["generate"]
    }
    judges = ["j_r", "j_builtin-standard", "k_r", "k_builtin-standard"]

    # a generate id narrows the solutions, every grade condition runs
    code, result = cli(
        capsys,
        "grade",
        str(config),
        "--condition",
        gen["arith-good_p_default"],
        "--limit",
        "2",
    )
    assert code == 0 and planned(result) == dict.fromkeys(
        [*judges, "scorer_numeric"], 2
    )
    assert set(grades_table(tmp_path)["gen_condition_id"]) == {
        gen["arith-good_p_default"]
    }

    # a grade slug (or id prefix) narrows the grade conditions, every generate condition
    # is covered
    code, result = cli(capsys, "grade", str(config), "--condition", "scorer_numeric")
    assert code == 0 and planned(result) == {"scorer_numeric": 6}

    # --grader and --rubric pick judge conditions and never run the verifiable one
    code, result = cli(capsys, "grade", str(config), "--grader", "k", "--rubric", "r")
    assert code == 0 and planned(result) == {"k_r": 6}
    code, result = cli(capsys, "grade", str(config), "--rubric", "builtin:standard")
    assert code == 0 and planned(result) == {
        "j_builtin-standard": 6,
        "k_builtin-standard": 6,
    }
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result) == {
        **dict.fromkeys(judges, 0),
        "j_r": 6,
        "scorer_numeric": 0,
    }
    grades = grades_table(tmp_path)
    assert grades.groupby("grade_condition_slug").size().to_dict() == dict.fromkeys(
        [*judges, "scorer_numeric"], 8
    )

    assert main(["grade", str(config), "--grader", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err


# ---- the reason the package exists: adding a judge later
# ------------------------------------------------


def test_adding_a_judge_later_reuses_every_solution_and_calls_no_solver(
    tmp_path, capsys, server
):
    config = make_study(
        tmp_path, solvers__models=["openai-api/local/solver"], solvers__max_retries=0
    )
    assert cli(capsys, "generate", str(config))[0] == 0
    assert len(server.requests) == 4
    assert cli(capsys, "grade", str(config))[0] == 0
    study = tmp_path / "studies" / "t"
    solutions_before = tree_digest(study / "solutions.parquet")
    link_before = os.readlink(study / "solutions.parquet")
    old_grades = grades_table(tmp_path)

    graders = {
        "j": {"model": "itemeval/judge", "max_tokens": 256},
        "new_judge": {"model": "itemeval/judge-new"},
    }
    edit_config(
        config, graders=graders
    )  # defined under graders:, not listed in facets.grader
    code, result = cli(capsys, "grade", str(config), "--grader", "new_judge")
    assert code == 0 and planned(result) == {"new-judge_r": 4}
    assert len(server.requests) == 4  # the solver was not called again
    assert tree_digest(study / "solutions.parquet") == solutions_before
    assert os.readlink(study / "solutions.parquet") == link_before
    assert sorted(name.split("-")[1] for name in os.listdir(study / "manifests")) == [
        "generate",
        "grade",
        "grade",
    ]

    grades = grades_table(tmp_path)
    new = grades[grades["grader_name"] == "new_judge"]
    assert (
        len(new) == 4
        and set(new["grader_model"]) == {"itemeval/judge-new"}
        and new["score"].notna().all()
    )
    assert set(new["solution_hash"]) == set(solutions_table(tmp_path)["solution_hash"])
    old = grades[grades["grader_name"] != "new_judge"].sort_values(
        ["grade_condition_id", "item_id"]
    )
    pd.testing.assert_frame_equal(
        old.reset_index(drop=True),
        old_grades.sort_values(["grade_condition_id", "item_id"]).reset_index(
            drop=True
        ),
    )
    # status shows the new judge beside the grid, and grading it again does nothing
    status = cli(capsys, "status", str(config))[1]
    assert {
        row["slug"]: (row["solutions"], row["done"]) for row in status["grade"]
    } == {"j_r": (4, 4), "scorer_numeric": (4, 4), "new-judge_r": (4, 4)}
    assert (
        status["generate"][0]["usd"] is None and status["spend_usd"]["generate"] is None
    )  # unpriced: unknown, not $0
    assert {
        row["slug"]: row["usd"] for row in status["grade"] if row["slug"] != "j_r"
    } == {
        "scorer_numeric": 0.0,
        "new-judge_r": None,
    }  # itemeval/judge-new has no price either
    assert status["grade"][0]["usd"] > 0
    code, result = cli(capsys, "grade", str(config), "--grader", "new_judge")
    assert code == 0 and planned(result) == {"new-judge_r": 0}
    assert len(server.requests) == 4
    assert cli(capsys, "export", str(config))[1]["rows"] == 12
    exported = pd.read_parquet(study / "export" / "grades_long.parquet")
    assert (
        exported["in_grid"].all()
        and (exported["grader_name"] == "new_judge").sum() == 4
    )


# ---- judge replies that do not parse, solutions that changed
# -------------------------------------------------


def test_malformed_judge_replies_are_final_parse_failures(
    tmp_path, capsys, monkeypatch
):
    config = make_study(tmp_path, facets__scorer=None, facets__replications=2)
    assert cli(capsys, "generate", str(config))[0] == 0
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "1")
    assert cli(capsys, "grade", str(config))[0] == 0
    grades = grades_table(tmp_path)
    assert len(grades) == 8 and grades["error"].isna().all()
    assert not grades["parse_ok"].any() and grades["score"].isna().all()
    assert (
        set(grades["parse_error"]) <= PARSE_CODES
        and len(set(grades["parse_error"])) >= 2
    )
    for completion, code in zip(grades["judge_completion"], grades["parse_error"]):
        assert completion and parse_judge_reply(completion).parse_error == code
    assert_invariant(grades)

    status = cli(capsys, "status", str(config))[1]["grade"][0]
    assert (status["done"], status["parse_failed"], status["pending"]) == (8, 8, 0)
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result) == {"j_r": 0}  # not retried
    code, result = cli(capsys, "grade", str(config), "--force")
    assert code == 0 and planned(result) == {"j_r": 8}
    assert grades_table(tmp_path)["parse_ok"].all()


def test_a_judge_score_past_any_scale_is_a_parse_failure_and_the_run_goes_on(
    tmp_path, capsys, server, monkeypatch
):
    """A 5,000-digit score once failed the whole grade run (exit 1, the paid verdict
    dropped) and -1e308 was taken as a score; each is now `score_out_of_range`, its
    number kept as text, and the other verdicts are stored."""
    huge = "9" * 5000
    hostile = iter([huge, "-1e308"])

    def verdict(body: dict[str, Any]) -> dict[str, Any]:
        reply = StudyServer._completion(server, body)
        if "## How to reply" in server._last_user(body):
            score = next(hostile, "1")
            reply["choices"][0]["message"]["content"] = (
                f'```json\n{{"score": {score}, "reasoning": "r"}}\n```'
            )
        return reply

    monkeypatch.setattr(server, "_completion", verdict)
    config = make_study(
        tmp_path,
        facets__scorer=None,
        graders={"j": {"model": "openai-api/local/judge", "max_tokens": 256}},
    )
    assert cli(capsys, "generate", str(config))[0] == 0
    code, result = cli(capsys, "grade", str(config))
    grades = grades_table(tmp_path)
    assert code == 0 and len(grades) == 4 and grades["error"].isna().all()
    failed = grades[~grades["parse_ok"].astype(bool)]
    assert sorted(failed["score_raw"]) == sorted([huge, "-1e308"])
    assert set(failed["parse_error"]) == {"score_out_of_range"}
    assert failed["score"].isna().all() and (grades["score"].dropna() == 1.0).all()
    assert_invariant(grades)
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result) == {"j_r": 0}  # paid once, not asked again


def test_a_solution_overwritten_at_its_key_makes_its_grades_stale(
    tmp_path, capsys, server
):
    config = make_study(
        tmp_path, solvers__models=["openai-api/local/solver"], solvers__max_retries=0
    )
    assert cli(capsys, "generate", str(config))[0] == 0
    assert cli(capsys, "grade", str(config))[0] == 0
    old = grades_table(tmp_path).set_index(["grade_condition_slug", "item_id"])

    server.tag = "On second thoughts:\nANSWER: 999"
    code, result = cli(
        capsys, "generate", str(config), "--force", "--limit", "1"
    )  # overwrites item a1 only
    assert code == 0 and result["totals"]["rows"] == 1
    status = cli(capsys, "status", str(config))[1]["grade"]
    assert {
        row["slug"]: (row["stale"], row["pending"], row["done"]) for row in status
    } == {"j_r": (1, 0, 3), "scorer_numeric": (1, 0, 3)}
    assert cli(capsys, "export", str(config))[0] == 0
    exported = pd.read_parquet(
        tmp_path / "studies" / "t" / "export" / "grades_long.parquet"
    )
    assert sorted(exported.loc[exported["stale"], "item_id"]) == ["a1", "a1"]

    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result) == {"j_r": 1, "scorer_numeric": 1}
    new = grades_table(tmp_path).set_index(["grade_condition_slug", "item_id"])
    current = solutions_table(tmp_path).set_index("item_id").loc["a1", "solution_hash"]
    assert (
        new.loc[("scorer_numeric", "a1"), "solution_hash"]
        == current
        != old.loc[("scorer_numeric", "a1"), "solution_hash"]
    )
    assert (
        new.loc[("scorer_numeric", "a1"), "score"] == 0.0
        and old.loc[("scorer_numeric", "a1"), "score"] == 1.0
    )
    assert (
        (new.loc[("j_r", "a2"), "run_id"]) == old.loc[("j_r", "a2"), "run_id"]
    )  # untouched
    assert all(
        row["stale"] == 0 for row in cli(capsys, "status", str(config))[1]["grade"]
    )


def test_judge_call_errors_are_rows_that_the_next_run_retries(
    tmp_path, capsys, monkeypatch
):
    config = make_study(tmp_path)
    assert cli(capsys, "generate", str(config))[0] == 0
    monkeypatch.setenv(
        "ITEMEVAL_OFFLINE_FAIL_RATE", "1"
    )  # every judge call raises; scorers need no model
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and {c["slug"]: c["errors"] for c in result["conditions"]} == {
        "j_r": 4,
        "scorer_numeric": 0,
    }
    judge = grades_table(tmp_path).query("grade_kind == 'judge'")
    assert len(judge) == 4 and judge["error"].str.contains("injected failure").all()
    assert (
        judge["score"].isna().all()
        and judge["parse_ok"].isna().all()
        and judge["parse_error"].isna().all()
    )
    assert cli(capsys, "status", str(config))[1]["grade"][0]["errors"] == 4

    monkeypatch.setenv("ITEMEVAL_OFFLINE_FAIL_RATE", "0")
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result) == {"j_r": 4, "scorer_numeric": 0}
    judge = grades_table(tmp_path).query("grade_kind == 'judge'")
    assert judge["error"].isna().all() and judge["parse_ok"].all()


def test_a_model_id_used_as_grader_still_has_bounded_retries(tmp_path):
    from itemeval.study.judges import Judging
    from itemeval.study.load import load_study

    study = load_study(
        make_study(tmp_path, facets__grader=["openai-api/local/judge"], graders={})
    )
    judging = Judging(study.config.graders, study.config.budget.batch, str)
    config = judging.config(study.grade[0])
    assert config["temperature"] == 0.0
    assert (config["max_retries"], config["timeout"], config["attempt_timeout"]) == (
        3,
        600.0,
        180.0,
    )


# ---- SIGKILL mid-grade
# -----------------------------------------------------------------------------------


def test_sigkill_mid_grade_repays_nothing_that_finished(tmp_path, capsys, monkeypatch):
    rows = [
        {
            "qid": f"q{i}",
            "question": f"What is {i} + {i}?",
            "answer": str(2 * i),
            "difficulty": "easy",
        }
        for i in range(1, 9)
    ]
    config = write_study(
        tmp_path,
        study_config(
            facets__scorer=None,
            graders={
                "j": {
                    "model": "openai-api/local/judge",
                    "max_connections": 1,
                    "max_retries": 0,
                }
            },
        ),
        rows=rows,
        rubric=RUBRIC,
    )
    assert cli(capsys, "generate", str(config))[0] == 0

    with StudyServer(delay=0.5) as srv:
        env = {**os.environ, **srv.env(), "INSPECT_DISPLAY": "none"}
        proc = start_itemeval("grade", str(config), cwd=tmp_path, env=env)
        sigkill_when(
            proc,
            lambda: journaled(tmp_path / "studies" / "t", "grades") >= 3,
            "3 verdicts in the journal",
        )
        time.sleep(
            0.6
        )  # let the request in flight at the kill finish on the server side
        sent_before = len(srv.requests)
        assert 3 <= len(srv.statuses) < 8

        from inspect_ai.model import _model

        monkeypatch.setenv("LOCAL_BASE_URL", srv.base_url)
        monkeypatch.setenv("LOCAL_API_KEY", "test-key")
        _model._models.clear()
        code, result = cli(capsys, "grade", str(config))
        _model._models.clear()
        assert code == 0
        recovered = result["recovered_rows"].get("grades", 0)
        assert (
            recovered >= 3
        )  # at least the samples that finished a second before the kill
        assert planned(result) == {"j_r": 8 - recovered}
        assert (
            len(srv.requests) - sent_before == 8 - recovered
        )  # the re-run paid only for what was not recorded
        per_item = {row["qid"]: srv.count(row["question"]) for row in rows}

    grades = grades_table(tmp_path)
    assert (
        len(grades) == 8 and grades["error"].isna().all() and grades["parse_ok"].all()
    )
    first_run = set(grades.loc[grades["run_id"] != result["run_id"], "item_id"])
    assert len(first_run) == recovered
    assert all(
        per_item[item] == 1 for item in first_run
    )  # nothing recorded was paid for twice


def test_an_edited_rubric_starts_a_new_judge_condition_and_grade_and_status_say_so(
    tmp_path, capsys
):
    config = make_study(tmp_path)
    assert cli(capsys, "generate", str(config))[0] == 0
    code, first = cli(capsys, "grade", str(config))
    old_id = next(c["condition_id"] for c in first["conditions"] if c["slug"] == "j_r")
    graded = int((grades_table(tmp_path)["grade_condition_id"] == old_id).sum())
    assert code == 0 and graded == 4 and not first["notes"]

    (tmp_path / "rubrics" / "r.md").write_text("Be strict.\n" + RUBRIC)
    code, report = cli(capsys, "status", str(config))
    new_id = next(
        row["condition_id"] for row in report["grade"] if row["slug"] == "j_r"
    )
    (note,) = [n for n in report["notes"] if n.startswith("j_r:")]
    assert (
        new_id != old_id
        and old_id in note
        and new_id in note
        and f"{graded} grades" in note
    )

    code, second = cli(capsys, "grade", str(config))
    (note,) = [n for n in second["notes"] if n.startswith("j_r:")]
    assert code == 0 and old_id in note and new_id in note
    assert planned(second)["j_r"] == 4 and "scorer_numeric" not in " ".join(
        second["notes"]
    )
    grades = grades_table(tmp_path)
    assert set(
        grades.loc[grades["grade_condition_slug"] == "j_r", "grade_condition_id"]
    ) == {old_id, new_id}


def test_grade_summary_counts_parse_failures_per_condition(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv(
        "ITEMEVAL_JUDGE_MALFORMED_RATE", "1"
    )  # every offline judge reply is malformed
    config = make_study(tmp_path)
    assert cli(capsys, "generate", str(config))[0] == 0
    code, result = cli(capsys, "grade", str(config))
    by_slug = {c["slug"]: c for c in result["conditions"]}
    assert code == 0 and by_slug["j_r"]["parse_failures"] == by_slug["j_r"]["rows"] == 4
    assert (
        by_slug["scorer_numeric"]["parse_failures"] == 0
        and result["totals"]["parse_failures"] == 4
    )
    stored = grades_table(tmp_path)
    assert int((~stored["parse_ok"]).sum()) == 4


def test_a_condition_run_keeps_each_error_message_once_with_its_count():
    from itemeval.outcomes import ConditionRun

    run = ConditionRun("c", "c")
    for error in [
        "RateLimitError: slow down\ntraceback...",
        "RateLimitError: slow down",
        "Timeout",
        None,
    ]:
        run.add(
            {
                "error": error,
                "cache_hit": False,
                "usd": 0.0,
                "parse_ok": None if error else True,
            }
        )
    assert (
        run.error_messages == {"RateLimitError: slow down": 2, "Timeout": 1}
        and run.errors == 3
    )


# ---- verifiable grading: rows in few writes, plan positions, the frozen heap
# ------------------------------


def _grade_table(grade_id: str, parse_ok: list[bool]):
    import pyarrow as pa

    return pa.table(
        {"grade_condition_id": [grade_id] * len(parse_ok), "parse_ok": parse_ok}
    )


@pytest.mark.parametrize(
    ("sizes", "limit", "writes"),
    [
        ([3], 5, [3]),  # less than a batch: written at the end
        ([2, 2, 2], 5, [6]),  # crosses the limit on the third table
        ([5, 1], 5, [5, 1]),  # reaches it exactly, then a remainder
        ([7, 7, 1], 5, [7, 7, 1]),  # a table bigger than a batch is written as it is
        ([], 5, []),  # nothing scored: nothing written
    ],
)
def test_grade_rows_are_written_in_batches_and_counted_once_written(
    sizes, limit, writes, monkeypatch
):
    from itemeval.outcomes import ConditionRun
    from itemeval.stages.grade import verifiable as grade

    monkeypatch.setattr(grade, "_WRITE_ROWS", limit)
    seen: list[int] = []
    summaries = {"a": ConditionRun("a", "a"), "b": ConditionRun("b", "b")}
    batches = grade.Batches(lambda table: seen.append(table.num_rows), summaries)
    for index, size in enumerate(sizes):
        batches.add(
            "ab"[index % 2], _grade_table("ab"[index % 2], [index % 2 == 0] * size)
        )
    batches.flush()
    assert seen == writes
    assert summaries["a"].rows == sum(sizes[0::2]) and summaries["b"].rows == sum(
        sizes[1::2]
    )
    assert summaries["a"].parse_failures == 0 and summaries["b"].parse_failures == sum(
        sizes[1::2]
    )


def test_rows_whose_write_failed_are_not_counted(monkeypatch):
    from itemeval.outcomes import ConditionRun
    from itemeval.stages.grade import verifiable as grade

    def refuse(table):
        raise OSError("disk full")

    monkeypatch.setattr(grade, "_WRITE_ROWS", 2)
    summaries = {"a": ConditionRun("a", "a")}
    batches = grade.Batches(refuse, summaries)
    with pytest.raises(OSError, match="disk full"):
        batches.add("a", _grade_table("a", [True, False, True]))
    assert summaries["a"].rows == 0 and summaries["a"].parse_failures == 0


def test_pending_groups_give_each_generate_conditions_rows_by_scorer_in_plan_order():
    from itemeval.stages.grade.verifiable import pending_groups as _pending_groups

    todo = pd.DataFrame(
        {
            "grade_condition_id": ["s1", "s1", "s1", "s2", "s2", "judge", "s1"],
            "gen_condition_id": ["g1", "g2", "g1", "g1", "g2", "g1", "g2"],
            "item_id": ["a", "a", "b", "a", "a", "a", "b"],
        }
    )
    groups = _pending_groups(
        todo, {"s1": None, "s2": None}
    )  # the judge's rows are not the scorers' to grade
    assert list(groups) == ["g1", "g2"]
    assert [(grade_id, list(positions)) for grade_id, positions in groups["g1"]] == [
        ("s1", [0, 2]),
        ("s2", [3]),
    ]
    assert [(grade_id, list(positions)) for grade_id, positions in groups["g2"]] == [
        ("s1", [1, 6]),
        ("s2", [4]),
    ]
    assert _pending_groups(todo.iloc[0:0], {"s1": None}) == {}
    assert _pending_groups(todo, {"other": None}) == {}


def test_several_scorers_over_several_conditions_grade_every_solution_once_in_one_write(
    tmp_path, capsys
):
    config = write_study(
        tmp_path,
        base_config(
            **{
                "cache": False,
                "solvers__models": ["itemeval/arith-good", "itemeval/arith-50"],
                "facets__scorer": ["numeric", "match", "includes", "f1"],
            }
        ),
    )
    assert cli(capsys, "generate", str(config))[0] == 0
    code, result = cli(capsys, "grade", str(config))
    assert code == 0
    stored = grades_table(tmp_path)
    assert len(stored) == 4 * 2 * len(ARITH)
    assert not stored.duplicated(
        ["grade_condition_id", "gen_condition_id", "item_id", "epoch"]
    ).any()
    for condition in result["conditions"]:
        mine = stored[stored["grade_condition_id"] == condition["condition_id"]]
        assert condition["rows"] == condition["planned"] == len(mine) == 2 * len(ARITH)
        assert condition["parse_failures"] == int((~mine["parse_ok"]).sum())
    versions = tmp_path / "studies" / "t" / ".grades.versions"
    commits = [p for p in versions.iterdir() if p.name.startswith("v")]
    assert len(commits) == 1  # 32 rows from 8 scorer × condition pairs: one commit


def test_a_grade_keeps_the_heap_it_started_with_out_of_collections_and_lets_it_go_after(
    tmp_path, capsys, monkeypatch
):
    import gc

    from itemeval.stages.grade import stage as grade

    seen: list[int] = []
    real = grade.grade_verifiable

    def spy(*args, **kwargs):
        seen.append(gc.get_freeze_count())
        return real(*args, **kwargs)

    monkeypatch.setattr(grade, "grade_verifiable", spy)
    config = write_study(tmp_path, base_config(cache=False))
    assert cli(capsys, "generate", str(config))[0] == 0
    assert gc.get_freeze_count() == 0
    assert cli(capsys, "grade", str(config))[0] == 0
    assert (
        len(seen) == 1 and seen[0] > 1000
    )  # the modules and the study were frozen while it graded
    assert gc.get_freeze_count() == 0

    gc.freeze()  # someone else's freeze is theirs to undo
    try:
        assert cli(capsys, "grade", str(config), "--force")[0] == 0
        assert (
            gc.get_freeze_count() > 0
        )  # not unfrozen by the grade (freed objects do leave the count)
    finally:
        gc.unfreeze()


def test_no_command_of_a_judged_study_prints_inspects_hooks_banner(tmp_path):
    """inspect-ai's first model prints "hooks enabled: 1 …" to the process's stdout;
    itemeval loads the hooks quietly (inspect_tasks.quiet_banner). Subprocesses:
    the banner goes to the real stdout, which capsys would not see."""
    config = base_config(
        **{
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(tmp_path, config)
    for command in ("generate", "grade", "results", "report"):
        confirm = ["--yes"] if command in ("generate", "grade") else []
        proc = subprocess.run(
            [sys.executable, "-m", "itemeval", command, str(path), *confirm],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
        assert proc.returncode == 0, (command, proc.stderr)
        output = proc.stdout + proc.stderr
        assert output.strip() and "hooks enabled" not in output, (command, output)


# ---- draws: a judge's independent samples of each answer
# -------------------------------------------------------------------------


def drawing_study(root: Path, draws: int) -> Path:
    """A study whose judge is the local server (every call counted there), with the
    response cache on: a later draw must still reach the server."""
    judge = {"model": "openai-api/local/judge", "max_tokens": 256, "max_retries": 0}
    return make_study(root, cache=True, graders={"j": {**judge, "draws": draws}})


def judge_calls(server: OpenAIServer) -> list[dict[str, Any]]:
    return [b for b in server.requests if "## How to reply" in server._last_user(b)]


def judged(root: Path) -> pd.DataFrame:
    grades = grades_table(root)
    return grades[grades["grade_kind"] == "judge"]


def test_k_draws_cost_k_different_requests_per_answer_and_rerun_asks_none(
    tmp_path, capsys, server
):
    config = drawing_study(tmp_path, draws=3)
    assert cli(capsys, "generate", str(config))[0] == 0
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result)["j_r"] == 12

    calls = judge_calls(server)
    assert len(calls) == 12  # 4 answers × 3 draws
    by_answer: dict[str, list[str]] = {}
    for body in calls:
        by_answer.setdefault(server._last_user(body), []).append(
            json.dumps(body, sort_keys=True)
        )
    assert len(by_answer) == 4
    # three requests per answer, no two of them the same bytes: a provider's own
    # cache of identical requests cannot answer one draw with another
    assert all(len(set(bodies)) == 3 for bodies in by_answer.values())
    seeds = sorted(json.loads(b).get("seed") or 1 for b in by_answer.popitem()[1])
    assert seeds == [1, 2, 3]

    rows = judged(tmp_path)
    assert len(rows) == 12 and rows["score"].notna().all()
    per_answer = rows.groupby(["gen_condition_id", "item_id", "epoch"])["draw"]
    assert all(sorted(draws) == [1, 2, 3] for _, draws in per_answer)
    assert rows["grade_condition_id"].nunique() == 1

    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result)["j_r"] == 0
    assert len(judge_calls(server)) == 12
    # each draw is in the cache under its own key, and the estimate finds it there
    estimate = cli(capsys, "estimate", str(config), "--stage", "grade", "--force")[1]
    line = next(
        x for x in estimate["conditions"] if (x["stage"], x["slug"]) == ("grade", "j_r")
    )
    assert (line["calls"], line["cached"]) == (12, 12)
    code, result = cli(capsys, "grade", str(config), "--force")
    assert code == 0 and planned(result)["j_r"] == 12
    assert len(judge_calls(server)) == 12  # all 12 answered by the cache
    status = cli(capsys, "status", str(config))[1]
    row = next(r for r in status["grade"] if r["slug"] == "j_r")
    assert (row["solutions"], row["done"], row["draws"]) == (12, 12, 3)


def test_raising_draws_asks_only_the_new_ones_under_the_same_id(
    tmp_path, capsys, server
):
    config = drawing_study(tmp_path, draws=1)
    assert cli(capsys, "generate", str(config))[0] == 0
    assert cli(capsys, "grade", str(config))[0] == 0
    assert len(judge_calls(server)) == 4
    first = judged(tmp_path)
    assert set(first["draw"]) == {1}

    edit_config(config, graders__j__draws=3)
    estimate = cli(capsys, "estimate", str(config))[1]
    line = next(
        x for x in estimate["conditions"] if (x["stage"], x["slug"]) == ("grade", "j_r")
    )
    assert line["calls"] == 8
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result)["j_r"] == 8
    assert len(judge_calls(server)) == 12  # 2 new draws × 4 answers, cache on
    rows = judged(tmp_path)
    assert len(rows) == 12
    assert set(rows["grade_condition_id"]) == set(first["grade_condition_id"])
    kept = rows[rows["draw"] == 1].sort_values("item_id")["run_id"].tolist()
    assert kept == first.sort_values("item_id")["run_id"].tolist()


def test_a_grades_store_from_before_draws_reads_as_draw_1_and_is_not_regraded(
    tmp_path, capsys, server, monkeypatch
):
    from itemeval.paths import StudyPaths
    from itemeval.store import read_store, upsert
    from itemeval.store.schemas import STORES

    config = drawing_study(tmp_path, draws=1)
    assert cli(capsys, "generate", str(config))[0] == 0
    assert cli(capsys, "grade", str(config))[0] == 0
    study = tmp_path / "studies" / "t"
    rows = read_store(StudyPaths(study), "grades").drop_columns(["draw"])
    for path in sorted(study.glob("grades.parquet*")):
        subprocess.run(["rm", "-rf", str(path)], check=True)
    # written as an itemeval from before draws wrote it: no draw column at all
    schema, key = STORES["grades"]
    older = schema.remove(schema.get_field_index("draw"))
    with monkeypatch.context() as patch:
        patch.setitem(STORES, "grades", (older, tuple(k for k in key if k != "draw")))
        upsert(StudyPaths(study), "grades", rows)
    assert "draw" not in pd.read_parquet(study / "grades.parquet").columns
    before = tree_digest(study / "grades.parquet")

    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result)["j_r"] == 0
    assert len(judge_calls(server)) == 4
    assert tree_digest(study / "grades.parquet") == before  # nothing rewritten

    edit_config(config, graders__j__draws=2)
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result)["j_r"] == 4
    assert len(judge_calls(server)) == 8
    where = {"grade_kind": ["judge"]}
    draws = read_store(StudyPaths(study), "grades", ["draw"], where=where)["draw"]
    assert sorted(draws.to_pylist()) == [1] * 4 + [2] * 4


class SplitJudge(StudyServer):
    """A judge that gives 0 to the draw sent with seed 2, 1 to every other: three
    draws of an answer score 1, 0, 1."""

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        reply = super()._completion(body)
        if "## How to reply" in self._last_user(body) and body.get("seed") == 2:
            reply["choices"][0]["message"]["content"] = (
                '```json\n{"score": 0, "reasoning": "second thoughts"}\n```'
            )
        return reply


@pytest.mark.parametrize(
    "draws, expected", [("mean", 2 / 3), ("majority", 1.0), ("median", 1.0)]
)
def test_results_reduce_each_answers_draws_first(
    tmp_path, capsys, monkeypatch, draws, expected
):
    from inspect_ai.model import _model

    with SplitJudge() as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        config = drawing_study(tmp_path, draws=3)
        assert cli(capsys, "generate", str(config))[0] == 0
        assert cli(capsys, "grade", str(config))[0] == 0
    _model._models.clear()
    code, report = cli(capsys, "results", str(config), "--draws", draws)
    assert code == 0
    slugs = report["slugs"]
    cell = next(c for c in report["cells"] if slugs[c["grade_condition_id"]] == "j_r")
    # one grade per answer, whatever the draws: 4 items, 4 grades
    assert (cell["items"], cell["grades"]) == (4, 4)
    assert cell["mean"] == pytest.approx(expected)


def test_shards_split_the_draws_and_a_rerun_shard_asks_none_of_its_journaled_ones(
    tmp_path, capsys, server
):
    config = drawing_study(tmp_path, draws=3)
    assert cli(capsys, "generate", str(config))[0] == 0
    planned_by_shard = []
    for shard in ("0/2", "1/2"):
        code, result = cli(capsys, "grade", str(config), "--shard", shard, "--yes")
        assert code == 0
        planned_by_shard.append(planned(result)["j_r"])
    assert sum(planned_by_shard) == 12 and all(planned_by_shard)
    assert len(judge_calls(server)) == 12
    # before the commit: the shard's journal holds its draws, so it asks none again
    code, result = cli(capsys, "grade", str(config), "--shard", "0/2", "--yes")
    assert code == 0 and planned(result)["j_r"] == 0
    assert main(["commit", str(config), "--json"]) == 0
    capsys.readouterr()
    assert len(judged(tmp_path)) == 12
    code, result = cli(capsys, "grade", str(config))
    assert code == 0 and planned(result)["j_r"] == 0
    assert len(judge_calls(server)) == 12
