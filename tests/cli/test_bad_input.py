"""Input that must give a clear error, not a traceback: exit 2, the file and line
named, nothing written."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
import yaml

from itemeval.cli import main
from tests.helpers import base_config, write_study

BAD = b"caf\xe9 \xff"  # Latin-1 bytes, not UTF-8


def _corrupt(root, target: str) -> str:
    """Put non-UTF-8 bytes on line 2 of one of the study's files; returns that file's
    name."""
    if target == "config":
        path = root / "config.yaml"
        path.write_bytes(path.read_bytes().replace(b"\n", b"\n# " + BAD + b"\n", 1))
    elif target == "template":
        path = root / "prompts" / "p.md"
        path.write_bytes(b"Q: {input}\n" + BAD + b"\n")
    elif target == "jsonl":
        path = root / "data" / "arith.jsonl"
        lines = path.read_bytes().split(b"\n")
        path.write_bytes(
            b"\n".join(
                [
                    lines[0],
                    b'{"qid": "x", "question": "' + BAD + b'", "answer": "1"}',
                    *lines[1:],
                ]
            )
        )
    return path.name


@pytest.mark.parametrize("target", ["config", "template", "jsonl"])
@pytest.mark.parametrize("command", ["status", "estimate", "generate"])
def test_non_utf8_bytes_name_the_file_and_line_and_write_nothing(
    tmp_path, capsys, target, command
):
    config = write_study(tmp_path)
    name = _corrupt(tmp_path, target)
    code = main(
        [command, str(config), "--yes"]
        if command == "generate"
        else [command, str(config)]
    )
    err = capsys.readouterr().err
    assert code == 2, err
    assert name in err and "line 2" in err and "UTF-8" in err and "Traceback" not in err
    assert not (tmp_path / "studies").exists()


@pytest.mark.parametrize("rows", ["csv", "json"])
def test_non_utf8_csv_and_json_datasets(tmp_path, capsys, rows):
    config = base_config(**{"benchmark__datasets": [{"id": f"data/arith.{rows}"}]})
    path = write_study(tmp_path, config)
    data = tmp_path / "data" / f"arith.{rows}"
    if rows == "csv":
        data.write_bytes(b"qid,question,answer,difficulty\nq1," + BAD + b",1,easy\n")
    else:
        data.write_bytes(
            json.dumps([{"qid": "q1", "question": "x", "answer": "1"}]).encode()[:-1]
            + b"\n,"
            + BAD
            + b"]"
        )
    assert main(["status", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"arith.{rows}" in err and "line 2" in err and "UTF-8" in err


@pytest.mark.parametrize(
    "prices",
    [None, "{not json", json.dumps({"itemeval/arith-good": {"input_per_mtok": -1}})],
)
def test_a_bad_pricing_file_leaves_no_lock_and_writes_nothing(tmp_path, capsys, prices):
    config = base_config(**{"budget": {"pricing_path": "prices.json"}})
    path = write_study(tmp_path, config)
    if prices is not None:
        (tmp_path / "prices.json").write_text(prices)
    for command in (
        ["generate", str(path), "--yes"],
        ["estimate", str(path)],
        ["grade", str(path), "--yes"],
    ):
        assert main(command) == 2
        assert "prices.json" in capsys.readouterr().err
        assert not (tmp_path / "studies").exists() or not list(
            (tmp_path / "studies").rglob("*")
        ), command
    assert yaml.safe_load(path.read_text())["budget"]["pricing_path"] == "prices.json"


@pytest.mark.parametrize(
    ("models", "graders", "command", "message"),
    [
        (["gpt4"], {}, "status", "'gpt4' is not a model id"),
        (["itemeval/arith-good", "gpt4"], {}, "generate", "solvers.models[1]"),
        (["nosuchprov/model"], {}, "generate", "no provider 'nosuchprov'"),
        (
            ["itemeval/arith-good"],
            {"j": {"model": "judge9"}},
            "status",
            "graders.j.model",
        ),
    ],
)
def test_a_model_no_provider_knows_is_refused_before_anything_is_written(
    tmp_path, capsys, models, graders, command, message
):
    overrides = {"solvers__models": models}
    if graders:
        overrides.update(
            {"graders": graders, "facets__grader": ["j"], "facets__rubric": ["r"]}
        )
    path = write_study(tmp_path, base_config(**overrides))
    code = main([command, str(path), *(["--yes"] if command != "status" else [])])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
    assert not (tmp_path / "studies").exists()


def test_a_launch_refuses_a_model_no_provider_knows_before_any_shard_starts(
    tmp_path, capsys
):
    path = write_study(
        tmp_path, base_config(solvers__models=["itemeval/arith-good", "nosuchprov/m"])
    )
    code = main(["launch", "generate", str(path), "--shards", "2", "--yes"])
    err = capsys.readouterr().err
    assert code == 2 and "no provider 'nosuchprov'" in err, err
    assert not list((tmp_path / "studies").rglob("*.parquet")), err
    assert not list((tmp_path / "studies").rglob("launch")), err


def test_a_judge_no_provider_knows_is_refused_before_any_grade_is_written(
    tmp_path, capsys
):
    """A grade with nothing to do loads no provider (it starts fast); one with
    solutions to grade refuses the unknown judge before writing anything."""
    path = write_study(
        tmp_path,
        base_config(
            graders={"j": {"model": "nosuchprov/judge"}},
            facets__grader=["j"],
            facets__rubric=["r"],
        ),
    )
    assert main(["generate", str(path), "--yes"]) == 0
    capsys.readouterr()
    code = main(["grade", str(path), "--yes"])
    err = capsys.readouterr().err
    assert code == 2 and "no provider 'nosuchprov'" in err, err
    assert not list((tmp_path / "studies").rglob("grades*")), err


@pytest.mark.parametrize("command", ["status", "estimate", "generate", "grade"])
def test_an_unknown_placeholder_is_warned_about_by_every_command(
    tmp_path, capsys, command
):
    path = write_study(
        tmp_path, prompt="Q: {input}\nMind the {unit}.\nEnd with ANSWER: <n>."
    )
    capsys.readouterr()
    main(
        [
            command,
            str(path),
            *(
                ["--yes", "--display", "none"]
                if command in ("generate", "grade")
                else []
            ),
        ]
    )
    err = capsys.readouterr().err
    assert "warning:" in err and "{unit}" in err, err


def test_status_names_the_command_that_is_running(tmp_path, capsys):
    from itemeval.store.lock import study_lock
    from itemeval.study.load import load_study

    path = write_study(tmp_path)
    assert main(["status", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["running"] is None
    with study_lock(load_study(path).paths, "itemeval generate config.yaml"):
        assert main(["status", str(path), "--json"]) == 0
        running = json.loads(capsys.readouterr().out)["running"]
        assert main(["status", str(path)]) == 0
        printed = capsys.readouterr().out
    assert running["command"] == "itemeval generate config.yaml" and running["pid"] > 0
    assert (
        "running now: `itemeval generate config.yaml`" in printed
        and str(running["pid"]) in printed
    )


# Issue 26 case 9: each of these was a traceback (exit 1), or a silent wrong answer.
@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"facets__replications": 10**9}, "facets.replications"),
        ({"solvers__timeout": float("inf")}, "solvers.timeout"),
        ({"solvers__attempt_timeout": float("nan")}, "solvers.attempt_timeout"),
        ({"budget__max_usd": float("inf")}, "budget.max_usd"),
    ],
)
def test_absurd_numbers_in_the_config_exit_2_naming_the_key(
    tmp_path, capsys, overrides, message
):
    path = write_study(tmp_path, base_config(**overrides))
    assert main(["generate", str(path), "--yes"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("batch", [0, -3, "yes", "true", 1.5])
def test_a_batch_size_is_true_false_or_a_whole_number_of_one_or_more(
    tmp_path, capsys, batch
):
    """0 would mean live calls at the full price, -3 a batch per request, and "yes"
    is no boolean: each exit 2 naming budget.batch, with nothing written."""
    path = write_study(tmp_path, base_config(budget__batch=batch))
    assert main(["generate", str(path), "--yes"]) == 2
    err = capsys.readouterr().err
    assert "budget.batch: expected true, false or the requests per batch" in err
    assert f"(got {batch!r})" in err and "Value error" not in err
    assert not (tmp_path / "studies").exists()


@pytest.mark.parametrize("batch", [True, False, 1, 7])
def test_a_batch_size_that_is_true_false_or_a_count_loads(tmp_path, capsys, batch):
    path = write_study(tmp_path, base_config(budget__batch=batch))
    assert main(["estimate", str(path)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
def test_a_cap_on_the_command_line_must_be_a_finite_number(tmp_path, capsys, value):
    path = write_study(tmp_path)
    assert main(["generate", str(path), "--yes", "--max-usd", value]) == 2
    assert "--max-usd" in capsys.readouterr().err
    assert not (tmp_path / "studies").exists()


def test_a_manifest_of_random_bytes_is_named_not_a_traceback(tmp_path, capsys):
    path = write_study(tmp_path)
    assert main(["generate", str(path), "--yes"]) == 0
    bad = tmp_path / "studies" / "t" / "manifests" / "zz.json"
    bad.write_bytes(bytes(range(256)) * 8)
    capsys.readouterr()
    assert main(["generate", str(path), "--yes", "--force"]) == 2
    assert str(bad) in " ".join(capsys.readouterr().err.split())


def test_a_lock_that_is_a_directory_or_a_study_dir_in_proc_exit_2(tmp_path, capsys):
    path = write_study(tmp_path)
    (tmp_path / "studies" / "t" / ".lock").mkdir(parents=True)
    assert main(["generate", str(path), "--yes"]) == 2
    assert ".lock" in capsys.readouterr().err
    assert main(["status", str(path)]) == 0  # read-only commands still work
    (tmp_path / "studies" / "t" / ".lock").rmdir()
    (tmp_path / "studies" / "t").rmdir()
    (tmp_path / "studies" / "t").symlink_to("/proc")
    capsys.readouterr()
    assert main(["generate", str(path), "--yes"]) == 2
    assert "/proc" in capsys.readouterr().err


def test_limit_0_leaves_no_study_directory_and_no_lock(tmp_path, capsys):
    path = write_study(tmp_path)
    assert main(["generate", str(path), "--yes", "--limit", "0"]) == 0
    assert not (tmp_path / "studies" / "t").exists()


def test_a_null_id_in_a_parquet_dataset_is_refused_naming_the_row(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    config = base_config(benchmark__datasets=[{"id": "data/rows.parquet"}])
    path = write_study(tmp_path, config)
    table = pa.table(
        {
            "qid": ["a", None, "c"],
            "question": ["1 + 1?", "2 + 2?", "3 + 3?"],
            "answer": ["2", "4", "6"],
            "difficulty": ["e", "e", "e"],
        }
    )
    pq.write_table(table, tmp_path / "data" / "rows.parquet")
    assert main(["status", str(path)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "row 2" in err and "'qid'" in err


def test_a_csv_with_a_utf8_byte_order_mark_reads_its_first_column(tmp_path, capsys):
    config = base_config(benchmark__datasets=[{"id": "data/rows.csv"}])
    path = write_study(tmp_path, config)
    (tmp_path / "data" / "rows.csv").write_bytes(
        "\ufeffqid,question,answer,difficulty\nq1,1 + 1?,2,e\nq2,2 + 2?,4,e\n".encode()
    )
    assert main(["generate", str(path), "--yes", "--json"]) == 0, capsys.readouterr()
    items = pd.read_parquet(tmp_path / "studies" / "t" / "items.parquet")
    assert sorted(items["item_id"]) == ["q1", "q2"]


def test_a_csv_or_report_path_that_cannot_be_written_is_named_not_a_traceback(
    tmp_path, capsys
):
    path = write_study(tmp_path)
    assert main(["generate", str(path), "--yes", "--display", "none"]) == 0
    assert main(["grade", str(path), "--yes", "--display", "none"]) == 0
    capsys.readouterr()
    assert main(["results", str(path), "--csv", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"--csv {tmp_path}: that is a directory" in err and "Traceback" not in err
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["results", str(path), "--csv", str(blocker / "cells.csv")]) == 2
    assert "cannot write it" in capsys.readouterr().err
    made = tmp_path / "new" / "cells.csv"  # a folder that is missing is made
    assert main(["results", str(path), "--csv", str(made)]) == 0
    assert made.read_text().startswith("gen_condition_id,")
    capsys.readouterr()
    assert main(["report", str(path), "--out", str(tmp_path), "--json"]) == 2
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert "--out" in message and "directory" in message


def test_a_report_in_a_study_dir_that_cannot_be_made_is_a_message(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    path = write_study(tmp_path, base_config(output_dir=str(blocker / "studies")))
    capsys.readouterr()
    code = main(["report", str(path), "--json"])
    out = capsys.readouterr().out
    assert code == 1 and "Traceback" not in out
    error = json.loads(out)["error"]
    assert "cannot write the report in" in error["message"]


def test_a_cap_warning_is_shown_once_and_kept_in_the_json(tmp_path, capsys):
    path = write_study(tmp_path)
    capsys.readouterr()
    assert main(["generate", str(path), "--yes", "--max-usd", "0.000001"]) == 4
    err = capsys.readouterr().err
    assert err.count("exceeds max_usd") == 1, err
    shutil.rmtree(tmp_path / "studies", ignore_errors=True)
    code = main(["generate", str(path), "--yes", "--max-usd", "0.000001", "--json"])
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert code == 4 and any("exceeds max_usd" in note for note in notes)


def test_an_unknown_rubric_for_grade_names_the_study_s_rubrics(tmp_path, capsys):
    config = base_config(
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "itemeval/judge"}},
    )
    path = write_study(tmp_path, config)
    capsys.readouterr()
    assert main(["grade", str(path), "--rubric", "nosuch", "--yes"]) == 2
    err = capsys.readouterr().err
    assert "no judge condition matches --rubric nosuch" in err
    assert "the study's graders: j; its rubrics: r" in err and "[" not in err


def test_a_prompt_that_is_a_directory_says_so(tmp_path, capsys):
    path = write_study(tmp_path)
    (tmp_path / "prompts" / "p.md").unlink()
    (tmp_path / "prompts" / "p.md").mkdir()
    assert main(["status", str(path)]) == 2
    err = capsys.readouterr().err
    assert "prompts/p.md is a directory; a prompt is a Markdown file" in err
