"""Bad input, one case at a time: each exits 2 with a message naming what is wrong
and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from itemeval.cli import main
from itemeval.errors import ItemevalError
from itemeval.study.config_load import load_config
from tests.helpers import base_config, write_study


def run_status(tmp_path: Path, capsys, config_path: Path) -> tuple[int, str]:
    code = main(["status", str(config_path), "-C", str(tmp_path)])
    captured = capsys.readouterr()
    return code, captured.err + captured.out


def assert_rejected(tmp_path, capsys, config_path, *fragments):
    code, output = run_status(tmp_path, capsys, config_path)
    assert code == 2, output
    flat = " ".join(output.split())
    for fragment in fragments:
        assert fragment in flat, f"{fragment!r} not in {flat!r}"
    assert not (tmp_path / "studies").exists()


def test_malformed_yaml_names_line_and_column(tmp_path, capsys):
    path = write_study(tmp_path)
    path.write_text("study: t\nfacets:\n\tprompt: [p]\n")
    assert_rejected(
        tmp_path, capsys, path, "config.yaml", "malformed YAML at line 3, column 1"
    )


def test_unknown_key_is_named_with_closest_valid_key(tmp_path, capsys):
    config = base_config()
    config["solvers"]["temprature"] = 0.3
    path = write_study(tmp_path, config)
    assert_rejected(
        tmp_path, capsys, path, "solvers.temprature", "did you mean temperature?"
    )


def test_unknown_key_in_a_grader_is_named(tmp_path, capsys):
    config = base_config(graders={"j": {"model": "itemeval/judge", "max_tokns": 10}})
    path = write_study(tmp_path, config)
    assert_rejected(
        tmp_path, capsys, path, "graders.j.max_tokns", "did you mean max_tokens?"
    )


def test_wrong_type_is_named(tmp_path, capsys):
    path = write_study(tmp_path, base_config(solvers__max_tokens="lots"))
    assert_rejected(tmp_path, capsys, path, "solvers.max_tokens", "'lots'")


def test_missing_dataset_file(tmp_path, capsys):
    path = write_study(
        tmp_path, base_config(benchmark__datasets=[{"id": "data/nope.jsonl"}])
    )
    assert_rejected(tmp_path, capsys, path, "dataset file not found", "nope.jsonl")


def test_missing_column_lists_real_columns(tmp_path, capsys):
    config = base_config()
    config["benchmark"]["mapping"]["input"] = "prompt"
    path = write_study(tmp_path, config)
    assert_rejected(
        tmp_path,
        capsys,
        path,
        "benchmark.mapping.input",
        "'prompt'",
        "qid, question, answer, difficulty",
    )


def test_blank_input_names_the_row(tmp_path, capsys):
    rows = [
        {"qid": "a", "question": "What is 1 + 1?", "answer": "2", "difficulty": "e"},
        {"qid": "b", "question": "   ", "answer": "2", "difficulty": "e"},
    ]
    path = write_study(tmp_path, rows=rows)
    assert_rejected(
        tmp_path, capsys, path, "row 2 (id 'b')", "blank", "'question'"
    )  # 1-based, like the file's line 2


def test_duplicate_item_ids_name_the_id_and_both_datasets(tmp_path, capsys):
    path = write_study(
        tmp_path,
        base_config(
            benchmark__datasets=[{"id": "data/arith.jsonl"}, {"id": "data/copy.jsonl"}]
        ),
    )
    (tmp_path / "data" / "copy.jsonl").write_text(
        (tmp_path / "data" / "arith.jsonl").read_text()
    )
    assert_rejected(
        tmp_path,
        capsys,
        path,
        "duplicate item id 'a1'",
        "data/arith.jsonl",
        "data/copy.jsonl",
    )


def test_unknown_scorer_lists_known_ones(tmp_path, capsys):
    path = write_study(tmp_path, base_config(facets__scorer="fuzzy"))
    assert_rejected(tmp_path, capsys, path, "fuzzy", "numeric", "exact_match")


def test_unknown_grader(tmp_path, capsys):
    path = write_study(tmp_path, base_config(facets__grader=["strict"]))
    assert_rejected(tmp_path, capsys, path, "facets.grader", "'strict'")


def test_missing_template_lists_what_exists(tmp_path, capsys):
    path = write_study(tmp_path, base_config(facets__prompt=["nope"]))
    assert_rejected(
        tmp_path,
        capsys,
        path,
        "facets.prompt[0]",
        "'nope'",
        "local prompts",
        ": p;",
        "builtin:minimal",
    )


def test_missing_builtin_template(tmp_path, capsys):
    path = write_study(tmp_path, base_config(facets__prompt=["builtin:fancy"]))
    assert_rejected(tmp_path, capsys, path, "builtin:fancy", "builtin:standard")


def test_prompt_without_input_placeholder(tmp_path, capsys):
    path = write_study(tmp_path, prompt="Solve it.")
    assert_rejected(tmp_path, capsys, path, "must contain {input}")


@pytest.mark.parametrize("name", ["Demo", "my study", "-x", "a" * 65, "ü"])
def test_non_slug_study_name(tmp_path, capsys, name):
    path = write_study(tmp_path, base_config(study=name))
    assert_rejected(tmp_path, capsys, path, "is not a valid study name")


def test_nothing_to_grade_is_an_error(tmp_path, capsys):
    path = write_study(tmp_path, base_config(facets__scorer=None))
    assert_rejected(tmp_path, capsys, path, "facets.grader or facets.scorer")


def test_missing_config_file(tmp_path, capsys):
    assert_rejected(tmp_path, capsys, tmp_path / "absent.yaml", "config file not found")


def test_config_that_is_not_a_mapping(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("- a\n- b\n")
    assert_rejected(tmp_path, capsys, path, "must be a YAML mapping")


def test_malformed_jsonl_names_file_and_line(tmp_path, capsys):
    path = write_study(tmp_path)
    with (tmp_path / "data" / "arith.jsonl").open("a") as handle:
        handle.write("{not json\n")
    assert_rejected(tmp_path, capsys, path, "arith.jsonl", "line 5")


def test_paths_resolve_inputs_from_config_dir_and_outputs_from_base_dir(tmp_path):
    path = write_study(tmp_path / "cfg")
    loaded = load_config(path, base_dir=tmp_path / "work")
    assert (
        loaded.input_path("data/x.jsonl")
        == (tmp_path / "cfg" / "data" / "x.jsonl").resolve()
    )
    assert loaded.study.root == (tmp_path / "work" / "studies" / "t").resolve()


def test_model_config_defaults_and_aliases(tmp_path):
    loaded = load_config(write_study(tmp_path))
    assert [m.name for m in loaded.config.facets.model_config_] == ["default"]
    assert loaded.config.facets.rubric == ["builtin:standard"]
    assert loaded.config.facets.replications == 1


def test_every_config_field_is_described():
    """The descriptions are the config reference's and the JSON Schema's text
    (docs/reference/config.md, `itemeval schema`)."""
    from itemeval.study import config as module
    from itemeval.study.analysis import Analysis

    for model in (
        module.StudyConfig,
        module.Benchmark,
        module.Mapping,
        module.Solvers,
        module.Facets,
        module.Grader,
        module.Budget,
        module.DatasetSpec,
        module.ModelConfigFacet,
        module.ScorerEntry,
        module.MetricEntry,
        module.AgentEntry,
        module.ToolEntry,
        Analysis,
    ):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"facets__scorer": {"name": "numeric", "params": {"rel_tol": 0.1}}},
            "facets.scorer: expected a string or a list (got {'name': 'numeric'",
        ),
        ({"cache": "maybe"}, "cache: expected true or false or 'study' (got 'maybe')"),
    ],
)
def test_a_value_of_no_accepted_form_says_which_forms_it_could_take(
    tmp_path, overrides, message
):
    """Not one line per form in pydantic's type names (facets.scorer.str,
    facets.scorer.list[union[str,ScorerEntry]])."""
    with pytest.raises(ItemevalError) as raised:
        load_config(write_study(tmp_path, base_config(**overrides)))
    text = str(raised.value)
    assert message in text and "union[" not in text and "literal[" not in text
