"""The study config's JSON Schema (`itemeval schema`): the packaged copy matches the
models, it accepts every config the project ships or tests with, and it rejects the
bad configs the CLI rejects (both are fed the same table)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import jsonschema
import pytest
import yaml

from itemeval.cli import main
from itemeval.errors import EXIT_CONFIG
from itemeval.study.schema import config_schema, packaged_schema, schema_text
from tests.helpers import REPO, base_config, local_model_config, write_study


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = config_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_packaged_schema_is_the_models_schema():
    """Edit config.py, then regenerate: python -c "from itemeval.study.schema import
    schema_text; print(schema_text(), end='')" > itemeval/_builtin/config.schema.json"""
    assert packaged_schema().read_text(encoding="utf-8") == schema_text(), (
        "itemeval/_builtin/config.schema.json is out of date with itemeval/study/"
        "config.py: regenerate it (this test's docstring says how)"
    )


def test_itemeval_schema_prints_it(capsys):
    capsys.readouterr()
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == config_schema()
    assert printed["title"] == "itemeval study config"
    assert "study" in printed["required"]


def test_every_key_has_a_description():
    """The descriptions are the config reference's text: none may be missing."""
    missing = []

    def walk(node: Any, where: str) -> None:
        for name, prop in node.get("properties", {}).items():
            if isinstance(prop, dict) and "description" not in prop:
                missing.append(f"{where}.{name}")

    schema = config_schema()
    walk(schema, "StudyConfig")
    for name, definition in schema["$defs"].items():
        walk(definition, name)
    assert missing == []


def test_init_writes_the_schema_line(tmp_path):
    assert main(["init", str(tmp_path / "s")]) == 0
    first = (tmp_path / "s" / "config.yaml").read_text().splitlines()[0]
    assert first == f"# yaml-language-server: $schema={packaged_schema().as_uri()}"
    assert Path(packaged_schema()).is_file()
    # and the config it wrote still loads and runs its plan
    assert main(["status", str(tmp_path / "s" / "config.yaml")]) == 0


def shipped_configs() -> list[Path]:
    return sorted((REPO / "configs").glob("*.yaml")) + [
        REPO / "itemeval" / "_builtin" / "init" / "config.yaml"
    ]


FIXTURES = {
    "base_config": base_config(),
    "local_model_config": local_model_config(),
    "graders and rubric": base_config(
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "itemeval/judge", "draws": 3, "max_tokens": 64}},
    ),
    "agents": base_config(
        agents={
            "calc": {
                "solver": "react",
                "tools": ["think", {"name": "bash", "args": {"timeout": 30}}],
                "token_limit": 6000,
                "sandbox": "local",
            }
        },
        facets__solver=["plain", "calc"],
    ),
    "pairwise judge": base_config(
        graders={
            "pw": {"model": "itemeval/judge", "kind": "pairwise", "orders": 1},
        },
        facets__grader=["pw"],
    ),
    "inspect task": {
        "study": "t",
        "benchmark": {
            "adapter": "inspect",
            "task": "tests.inspect_task_arith:arith",
            "limit": 3,
        },
        "solvers": {"models": ["itemeval/arith-good"]},
        "facets": {"prompt": ["p"], "scorer": "numeric"},
    },
    "scorer entries and metrics": base_config(
        facets__scorer=[
            "numeric",
            {"name": "numeric", "params": {"rel_tol": 0.1}},
        ],
        metrics=["accuracy", {"name": "corpus_bleu", "params": {}}],
        budget={"batch": 50, "max_usd": 2.5, "confirm_above_usd": None},
        cache="study",
        families={"itemeval/arith-good": "itemeval"},
    ),
    "model configs": base_config(
        facets__model_config=[
            {"name": "cold", "temperature": 0},
            {"name": "hot", "temperature": 1.2, "top_p": 0.9},
        ]
    ),
}


@pytest.mark.parametrize("path", shipped_configs(), ids=lambda path: path.name)
def test_the_schema_accepts_every_shipped_config(validator, path):
    errors = [
        error.message
        for error in validator.iter_errors(yaml.safe_load(path.read_text()))
    ]
    assert errors == []


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_schema_accepts_the_tests_configs(validator, tmp_path, name):
    config = FIXTURES[name]
    assert [error.message for error in validator.iter_errors(config)] == []
    # the CLI takes them too (status reads the whole study: templates and rows)
    assert main(["status", str(write_study(tmp_path, config))]) == 0


def _set(dotted: str, value: Any) -> Callable[[dict], None]:
    def change(config: dict) -> None:
        *parents, last = dotted.split(".")
        node = config
        for part in parents:
            node = node.setdefault(part, {}) if not part.isdigit() else node[int(part)]
        node[last] = value

    return change


def _drop(dotted: str) -> Callable[[dict], None]:
    def change(config: dict) -> None:
        *parents, last = dotted.split(".")
        node = config
        for part in parents:
            node = node[part]
        del node[last]

    return change


def _judge(**grader: Any) -> Callable[[dict], None]:
    def change(config: dict) -> None:
        config["graders"] = {"j": {"model": "itemeval/judge", **grader}}
        config["facets"]["grader"] = ["j"]

    return change


def _inspect(**benchmark: Any) -> Callable[[dict], None]:
    def change(config: dict) -> None:
        config["benchmark"] = {
            "adapter": "inspect",
            "task": "tests.inspect_task_arith:arith",
            **benchmark,
        }

    return change


def _agent(**entry: Any) -> Callable[[dict], None]:
    def change(config: dict) -> None:
        config["agents"] = {"a": {"solver": "react", **entry}}
        config["facets"]["solver"] = ["a"]

    return change


BAD = [
    # (name, change, what the CLI's message says)
    ("unknown top-level key", _set("studdy", "x"), "studdy: unknown key"),
    (
        "unknown nested key",
        _set("solvers.temprature", 0.2),
        "solvers.temprature: unknown key — did you mean temperature?",
    ),
    ("unknown grader key", _judge(modle="x"), "graders.j.modle: unknown key"),
    ("unknown dataset key", _set("benchmark.datasets.0.path", "x"), "unknown key"),
    ("wrong type: replications", _set("facets.replications", "two"), "replications"),
    ("wrong type: models", _set("solvers.models", "itemeval/arith-good"), "models"),
    ("wrong type: prompt", _set("facets.prompt", {"p": 1}), "facets.prompt"),
    ("wrong type: batch", _set("budget.batch", "yes"), "budget.batch"),
    ("out of range: replications 0", _set("facets.replications", 0), "replications"),
    (
        "out of range: replications 10001",
        _set("facets.replications", 10_001),
        "replications",
    ),
    ("out of range: temperature", _set("solvers.temperature", -1), "temperature"),
    ("out of range: top_p", _set("solvers.top_p", 1.5), "top_p"),
    ("out of range: batch 0", _set("budget.batch", 0), "budget.batch"),
    ("out of range: max_usd 0", _set("budget.max_usd", 0), "budget.max_usd"),
    ("out of range: draws", _judge(draws=101), "graders.j.draws"),
    ("out of range: timeout", _set("solvers.timeout", 0), "solvers.timeout"),
    ("bad enum: adapter", _set("benchmark.adapter", "s3"), "benchmark.adapter"),
    ("bad enum: on_empty", _set("solvers.on_empty", "retry"), "solvers.on_empty"),
    ("bad enum: cache", _set("cache", "maybe"), "cache: expected"),
    ("bad enum: judge kind", _judge(kind="listwise"), "graders.j.kind"),
    (
        "bad enum: reasoning_effort",
        _set("solvers.reasoning_effort", "extreme"),
        "reasoning_effort",
    ),
    ("missing: study", _drop("study"), "study: required field is missing"),
    (
        "missing: mapping.input",
        _drop("benchmark.mapping.input"),
        "benchmark.mapping.input: required field is missing",
    ),
    ("missing: facets.prompt", _drop("facets.prompt"), "facets.prompt: required"),
    ("missing: solvers.models", _drop("solvers.models"), "solvers.models: required"),
    ("missing: judge model", _set("graders", {"j": {"draws": 2}}), "graders.j.model"),
    ("empty: models", _set("solvers.models", []), "solvers.models"),
    ("bad enum: agent solver", _agent(solver="reactor"), "unknown solver 'reactor'"),
    ("out of range: agent limit", _agent(message_limit=0), "agents.a.message_limit"),
    ("wrong type: agent tools", _agent(tools="bash"), "agents.a.tools"),
    (
        "undefined solver",
        _set("facets.solver", ["nobody"]),
        "facets.solver: unknown solver 'nobody'",
    ),
    ("bad study name", _set("study", "My Study"), "not a valid study name"),
    ("pairwise key on a pointwise judge", _judge(baseline="x"), "need kind: pairwise"),
    ("draws on a pairwise judge", _judge(kind="pairwise", draws=2), "draws need"),
    ("inspect adapter with datasets", _inspect(datasets=[{"id": "x"}]), "datasets"),
    ("task without adapter inspect", _set("benchmark.task", "m:f"), "adapter: inspect"),
    (
        "nothing graded",
        _set("facets.scorer", None),
        "set at least one of facets.grader or facets.scorer",
    ),
    ("model id without provider", _set("solvers.models", ["gpt-4o"]), "not a model id"),
    ("infinite cap", _set("budget.max_usd", float("inf")), "budget.max_usd"),
    (
        "undefined grader",
        _set("facets.grader", ["nobody"]),
        "unknown grader 'nobody'",
    ),
    (
        "duplicate model_config names",
        _set("facets.model_config", [{"name": "a"}, {"name": "a"}]),
        "duplicate name(s) a",
    ),
]

CLI_ONLY = {
    # JSON has no infinity: a YAML `.inf` reaches the validator as a float, and a
    # schema's "number" admits it; pydantic's allow_inf_nan=False refuses it
    "infinite cap",
    # a reference from one key to the names of another mapping (facets.grader ->
    # graders) is not something JSON Schema can state
    "undefined grader",
    # uniqueness of one field across a list of objects: uniqueItems compares whole items
    "duplicate model_config names",
    # as facets.grader -> graders: facets.solver names agents: entries
    "undefined solver",
}
"""Bad configs the CLI rejects for a reason the schema cannot express."""


def bad_config(change: Callable[[dict], None]) -> dict:
    config = copy.deepcopy(base_config())
    change(config)
    return config


@pytest.mark.parametrize(("name", "change", "message"), BAD, ids=[b[0] for b in BAD])
def test_the_schema_and_the_cli_reject_the_same_bad_configs(
    validator, tmp_path, capsys, name, change, message
):
    config = bad_config(change)
    path = write_study(tmp_path, base_config())
    # yaml.safe_dump writes inf as .inf, which the CLI reads back as infinity
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    capsys.readouterr()
    assert main(["status", str(path)]) == EXIT_CONFIG, name
    err = " ".join(capsys.readouterr().err.split())
    assert message in err, (name, err)
    errors = list(validator.iter_errors(config))
    if name in CLI_ONLY:
        assert errors == [], (name, [e.message for e in errors])
    else:
        assert errors, f"the schema accepts {name!r}, which the CLI rejects"


def test_the_table_covers_each_kind_of_mistake():
    kinds = {name.split(":")[0] for name, _, _ in BAD}
    assert {"wrong type", "out of range", "bad enum", "missing"} <= kinds
    assert any(name.startswith("unknown") for name, _, _ in BAD)
    assert CLI_ONLY <= {name for name, _, _ in BAD}
    assert len(BAD) >= 20
