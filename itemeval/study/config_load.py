"""Reading a study config file: its YAML parsed safely, validated against the schema
in `config`, and every problem named by file, field and (for a misspelt key) the key
it nearly is."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from ..errors import ConfigError
from ..hashing import content_hash
from ..textfiles import read_utf8
from ..yaml_text import YamlRefused, cut, explain, load_yaml
from .config import BUILTIN_SOLVERS, LoadedConfig, StudyConfig

CONFIG_LIMIT = 1_000_000
"""The largest study config read: the biggest real one is a few kilobytes, and YAML
parsing of a 10 MB one took tens of seconds before any message (README "Config")."""


def load_config(path: str | Path, base_dir: str | Path | None = None) -> LoadedConfig:
    """Read, parse and validate a study config; raise ConfigError naming the file and
    field on any problem."""
    path = Path(path)
    if path.is_dir():
        return _study_dir_config(path, base_dir)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    if (size := path.stat().st_size) > CONFIG_LIMIT:
        raise ConfigError(
            f"{path}: {size:,} bytes; a study config is at most {CONFIG_LIMIT:,} "
            "(datasets, prompts and rubrics live in files of their own)"
        )
    text = read_utf8(path, "config")
    raw = _parse_yaml(text, path)
    config = _validate(raw, path)
    _check_semantics(config, path)
    # Relative to the config file, like prompts_dir, datasets and pricing_path: the same
    # config run from any directory is the same study. -C/--base-dir overrides it.
    base = Path(base_dir) if base_dir is not None else path.resolve().parent
    return LoadedConfig(
        config=config,
        path=path.resolve(),
        text_hash=content_hash(text),
        base_dir=base.resolve(),
    )


def _study_dir_config(folder: Path, base_dir: str | Path | None) -> LoadedConfig:
    """A study directory stands for the config its runs' manifests name, when that
    config still puts the study there; otherwise the message says which file to pass."""
    import json

    named = None
    for manifest in sorted((folder / "manifests").glob("*.json"), reverse=True):
        try:
            named = json.loads(manifest.read_text(encoding="utf-8")).get("config_path")
        except (OSError, ValueError, AttributeError):
            continue
        if named:
            break
    if not named or not Path(named).is_file():
        hint = f" (its runs used {named}, which is gone)" if named else ""
        raise ConfigError(
            f"{folder} is a directory, not a study config{hint}: pass the config "
            "YAML file the study was run with"
        )
    loaded = load_config(named, base_dir)
    output = loaded.config.output_dir
    where = (loaded.base_dir / output / loaded.config.study).resolve()
    if "://" in output or where != folder.resolve():
        raise ConfigError(
            f"{folder} is a study directory, but its config {named} now puts the "
            f"study at {where if '://' not in output else output}: pass the config "
            "(and -C/--base-dir where it was run from)"
        )
    return loaded


def _parse_yaml(text: str, path: Path) -> dict[str, Any]:
    try:
        raw = load_yaml(text)
    except RecursionError:
        raise ConfigError(f"{path}: YAML nested too deeply to read") from None
    except YamlRefused as exc:
        raise ConfigError(
            f"{path}: refused YAML at {_where(exc)}: {exc.problem}"
        ) from None
    except yaml.MarkedYAMLError as exc:
        raise ConfigError(
            f"{path}: malformed YAML at {_where(exc)}: {explain(exc, text)}"
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: malformed YAML: {exc}") from None
    if not isinstance(raw, dict):
        got = (
            "an empty file"
            if raw is None
            else f"a {_YAML_KINDS.get(type(raw), 'value')}"
        )
        raise ConfigError(
            f"{path}: a study config must be a YAML mapping with at least "
            f"`study:`, got {got} (`itemeval init` writes one to start from)"
        )
    return raw


_YAML_KINDS = {list: "list", str: "single text", int: "number", float: "number"}


def _where(exc: yaml.MarkedYAMLError) -> str:
    mark = exc.problem_mark or exc.context_mark
    return (
        f"line {mark.line + 1}, column {mark.column + 1}"
        if mark
        else "unknown position"
    )


def _validate(raw: dict[str, Any], path: Path) -> StudyConfig:
    try:
        return StudyConfig.model_validate(raw)
    except ValidationError as exc:
        errors = _unions_merged(exc.errors())
        lines = [_describe_error(err)[:400] for err in errors[:_SHOWN_ERRORS]]
        if len(errors) > _SHOWN_ERRORS:
            lines.append(f"… and {len(errors) - _SHOWN_ERRORS:,} more errors")
        raise ConfigError(
            f"{path}: invalid config:\n" + "\n".join(f"  - {line}" for line in lines)
        ) from None


_BRANCH = re.compile(
    r"(?:str|int|float|bool|list|dict|none|constrained-\w+|literal|"
    r"function-\w+)(?:\[.*\])?"
)
"""pydantic's name for one form of a union, the last part of its errors' location."""


def _unions_merged(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A value that fits none of a field's forms (a scorer entry written as a mapping
    where a name or a list goes) is one error saying which forms it could take, not
    one per form named by pydantic's internal type names."""
    merged: list[dict[str, Any]] = []
    branches: dict[tuple, dict[str, Any]] = {}
    for err in errors:
        loc = tuple(err["loc"])
        if len(loc) > 1 and isinstance(loc[-1], str) and _BRANCH.fullmatch(loc[-1]):
            forms = branches.get(loc[:-1])
            if forms is None:
                forms = {**err, "loc": loc[:-1], "type": "union", "forms": []}
                branches[loc[:-1]] = forms
                merged.append(forms)
            forms["forms"].append(_form(err["msg"]))
            continue
        merged.append(err)
    for err in merged:
        if err.get("type") == "union":
            err["msg"] = "expected " + " or ".join(dict.fromkeys(err["forms"]))
    return merged


def _form(message: str) -> str:
    """ "Input should be a valid string" -> "a string"; "Input should be 'study'" ->
    "'study'"."""
    text = message.removeprefix("Input should be ").split(",")[0]
    return text.replace("a valid ", "a ").replace("a boolean", "true or false")


_SHOWN_ERRORS = 20
"""Config errors listed in one message: a hostile config must not print megabytes."""


def _describe_error(err: dict[str, Any]) -> str:
    loc = tuple(str(part) for part in err["loc"])
    dotted = ".".join(loc) or "(top level)"
    if err["type"] == "extra_forbidden":
        hint = _closest_key(loc)
        return f"{dotted}: unknown key" + (f" — did you mean {hint}?" if hint else "")
    if err["type"] == "missing":
        return f"{dotted}: required field is missing"
    if err["type"] == "string_pattern_mismatch" and loc == ("study",):
        return (
            f"study: {cut(err['input'])} is not a valid study name (lower-case "
            "letters, digits, '_' and '-', starting with a letter or digit, at "
            "most 64 chars)"
        )
    message = err["msg"]
    if err["type"] == "value_error":  # our own validators' words, without pydantic's
        message = message.removeprefix("Value error, ")
    return f"{dotted}: {message} (got {cut(err.get('input'))})"


def _closest_key(loc: tuple[str, ...]) -> str | None:
    """The valid key nearest to an unknown one, found by walking the models along the
    error's path."""
    model: Any = StudyConfig
    for part in loc[:-1]:
        field = _field_named(model, part)
        if field is None:
            continue  # a list index, a dict key (grader name) or a union tag
        model = _model_of(field.annotation)
        if model is None:
            return None
    names = [f.alias or name for name, f in model.model_fields.items()]
    match = difflib.get_close_matches(loc[-1], names, n=1, cutoff=0.6)
    return match[0] if match else None


def _field_named(model: Any, name: str) -> Any:
    for field_name, field in getattr(model, "model_fields", {}).items():
        if name in (field_name, field.alias):
            return field
    return None


def _model_of(annotation: Any) -> Any:
    """The BaseModel class inside an annotation like `list[X]`, `X | None` or
    `dict[str, X]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _check_semantics(config: StudyConfig, path: Path) -> None:
    facets = config.facets
    if not facets.grader and not facets.scorer:
        raise ConfigError(
            f"{path}: facets: set at least one of facets.grader or "
            "facets.scorer, or nothing will be graded"
        )
    for name in facets.grader:
        if "/" not in name and name not in config.graders:
            known = ", ".join(sorted(config.graders)) or "none defined"
            raise ConfigError(
                f"{path}: facets.grader: unknown grader {name!r} (graders: {known}); "
                "define it under `graders:` or use a model id containing '/'"
            )
    _check_solvers(config, path)
    ids = [
        (f"solvers.models[{i}]", model) for i, model in enumerate(config.solvers.models)
    ]
    ids += [
        (f"graders.{name}.model", grader.model)
        for name, grader in config.graders.items()
    ]
    for where, model in ids:
        provider, _, name = model.partition("/")
        if not provider or not name:
            raise ConfigError(
                f"{path}: {where}: {model!r} is not a model id; write "
                "<provider>/<model>, "
                "e.g. openai/gpt-4.1-mini or itemeval/arith-good"
            )
    names = [m.name for m in facets.model_config_]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(
            f"{path}: facets.model_config: duplicate name(s) {', '.join(duplicates)}"
        )


def _check_solvers(config: StudyConfig, path: Path) -> None:
    """Every `facets.solver` name is built in or defined under `agents:`, once; a
    task's own solver needs an inspect task."""
    names = config.facets.solver
    for name in BUILTIN_SOLVERS:
        if name in config.agents:
            raise ConfigError(
                f"{path}: agents.{name}: {name!r} is a built-in solver name; "
                "call the entry something else"
            )
    for name in names:
        if name not in BUILTIN_SOLVERS and name not in config.agents:
            known = ", ".join([*BUILTIN_SOLVERS, *sorted(config.agents)])
            raise ConfigError(
                f"{path}: facets.solver: unknown solver {name!r} (known: {known}); "
                "define it under `agents:`"
            )
    if duplicates := sorted({n for n in names if names.count(n) > 1}):
        raise ConfigError(
            f"{path}: facets.solver: {', '.join(duplicates)} listed twice; list each "
            "solver once"
        )
    wants_task = [
        n
        for n in names
        if n == "task" or (n in config.agents and config.agents[n].solver == "task")
    ]
    if wants_task and config.benchmark.adapter != "inspect":
        raise ConfigError(
            f"{path}: facets.solver: {wants_task[0]!r} runs the inspect task's own "
            "solver, but benchmark.adapter is "
            f"{config.benchmark.adapter!r}: use adapter: inspect with benchmark.task"
        )
