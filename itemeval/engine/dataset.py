"""An inspect task as a study's dataset: samples become items, its scorer an entry."""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Iterator

from pydantic import BaseModel, ConfigDict

from ..errors import ConfigError
from ..hashing import canonical_json, content_hash
from ..records import Item
from ..scorers.base import ScorerSpec
from ..study.items import jsonable
from ..study.sources import RawDataset

if TYPE_CHECKING:
    from ..study.config import DatasetSpec, LoadedConfig

TASK_SCORER = "task_scorer"
HISTORY = "inspect_messages"
"""Item metadata key holding a chat input's turns before its last user turn."""


@dataclass(frozen=True)
class LoadedTask:
    """A task built from its reference and args, with what pins its version."""

    task: Any
    version: str
    """The providing package's version, else a hash of the task's source file."""


# ---- loading the task ----------------------------------------------------------------


def load_task(ref: str, args: dict[str, Any], config_dir: Path) -> LoadedTask:
    """`module.path:function`, `file.py@function` (beside the config) or a name."""
    import inspect_ai  # noqa: F401 - registers inspect's zip and registry machinery

    try:
        with _on_path(config_dir):
            if ":" in ref and "@" not in ref:
                task, module = _from_module(ref, args)
            else:
                task, module = _from_spec(ref, args, config_dir)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - a task's own code may raise anything
        raise ConfigError(
            f"benchmark.task: cannot load task {ref!r}: {type(exc).__name__}: {exc}"
        ) from None
    return LoadedTask(task=task, version=_version(module))


@contextmanager
def _on_path(folder: Path) -> Iterator[None]:
    added = str(folder) not in sys.path
    if added:
        sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        if added:
            sys.path.remove(str(folder))


def _from_module(ref: str, args: dict[str, Any]) -> tuple[Any, Any]:
    module_name, _, function = ref.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"benchmark.task: cannot import {module_name!r} ({exc}); put it beside the "
            "config or install it"
        ) from None
    factory = getattr(module, function, None)
    if not callable(factory):
        raise ConfigError(f"benchmark.task: {module_name} has no task {function!r}")
    return factory(**args), module


def _from_spec(ref: str, args: dict[str, Any], config_dir: Path) -> tuple[Any, Any]:
    """A file task (`file.py@function`) or a registered one (`inspect_evals/gsm8k`),
    loaded the way `inspect eval` loads them."""
    from .compat import load_task_spec, registry_lookup

    file, at, function = ref.partition("@")
    path = (config_dir / file).resolve()
    tasks = load_task_spec(f"{path}@{function}" if at else ref, args)
    if len(tasks) != 1:
        raise ConfigError(f"benchmark.task: {ref!r} names {len(tasks)} tasks, not one")
    if at:  # the task's own file pins it (its module is not importable by name)
        return tasks[0], SimpleNamespace(__name__="", __file__=str(path))
    factory = registry_lookup("task", ref)
    return tasks[0], sys.modules.get(getattr(factory, "__module__", ""))


def _version(module: Any) -> str:
    """The installed package's version (inspect_evals==0.3.1), else the source hash."""
    name = (getattr(module, "__name__", "") or "").split(".")[0]
    packages = metadata.packages_distributions().get(name, [])
    if packages:
        return f"{packages[0]}=={metadata.version(packages[0])}"
    source = getattr(module, "__file__", None)
    text = Path(source).read_text(encoding="utf-8") if source else ""
    return "source:" + content_hash(text)[:16]


# ---- samples -> rows -----------------------------------------------------------------


def sample_row(sample: Any, index: int) -> dict[str, Any]:
    """One dataset row of a sample: its metadata's keys, id, input, target, choices.

    A chat input's last user turn is the input; the turns before it are kept as
    `inspect_messages`.
    A sample without id gets inspect's own default, its 1-based position.
    """
    text, history = _split_input(sample.input)
    row = {str(k): jsonable(v) for k, v in (sample.metadata or {}).items()}
    row.update(
        id=str(sample.id) if sample.id is not None else str(index + 1),
        input=text,
        target=list(sample.target)
        if isinstance(sample.target, list)
        else sample.target,
        choices=list(sample.choices) if sample.choices else None,
    )
    if history:
        row[HISTORY] = history
    return row


def _split_input(value: Any) -> tuple[str, list[dict[str, str]]]:
    if isinstance(value, str):
        return value, []
    messages = list(value)
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        raise ConfigError("benchmark.task: a sample's chat input has no user turn")
    last = users[-1]
    history = [{"role": m.role, "content": m.text} for m in messages]
    del history[last]
    return messages[last].text, history


def load_inspect(
    spec: DatasetSpec, loaded: LoadedConfig, pinned: str | None
) -> RawDataset:
    """The `inspect` adapter: the task's samples, pinned by its version and hash."""
    benchmark = loaded.config.benchmark
    task = load_task(spec.id, dict(benchmark.task_args), loaded.config_dir)
    rows = [sample_row(sample, i) for i, sample in enumerate(task.task.dataset)]
    revision = (
        f"{task.version};samples:sha256:{content_hash(canonical_json(rows))[:16]}"
    )
    return RawDataset(
        key=spec.id,
        short_name=getattr(task.task, "name", None) or spec.id,
        adapter="inspect",
        revision=revision,
        rows=rows,
    )


def with_sample_fields(items: list[Item], raw: RawDataset) -> list[Item]:
    """Items of a task carry every sample's metadata (a task's scorer reads it) and its
    choices, whatever the mapping copies."""
    rows = raw.rows

    def full(item: Item) -> Item:
        row = rows[item.row]
        keep = {k: v for k, v in row.items() if k not in ("id", "input", "target")}
        keep.pop("choices", None)
        choices = item.choices or tuple(row.get("choices") or ())
        return replace(item, metadata={**keep, **item.metadata}, choices=choices)

    return [full(item) for item in items]


# ---- the task's own scorer -----------------------------------------------------------


class TaskScorerParams(BaseModel):
    """`task_scorer`: the benchmark's task (filled in), its args, which scorer."""

    model_config = ConfigDict(extra="forbid", strict=True)
    task: str
    task_args: dict[str, Any] = {}
    index: int = 0
    """Which of the task's scorers, when it has several."""
    task_version: str = ""
    """Filled in from the task's package version or source hash: part of the id."""


def task_scorer_spec() -> ScorerSpec:
    # inspect's rule version, as for its other scorers (the task's own is in the params)
    version = f"inspect-ai=={metadata.version('inspect-ai')}"
    return ScorerSpec(
        fn=None, params_model=TaskScorerParams, rule_version=version, family="user"
    )


def task_scorer_params(
    params: dict[str, Any], config: Any, config_dir: Path | None
) -> dict[str, Any]:
    """A `task_scorer` entry's params, the benchmark's task and version filled in."""
    benchmark = config.benchmark
    task = params.get("task") or benchmark.task
    if not task:
        raise ConfigError(
            "scorer 'task_scorer' scores with an inspect task's scorer: set "
            "benchmark.adapter: inspect with benchmark.task, or params.task"
        )
    args = params.get(
        "task_args", benchmark.task_args if task == benchmark.task else {}
    )
    loaded = load_task(task, dict(args), config_dir or Path.cwd())
    return {
        **params,
        "task": task,
        "task_args": dict(args),
        "task_version": loaded.version,
    }


def build_task_scorer(params: dict[str, Any], config_dir: Path) -> Any:
    """The inspect scorer object of the task's scorer list, at `index`."""
    loaded = load_task(params["task"], dict(params["task_args"]), config_dir)
    scorers = loaded.task.scorer or []
    index = params.get("index", 0)
    if not 0 <= index < len(scorers):
        raise ConfigError(
            f"scorer 'task_scorer': task {params['task']!r} has {len(scorers)} "
            f"scorer(s); index {index} is out of range"
        )
    return scorers[index]
