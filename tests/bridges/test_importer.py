"""`itemeval import`: inspect logs as imported conditions, graded and compared."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from inspect_ai import eval as inspect_eval

from itemeval.cli import main
from itemeval.study.imported import newest_rows
from tests.inspect_task_arith import arith
from tests.openai_server import OpenAIServer

MODELS = ["itemeval/arith-good", "itemeval/arith-weak"]


class JudgeServer(OpenAIServer):
    """A judge: 1 when the reference's number appears in the graded answer, else 0."""

    def _completion(self, body: dict) -> dict:
        reply = super()._completion(body)
        prompt = self._last_user(body)
        reference = re.search(r"Ref: \D*(\d+)", prompt).group(1)
        answer = prompt.split("\nA: ", 1)[1].split("Score 1 if right")[0]
        score = int(reference in answer)
        verdict = json.dumps({"score": score, "reasoning": "compared"})
        reply["choices"][0]["message"]["content"] = f"```json\n{verdict}\n```"
        return reply


def write_config(root: Path, **extra) -> Path:
    (root / "prompts").mkdir(parents=True, exist_ok=True)
    (root / "prompts" / "p.md").write_text("{input}")
    (root / "rubrics").mkdir(exist_ok=True)
    (root / "rubrics" / "r.md").write_text(
        "Q: {input}\nRef: {target}\nA: {solution}\nScore 1 if right."
    )
    benchmark = {"adapter": "inspect", "task": "tests.inspect_task_arith:arith"}
    config = {
        "study": "t",
        "benchmark": {**benchmark, **extra},
        "solvers": {"models": ["itemeval/arith-good"], "temperature": 0.0},
        "facets": {"prompt": ["p"], "scorer": ["task_scorer"], "rubric": ["r"]},
        "budget": {"confirm_above_usd": None},
    }
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def run(capsys, *args: str) -> dict:
    # what came before (the first inspect eval of a process prints inspect's hooks
    # banner, as plain_eval's may) is not the command's
    capsys.readouterr()
    code = main([*args, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def plain_eval(log_dir: Path, model: str) -> str:
    """A plain inspect run of the test task, as a user would have made it."""
    (log,) = inspect_eval(arith(), model=model, log_dir=str(log_dir), display="none")
    return log.location


def test_two_logs_import_grade_and_compare(tmp_path, capsys, monkeypatch):
    logs = [plain_eval(tmp_path / "logs", model) for model in MODELS]
    path = write_config(tmp_path)
    imported = run(capsys, "import", str(path), str(tmp_path / "logs"))
    assert imported["rows_written"] == 8 and imported["unmatched"] == []
    manifest = json.loads(Path(imported["manifest"]).read_text())
    assert manifest["stage"] == "import" and manifest["outcome"] == "completed"
    assert len(manifest["selected"]["generate"]) == 2
    conditions = {c["model"]: c for c in imported["conditions"]}
    assert set(conditions) == set(MODELS)
    assert conditions["itemeval/arith-good"]["slug"] == "arith-good_arith_imported"
    store = tmp_path / "studies/t/solutions.parquet"
    rows = pd.read_parquet(store)
    assert len(rows) == 8 and rows["error"].isna().all()
    assert set(rows["log_file"]) == set(logs)
    assert rows["sample_uuid"].notna().all() and rows["usd"].gt(0).all()
    assert rows["output_tokens"].gt(0).all() and set(rows["stop_reason"]) == {"stop"}
    assert set(rows["prompt_name"]) == {"imported:arith"}

    # the task's own scorer over imported answers = the verdicts inspect logged
    run(capsys, "grade", str(path))
    grades = pd.read_parquet(tmp_path / "studies/t/grades.parquet")
    ours = {(g.gen_condition_id, g.item_id): g.score_raw for g in grades.itertuples()}
    from inspect_ai.log import read_eval_log

    for file in logs:
        log = read_eval_log(file)
        cid = conditions[log.eval.model]["condition_id"]
        for sample in log.samples:
            assert ours[(cid, sample.id)] == sample.scores["match"].value

    # re-import: nothing new; generate never runs an imported condition
    again = run(capsys, "import", str(path), *logs)
    assert again["rows_written"] == 0 and again["unchanged"] == 8
    assert len(pd.read_parquet(store)) == 8
    generated = run(capsys, "generate", str(path))
    ran = {c["condition_id"] for c in generated["conditions"]}
    assert not ran & {c["condition_id"] for c in conditions.values()}

    # a new judge grades the imported answers: every request at the server is a judge's
    with JudgeServer() as server:
        for key, value in server.env().items():
            monkeypatch.setenv(key, value)
        config = yaml.safe_load(path.read_text())
        config["graders"] = {"j": {"model": "openai-api/local/judge"}}
        config["facets"]["grader"] = ["j"]
        path.write_text(yaml.safe_dump(config))
        judged = run(capsys, "grade", str(path), "--grader", "j")
        judge_rows = sum(c["rows"] for c in judged["conditions"])
        assert judge_rows == 12  # 8 imported + 4 generated answers
        judge = pd.read_parquet(tmp_path / "studies/t/grades.parquet")
        assert judge.loc[judge["grade_kind"] == "judge", "parse_ok"].all()
        assert len(server.requests) == judge_rows
        assert all("Score 1 if right" in json.dumps(r) for r in server.requests)

    a, b = (conditions[m]["condition_id"] for m in MODELS)
    results = run(capsys, "results", str(path), "--compare", a, b)
    compared = [c for c in results["comparisons"] if {c["a"], c["b"]} == {a, b}]
    assert len(compared) == 2 and all(c["n"] == 4 for c in compared)
    assert all(c["ci_low"] <= c["diff"] <= c["ci_high"] for c in compared)


def test_unmatched_samples_are_reported_and_newer_log_upserts(tmp_path, capsys):
    first = plain_eval(tmp_path / "logs", MODELS[0])
    path = write_config(tmp_path, limit=3)
    out = run(capsys, "import", str(path), first)
    assert out["rows_written"] == 3
    assert out["unmatched"] == [{"log": first, "sample_ids": ["a4"]}]
    second = plain_eval(tmp_path / "logs2", MODELS[0])
    out = run(capsys, "import", str(path), second)
    assert out["rows_written"] == 3 and len(out["conditions"]) == 1
    rows = pd.read_parquet(tmp_path / "studies/t/solutions.parquet")
    assert len(rows) == 3 and set(rows["log_file"]) == {second}
    # the older log again: the newer answers stay
    out = run(capsys, "import", str(path), first)
    assert out["rows_written"] == 0
    assert main(["import", str(path), str(tmp_path / "nothing-here")]) == 2


def row(uuid: str, when: str, error: str | None = None) -> dict:
    return {
        "condition_id": "c",
        "item_id": "i",
        "epoch": 1,
        "sample_uuid": uuid,
        "created_at": when,
        "error": error,
    }


@pytest.mark.parametrize(
    "incoming, stored, written",
    [
        ([row("u1", "2026-01-01T00:00:00+00:00")], {}, ["u1"]),
        (
            [row("u1", "2026-01-01T00:00:00+00:00")],
            {"k": row("u1", "2026-01-01T00:00:00+00:00")},
            [],
        ),
        (
            [row("u2", "2026-02-01T00:00:00+00:00")],
            {"k": row("u1", "2026-01-01T00:00:00+00:00")},
            ["u2"],
        ),
        (
            [row("u0", "2025-12-01T00:00:00+00:00")],
            {"k": row("u1", "2026-01-01T00:00:00+00:00")},
            [],
        ),
        (
            [row("u2", "2026-02-01T00:00:00+00:00", "boom")],
            {"k": row("u1", "2026-01-01T00:00:00+00:00")},
            [],
        ),
        (
            [row("u2", "2025-02-01T00:00:00+00:00")],
            {"k": row("u1", "2026-01-01T00:00:00+00:00", "boom")},
            ["u2"],
        ),
        (
            [
                row("u1", "2026-01-01T00:00:00+00:00"),
                row("u2", "2026-03-01T00:00:00+00:00"),
            ],
            {},
            ["u2"],
        ),
    ],
)
def test_newest_rows(incoming, stored, written):
    keyed = {("c", "i", 1): value for value in stored.values()}
    fresh, _ = newest_rows(incoming, keyed)
    assert [r["sample_uuid"] for r in fresh] == written
