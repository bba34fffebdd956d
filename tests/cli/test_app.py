"""The command line as a new user meets it: help, init, status, JSON output, exit
codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from itemeval.cli import app, main
from tests.conftest import REPO
from tests.helpers import REPO, base_config, write_study

COMMANDS = sorted(
    command.name or command.callback.__name__ for command in app.registered_commands
)


def test_every_command_has_help_with_an_example(capsys):
    assert set(COMMANDS) == {
        "init",
        "status",
        "estimate",
        "generate",
        "grade",
        "export",
        "results",
        "report",
        "show",
        "commit",
        "launch",
        "view",
        "labels",
        "import",
        "plan",
        "preregister",
        "batches",
        "schema",
    }
    for name in COMMANDS:
        assert main([name, "--help"]) == 0
        out = capsys.readouterr().out
        assert "Example:" in out, name


def test_root_help_lists_the_commands_in_the_order_a_user_meets_them(capsys):
    from itemeval.cli import COMMANDS as ORDER

    assert set(ORDER) == set(COMMANDS)  # the command modules' import order is not it
    assert main(["--help"]) == 0
    lines = capsys.readouterr().out.split("Commands:", 1)[1].splitlines()
    listed = [line.split()[0] for line in lines if line.startswith("  ")]
    assert listed == list(ORDER)
    assert listed[:4] == ["init", "status", "batches", "estimate"]


def test_help_is_instant_and_does_not_import_inspect():
    code = (
        "import sys; from itemeval.cli import main; "
        f"[main([c, '--help']) for c in {COMMANDS!r}]; main(['--help']); "
        "print('HEAVY', sorted(m for m in ('inspect_ai', 'pandas', 'pyarrow') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "HEAVY []" in out


def test_init_scaffolds_a_study_that_status_can_read(tmp_path, capsys):
    assert main(["init", "fresh"]) == 0
    for name in (
        "config.yaml",
        "prompts/answer_first.md",
        "rubrics/correctness.md",
        "data/questions.jsonl",
    ):
        assert (tmp_path / "fresh" / name).is_file(), name
    capsys.readouterr()
    assert main(["status", "fresh/config.yaml", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["study"] == "fresh" and data["items"] == 8
    assert len(data["generate"]) == 4 and all(
        row["done"] == 0 and row["cells"] == 16 for row in data["generate"]
    )
    assert [row["kind"] for row in data["grade"]] == ["judge", "verifiable"]


def test_init_refuses_to_overwrite_without_force(tmp_path, capsys):
    assert main(["init", "s"]) == 0
    (tmp_path / "s" / "config.yaml").write_text("edited")
    assert main(["init", "s"]) == 2
    assert "--force" in capsys.readouterr().err
    assert (tmp_path / "s" / "config.yaml").read_text() == "edited"
    assert main(["init", "s", "--force"]) == 0
    assert "study: s" in (tmp_path / "s" / "config.yaml").read_text()


def test_status_json_is_one_document_with_ids_and_counts(tmp_path, capsys):
    config = base_config(
        facets__prompt=["p", "builtin:minimal"],
        facets__replications=3,
        facets__grader=["j"],
        graders={"j": {"model": "itemeval/judge"}},
        facets__rubric=["r"],
    )
    path = write_study(tmp_path, config)
    assert main(["status", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert [row["slug"] for row in data["generate"]] == [
        "arith-good_p_default",
        "arith-good_builtin-minimal_default",
    ]
    assert {row["cells"] for row in data["generate"]} == {12}
    assert data["generate"][0]["condition_id"].startswith("arith-good_p_default--")
    assert data["generate"][0]["params"] == {"temperature": 0.5, "max_tokens": 256}
    judge, scorer = data["grade"]
    assert (judge["slug"], judge["grader_model"], judge["rubric"]) == (
        "j_r",
        "itemeval/judge",
        "r",
    )
    assert (scorer["slug"], scorer["scorer"]) == ("scorer_numeric", "numeric")
    assert not (tmp_path / "studies").exists()  # status never writes


def test_status_table_names_conditions(tmp_path, capsys):
    path = write_study(tmp_path)
    assert main(["status", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "arith-good_p_default" in out and "scorer_numeric" in out and "--" not in out
    )  # slugs; ids on demand
    assert main(["status", str(path), "--ids"]) == 0
    out = capsys.readouterr().out
    assert "arith-good_p_default--" in out and "scorer_numeric--" in out


def test_unknown_placeholder_warns_on_stderr(tmp_path, capsys):
    path = write_study(tmp_path, prompt="{input} {topic}")
    assert main(["status", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert "{topic}" in captured.err
    json.loads(captured.out)


def test_usage_error_exits_2(capsys):
    assert main(["status"]) == 2
    assert main(["frobnicate"]) == 2


@pytest.mark.parametrize("config", ["configs/demo.yaml"])
def test_repo_demo_config_loads(config, capsys, tmp_path):
    assert (
        main(["status", str(REPO / config), "-C", str(tmp_path / "x"), "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert (
        data["study"] == "demo"
        and len(data["generate"]) == 8
        and len(data["grade"]) == 3  # a judge over two rubrics, numeric
    )


def test_version_prints_itemevals_and_inspects_versions_and_the_tested_range(capsys):
    from importlib.metadata import version

    from itemeval import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"itemeval {__version__}",
        f"inspect-ai {version('inspect-ai')} (tested on 0.3.260 to 0.3.285; "
        "requires inspect-ai>=0.3.260,<0.4)",
    ]


def test_the_program_is_main_then_its_heap_left_to_the_exit(monkeypatch):
    import gc

    from itemeval import cli

    monkeypatch.setattr(cli, "main", lambda: 3)
    assert gc.get_freeze_count() == 0
    try:
        assert cli.run() == 3
        # the interpreter's shutdown then skips full collections over them
        assert gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()
    script = 'itemeval = "itemeval.cli:run"'
    assert script in (REPO / "pyproject.toml").read_text(encoding="utf-8")


def test_python_dash_m_itemeval_is_the_same_cli(tmp_path):
    path = write_study(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "itemeval", "status", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["study"] == "t"
    bad = subprocess.run(
        [sys.executable, "-m", "itemeval", "status", "missing.yaml"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert bad.returncode == 2 and "missing.yaml" in bad.stderr


def test_init_takes_base_dir_and_json(tmp_path, capsys):
    (tmp_path / "base").mkdir()
    assert main(["init", "s", "-C", str(tmp_path / "base"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["directory"] == str(tmp_path / "base" / "s")
    assert sorted(data["written"]) == sorted(
        str(p) for p in (tmp_path / "base" / "s").rglob("*") if p.is_file()
    )
    assert (tmp_path / "base" / "s" / "config.yaml").is_file() and not (
        tmp_path / "s"
    ).exists()
    assert (
        main(["init", "s", "-C", str(tmp_path / "base"), "--json"]) == 2
    )  # exists: needs --force


def test_output_dir_is_relative_to_the_config_file_whatever_the_working_dir(
    tmp_path, monkeypatch, capsys
):
    path = write_study(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["generate", str(path), "--yes", "--json"]) == 0
    assert (tmp_path / "project" / "studies" / "t" / "solutions.parquet").exists()
    assert not (elsewhere / "studies").exists()
    assert (
        main(["generate", str(path), "-C", str(elsewhere), "--yes", "--json"]) == 0
    )  # -C still overrides
    assert (elsewhere / "studies" / "t" / "solutions.parquet").exists()


@pytest.mark.parametrize(
    ("argv", "code", "kind", "where"),
    [
        (["status", "missing.yaml"], 2, "config", None),
        (["status", "{config}", "--bogus"], 2, "usage", None),
        (["generate", "{config}", "--yes"], 5, "locked", None),
    ],
)
def test_under_json_an_error_is_one_json_document_on_stdout_too(
    tmp_path, capsys, argv, code, kind, where
):
    from itemeval.paths import StudyPaths
    from itemeval.store.lock import study_lock

    path = write_study(tmp_path)
    argv = [arg.replace("{config}", str(path)) for arg in argv]
    with study_lock(
        StudyPaths(tmp_path / "studies" / "t"), "another itemeval generate"
    ):
        assert main([*argv, "--json"]) == code
    captured = capsys.readouterr()
    error = json.loads(captured.out)["error"]
    assert error["exit_code"] == code and error["kind"] == kind and error["message"]
    assert (
        error["message"] in captured.err or kind == "usage"
    )  # the human message is still on stderr


def test_a_json_error_names_the_file_it_is_about(tmp_path, capsys):
    path = write_study(tmp_path)
    path.write_text("study: t\nbenchmark: 3\n")
    assert main(["status", str(path), "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert (
        error["kind"] == "config"
        and error["where"] == str(path)
        and "benchmark" in error["message"]
    )


def test_status_says_when_an_edit_moved_a_condition_to_a_new_id(tmp_path, capsys):
    """Old rows stay under the old id: after the prompt's and the rubric's text
    change, status names each moved condition and counts what stays behind."""
    config = base_config(
        facets__grader=["j"],
        graders={"j": {"model": "itemeval/judge"}},
        facets__rubric=["r"],
    )
    path = write_study(tmp_path, config)
    for command in ("generate", "grade"):
        assert main([command, str(path), "--display", "none", "--yes"]) == 0
    write_study(
        tmp_path,
        config,
        prompt="Question: {input}\nEnd with ANSWER: <n>.",
        rubric="Q: {input}\nRef: {target}\nA: {solution}\nScore 1 if correct.",
    )
    capsys.readouterr()
    assert main(["status", str(path), "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    moved = sorted(n for n in notes if "stay there and never mix" in n)
    assert len(moved) == 2, notes
    generate, grade = moved
    assert generate.startswith("arith-good_p_default: its prompt or settings changed")
    assert "the 4 rows stored under the old id arith-good_p_default--" in generate
    assert grade.startswith("j_r: its rubric, grader, scorer rules or params changed")
    assert "the 4 grades stored under the old id j_r--" in grade
