"""The solver facet (README "Agents"): each `facets.solver` name resolved to how its
conditions produce their answers; user solvers and tools imported from beside the
config so a typo fails at load and their source is part of the id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..hashing import canonical_json, content_hash
from ..records import PLAIN_SOLVER, AgentSpec
from ..user_code import import_beside
from .config import AgentEntry, StudyConfig, ToolEntry

INSPECT_TOOLS = ("bash", "python", "text_editor", "think")
"""inspect's own tools an entry may name; any other is a user `module:function`."""
SANDBOXED_TOOLS = frozenset({"bash", "python", "text_editor"})
"""inspect tools that run in a sandbox: an entry offering one needs `sandbox`."""


def agent_specs(
    config: StudyConfig, config_dir: Path, task_version: str | None = None
) -> list[AgentSpec | None]:
    """One spec per `facets.solver` name, in order; None for `plain`.
    `task_version` pins an inspect task's own solver (its dataset revision)."""
    return [
        _spec(name, config, config_dir, task_version) for name in config.facets.solver
    ]


def _spec(
    name: str, config: StudyConfig, config_dir: Path, task_version: str | None
) -> AgentSpec | None:
    if name == PLAIN_SOLVER:
        return None
    entry = config.agents.get(name) or AgentEntry(solver="task")
    where = f"agents.{name}" if name in config.agents else "facets.solver"
    tools = tuple(_tool(t, f"{where}.tools[{i}]") for i, t in enumerate(entry.tools))
    sandbox = entry.sandbox or config.sandbox
    needs = sorted({n for n, _ in tools} & SANDBOXED_TOOLS)
    if needs and sandbox is None:
        raise ConfigError(
            f"{where}: {', '.join(needs)} run in a sandbox: set `sandbox: local` "
            f"(or docker) on the entry or for the study"
        )
    sources = [_source(ref, config_dir, where, "tool") for ref, _ in tools]
    if ":" in entry.solver:
        sources.insert(0, _source(entry.solver, config_dir, where, "solver"))
    if entry.solver == "task":
        sources.append(task_version or "")
        sources.append(
            canonical_json([config.benchmark.task, config.benchmark.task_args])
        )
    found = [s for s in sources if s]
    return AgentSpec(
        name=name,
        solver=entry.solver,
        args=dict(entry.args),
        tools=tools,
        limits=entry.limits(),
        sandbox=sandbox
        if tools or entry.solver == "task" or ":" in entry.solver
        else None,
        source_hash=content_hash("\n".join(found))[:16] if found else None,
        config_dir=str(config_dir),
        task=(config.benchmark.task or "", dict(config.benchmark.task_args))
        if entry.solver == "task"
        else None,
    )


def _tool(tool: str | ToolEntry, where: str) -> tuple[str, dict[str, Any]]:
    entry = ToolEntry(name=tool) if isinstance(tool, str) else tool
    if entry.name not in INSPECT_TOOLS and ":" not in entry.name:
        raise ConfigError(
            f"{where}: unknown tool {entry.name!r}: use one of "
            f"{', '.join(INSPECT_TOOLS)} or a user @tool as module:function beside "
            "the config"
        )
    return entry.name, dict(entry.args)


def _source(ref: str, config_dir: Path, where: str, what: str) -> str:
    """The source text of a user `module:function` (empty for inspect's own), after
    checking it imports and names something callable."""
    if ":" not in ref:
        return ""
    module_name, _, attribute = ref.partition(":")
    try:
        module = import_beside(module_name, config_dir)
    except ImportError as exc:
        raise ConfigError(
            f"{where}: cannot import {what} module {module_name!r} ({exc}); put "
            f"{module_name}.py beside the config or install it"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a user's module may raise anything
        raise ConfigError(
            f"{where}: importing {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from None
    if not callable(getattr(module, attribute, None)):
        raise ConfigError(
            f"{where}: {module_name} has no {what} {attribute!r} (an @{what} function)"
        )
    # the file beside this config first: a process may hold another study's module
    # of the same name in sys.modules
    beside = config_dir / (module_name.replace(".", "/") + ".py")
    path = beside if beside.is_file() else getattr(module, "__file__", None)
    return Path(path).read_text(encoding="utf-8") if path else ref
