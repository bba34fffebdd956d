"""What a researcher's first week tripped on (issue 48), each through the CLI as a new
user meets it: the wrong order of commands, a misspelled offline model, word problems
the offline models cannot read, estimates before any reply, 80 columns, and the
smaller messages."""

from __future__ import annotations

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.plan.observed import ObservedLengths
from tests.helpers import base_config, cli_json, write_study

QUIET = ["--yes", "--display", "none"]


@pytest.fixture
def fresh(tmp_path):
    return write_study(tmp_path, base_config(facets__replications=1))


def test_grade_before_generate_says_to_generate_first(fresh, capsys):
    code = main(["grade", str(fresh), *QUIET])
    err = capsys.readouterr().err
    assert code == 0
    assert "nothing to grade yet" in err and "itemeval generate" in err
    assert "already done" not in err


def test_results_and_export_before_any_run_say_what_to_run(fresh, capsys):
    assert main(["results", str(fresh)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("nothing generated yet: run `itemeval")
    code, data, _ = cli_json(capsys, "results", str(fresh), "--json")
    assert data["notes"][0].startswith("nothing generated yet")
    assert main(["generate", str(fresh), *QUIET]) == 0
    code, data, _ = cli_json(capsys, "results", str(fresh), "--json")
    assert data["notes"][0].startswith("nothing graded yet: run `itemeval grade")
    capsys.readouterr()
    assert main(["export", str(fresh)]) == 0
    assert "nothing graded yet" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("model", "hint"),
    [
        ("itemeval/arith-fiar", "did you mean itemeval/arith-fair?"),
        ("itemeval/jugde", "did you mean itemeval/judge?"),
        ("itemeval/gpt-4", ""),
    ],
)
def test_a_misspelled_offline_model_is_a_config_error(tmp_path, capsys, model, hint):
    config = write_study(tmp_path, base_config(solvers__models=[model]))
    assert main(["status", str(config)]) == 2
    err = capsys.readouterr().err
    assert f"solvers.models[0]: unknown offline model '{model}'" in err
    assert hint in err and "arith-NN" in err


@pytest.mark.parametrize("model", ["itemeval/arith-80", "itemeval/judge-strict"])
def test_the_offline_models_by_pattern_still_load(tmp_path, model):
    config = write_study(tmp_path, base_config(solvers__models=[model]))
    assert main(["status", str(config)]) == 0


def test_word_problems_the_offline_models_cannot_read_are_warned_of(tmp_path, capsys):
    colours = ("red", "green", "yellow", "orange")
    rows = [
        {"qid": f"w{k}", "question": f"Name a {c} fruit.", "answer": "apple"}
        for k, c in enumerate(colours)
    ]
    config = write_study(
        tmp_path,
        base_config(
            benchmark__mapping={"input": "question", "target": "answer", "id": "qid"}
        ),
        rows=rows,
    )
    assert main(["generate", str(config), *QUIET]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "every reply is the same text" in err
    assert 'answer only "What is A op B?" items' in err


def test_an_estimate_before_any_reply_calls_the_ceiling_by_its_name(fresh, capsys):
    assert main(["estimate", str(fresh)]) == 0
    out = capsys.readouterr().out
    assert "no reply seen yet" in out
    assert "expected" not in out.split("total:", 1)[1].split("\n", 1)[0]
    code, data, _ = cli_json(capsys, "estimate", str(fresh), "--json")
    assert data["total"]["projected"] is False
    assert main(["generate", str(fresh), *QUIET]) == 0
    capsys.readouterr()
    code, data, _ = cli_json(capsys, "estimate", str(fresh), "--json", "--force")
    assert data["stages"]["generate"]["projected"] is True


def test_replies_of_one_length_give_no_zero_width_projection():
    rows = {
        "condition_id": ["c"] * 5,
        "model": ["m"] * 5,
        "error": [None] * 5,
        "output_tokens": [40] * 5,
    }
    observed = ObservedLengths.from_rows(pd.DataFrame(rows), "condition_id", "model")
    assert observed.interval("c", 100, 512) is None


def test_paths_are_printed_on_lines_of_their_own(fresh, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["generate", str(fresh), *QUIET]) == 0
    assert main(["grade", str(fresh), *QUIET]) == 0
    err = capsys.readouterr().err
    manifests = [line for line in err.splitlines() if line.startswith("manifest: ")]
    assert len(manifests) == 2 and all(line.endswith(".json") for line in manifests)
    assert main(["export", str(fresh)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "exported 4 grades:"
    assert lines[1].strip().endswith("grades_long.parquet")
    assert lines[2].strip().endswith("grades_long.csv")


def test_an_unknown_scorer_gets_a_did_you_mean(tmp_path, capsys):
    config = write_study(tmp_path, base_config(facets__scorer="numerc"))
    assert main(["status", str(config)]) == 2
    assert (
        "unknown scorer 'numerc' (did you mean 'numeric'?)" in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("text", "words", "shown"),
    [
        (
            "study: t\nbenchmark:\n\t- a\n",
            "a tab: YAML indents with spaces only",
            "- a",
        ),
        (
            "study: t\n  benchmark: x\n",
            "a `key: value` where only a value can be",
            "benchmark: x",
        ),
        (
            "study: t\nfacets: {prompt: [p\n",
            "a [ list is not closed with ]",
            "",
        ),
    ],
)
def test_malformed_yaml_is_said_plainly_with_its_line(
    tmp_path, capsys, text, words, shown
):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    assert main(["status", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "malformed YAML at line" in err
    assert "expected <block end>" not in err
    if shown:
        assert shown in err and "^" in err


def test_init_writes_what_it_wrote_on_stdout(tmp_path, capsys):
    assert main(["init", "s", "-C", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("wrote ")
    assert "s/config.yaml" in captured.out
    assert "wrote" not in captured.err


def test_show_counts_dataset_rows_from_one_as_the_duplicate_id_message_does(
    tmp_path, capsys
):
    config = write_study(tmp_path, base_config())
    assert main(["show", str(config), "a2"]) == 0
    assert "data/arith.jsonl row 2" in capsys.readouterr().out
    rows = [
        {"qid": "x", "question": "What is 1 + 1?", "answer": "2", "difficulty": "e"},
        {"qid": "x", "question": "What is 2 + 2?", "answer": "4", "difficulty": "e"},
    ]
    config = write_study(tmp_path / "dup", base_config(), rows=rows)
    assert main(["status", str(config)]) == 2
    assert "(rows 1 and 2)" in capsys.readouterr().err


def test_a_generic_model_name_keeps_its_provider_in_tables(tmp_path, capsys):
    """An imported `mockllm/model` was shown as the model `model`."""
    models = ["mockllm/model", "itemeval/arith-good"]
    config = write_study(tmp_path, base_config(solvers__models=models))
    code, data, _ = cli_json(capsys, "results", str(config), "--json")
    assert code == 0
    shown = sorted(facets["model"] for facets in data["cell_facets"].values())
    assert shown == ["arith-good", "mockllm/model"]
