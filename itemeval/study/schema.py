"""The study config's JSON Schema, generated from the pydantic models in `config`
(`itemeval schema`; the packaged copy is `_builtin/config.schema.json`)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from .config import AGENT_SOLVERS, StudyConfig

SCHEMA_FILE = "config.schema.json"
"""The packaged copy under itemeval/_builtin/, what `itemeval init`'s configs point
editors at (tests/study/test_schema.py fails when it drifts from the models)."""
DIALECT = "https://json-schema.org/draft/2020-12/schema"

PAIRWISE_ONLY = ("baseline", "orders", "rubric")
"""Grader keys only a `kind: pairwise` judge takes (config.Grader._pairwise_keys)."""


def config_schema() -> dict[str, Any]:
    """The study config's JSON Schema: pydantic's, tidied for editors (no generated
    titles) and given the rules pydantic writes in validators, where a schema can
    say them."""
    schema = StudyConfig.model_json_schema(by_alias=True)
    _drop_titles(schema)
    defs = schema["$defs"]
    _inspect_adapter(defs["Benchmark"])
    _batch_sizes(defs["Budget"])
    _pairwise_keys(defs["Grader"])
    _something_graded(schema)
    _model_ids(schema, defs)
    _agent_solvers(defs)
    return {
        "$schema": DIALECT,
        "title": "itemeval study config",
        "description": (
            "A study config for itemeval (`itemeval init` writes one to start "
            "from). Printed by `itemeval schema`."
        ),
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }


def schema_text() -> str:
    """The schema as the packaged file holds it: indented JSON, keys in model order,
    one newline at the end."""
    return json.dumps(config_schema(), indent=2, ensure_ascii=False) + "\n"


def packaged_schema() -> Path:
    """Where the installed itemeval keeps its copy of the schema."""
    return Path(str(resources.files("itemeval") / "_builtin" / SCHEMA_FILE))


def _drop_titles(node: Any) -> None:
    """pydantic titles every field from its name ("Max Usd"): noise in an editor's
    hover, where the description says what the key is."""
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            for value in props.values():
                if isinstance(value, dict):
                    value.pop("title", None)
        for key, value in node.items():
            if key != "properties" or isinstance(value, dict):
                _drop_titles(value)
    elif isinstance(node, list):
        for value in node:
            _drop_titles(value)


def _inspect_adapter(benchmark: dict[str, Any]) -> None:
    """`adapter: inspect` takes `task:` and no `datasets:` (its mapping is filled in);
    the other adapters need datasets and a mapping, and take no task."""
    benchmark["required"] = []
    benchmark["if"] = {
        "properties": {"adapter": {"const": "inspect"}},
        "required": ["adapter"],
    }
    benchmark["then"] = {
        "required": ["task"],
        "properties": {"datasets": False, "task": {"type": "string", "minLength": 1}},
    }
    benchmark["else"] = {
        "required": ["datasets", "mapping"],
        "properties": {"task": False, "task_args": False},
    }
    # `limit:` is the task's row limit with adapter inspect (moved into its dataset)
    benchmark["properties"]["limit"] = {
        "type": ["integer", "null"],
        "minimum": 0,
        "description": "inspect only: keep only the task's first N samples.",
    }
    benchmark["else"]["properties"]["limit"] = False


def _batch_sizes(budget: dict[str, Any]) -> None:
    """A batch size is a whole number, 1 or more (0 would mean live calls)."""
    forms = budget["properties"]["batch"]["anyOf"]
    for form in forms:
        if form.get("type") == "integer":
            form["minimum"] = 1


def _pairwise_keys(grader: dict[str, Any]) -> None:
    grader["if"] = {
        "properties": {"kind": {"const": "pairwise"}},
        "required": ["kind"],
    }
    grader["then"] = {"properties": {"draws": {"const": 1}}}
    grader["else"] = {"properties": {key: False for key in PAIRWISE_ONLY}}


def _something_graded(schema: dict[str, Any]) -> None:
    """facets: at least one of a grader or a scorer, or nothing will be graded."""
    facets = schema["$defs"]["Facets"]
    facets["anyOf"] = [
        {"required": ["grader"], "properties": {"grader": {"minItems": 1}}},
        {
            "required": ["scorer"],
            "properties": {
                "scorer": {"not": {"type": "null"}, "minItems": 1, "minLength": 1}
            },
        },
    ]


MODEL_ID = r"^[^/]+/.+"
"""`<provider>/<model>`, as config_load checks every solver and judge model id."""


def _model_ids(schema: dict[str, Any], defs: dict[str, Any]) -> None:
    defs["Solvers"]["properties"]["models"]["items"]["pattern"] = MODEL_ID
    defs["Grader"]["properties"]["model"]["pattern"] = MODEL_ID


def _agent_solvers(defs: dict[str, Any]) -> None:
    """An agent's solver: one of inspect's by name, or a user's `module:function`."""
    solver = defs["AgentEntry"]["properties"]["solver"]
    solver["anyOf"] = [{"enum": list(AGENT_SOLVERS)}, {"pattern": ":"}]
