"""Agents and solver chains at generate (README "Agents"): an AgentSpec built into
inspect's own solver, its every model call gated by the spend cap and cached like a
plain call, its row journaled when its sample ends."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any

from inspect_ai.model import CachePolicy, Model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from .. import signals
from ..errors import ConfigError
from ..plan.budget import CallGate
from ..records import AgentSpec, TaskSpec
from ..user_code import import_beside
from .log_scores import NO_CALL

TOOL_SCHEMA_CHARS = 400
"""What one tool's definition adds to a call's input, for the call's worst case."""


class CapRefused(Exception):
    """The spend cap (or a stop) refused an agent's next call: the cell ends without
    a row and runs again later."""


def agent_solver(spec: TaskSpec) -> Solver:
    """The inspect solver of an agent condition's task."""
    assert spec.agent is not None
    inner = _solver(spec.agent)
    return _agent_step(inner)


def gate_model(
    model: Model, gate: CallGate | None, cache_scope: str | None, cache: Any
) -> Model:
    """`model` with every call (an agent makes many) first cleared by `gate`, cached
    under the condition's scope, and counted in flight for a first Ctrl-C."""
    generate = model.generate
    keys = itertools.count(1)

    @functools.wraps(generate)
    async def gated(input: Any, tools: Any = (), *args: Any, **kwargs: Any) -> Any:
        if cache_scope is not None and not isinstance(kwargs.get("cache"), CachePolicy):
            kwargs["cache"] = cache(cache_scope)
        key = f"agent-call-{next(keys)}"
        if signals.stop_requested() or (
            gate is not None and not await gate.acquire(key, _sent(input, tools))
        ):
            raise CapRefused()
        usage, cached = None, False
        with signals.call_in_flight():
            try:
                output = await generate(input, tools, *args, **kwargs)
                usage, cached = _charged(output), _was_cached()
                return output
            finally:
                if gate is not None:
                    await gate.release(key, usage, cached)

    model.generate = gated  # type: ignore[method-assign]
    return model


@solver
def _agent_step(inner: Solver) -> Solver:
    """The agent, with a call the cap refused ending the cell without a row."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        try:
            return await inner(state, generate)
        except CapRefused:
            state.metadata[NO_CALL] = True
            state.completed = True
            return state

    return solve


# ---- building inspect's solvers and tools --------------------------------------------


def _solver(agent: AgentSpec) -> Solver:
    from inspect_ai.agent import as_solver, is_agent, react
    from inspect_ai.solver import (
        chain,
        chain_of_thought,
        generate,
        self_critique,
        use_tools,
    )

    tools = [_tool(name, args, agent) for name, args in agent.tools]
    args = dict(agent.args)
    if agent.solver == "react":
        return as_solver(react(tools=tools, **args))
    if agent.solver == "task":
        return _task_solver(agent)
    offered = [use_tools(*tools)] if tools else []
    if agent.solver == "generate":
        return chain(*offered, generate(tool_calls="loop", **args))
    if agent.solver == "chain_of_thought":
        return chain(*offered, chain_of_thought(**args), generate())
    if agent.solver == "self_critique":
        return chain(*offered, generate(), self_critique(**args))
    made = _user(agent.solver, agent, "solver")(**args, **_tools_arg(tools))
    return as_solver(made) if is_agent(made) else made


def _tools_arg(tools: list[Any]) -> dict[str, Any]:
    """A user solver is given the entry's tools as `tools=` when the entry has any."""
    return {"tools": tools} if tools else {}


def _tool(name: str, args: dict[str, Any], agent: AgentSpec) -> Any:
    import inspect_ai.tool as inspect_tools

    if ":" in name:
        return _user(name, agent, "tool")(**args)
    return getattr(inspect_tools, name)(**args)


def _user(ref: str, agent: AgentSpec, what: str) -> Any:
    """A user `module:function`, imported from beside the config (checked at load:
    study/agents.py)."""
    module_name, _, attribute = ref.partition(":")
    module = import_beside(module_name, Path(agent.config_dir or "."))
    return getattr(module, attribute)


def sandbox_of(agent: AgentSpec) -> Any:
    """Where the agent's tools run: its own (or the study's) sandbox, else, for a
    task's own solver, the sandbox the task declares."""
    if agent.sandbox is not None or agent.solver != "task":
        return agent.sandbox
    ref, args = agent.task or ("", {})
    from .dataset import load_task

    return load_task(ref, args, Path(agent.config_dir or ".")).task.sandbox


def _task_solver(agent: AgentSpec) -> Solver:
    """The inspect task's own solver chain, loaded as the inspect adapter loads the
    task."""
    from inspect_ai.solver import chain

    from .dataset import load_task

    ref, args = agent.task or ("", {})
    loaded = load_task(ref, args, Path(agent.config_dir or "."))
    found = loaded.task.solver
    if found is None:
        raise ConfigError(f"benchmark.task: task {ref!r} has no solver to run")
    return found if not isinstance(found, list) else chain(*found)


def _sent(input: Any, tools: Any) -> str:
    """The text a call sends, for its worst case: every message, and each tool's
    definition as a fixed allowance."""
    messages = [input] if isinstance(input, str) else list(input)
    text = "\n".join(m if isinstance(m, str) else m.text for m in messages)
    count = len(tools) if isinstance(tools, (list, tuple)) else 1
    return text + " " * (TOOL_SCHEMA_CHARS * count)


def _last_call() -> Any:
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import transcript

    events = [e for e in transcript().events if isinstance(e, ModelEvent)]
    return events[-1] if events else None


def _charged(output: Any) -> dict[str, int | None] | None:
    """The call's counts as charged (the provider's unless they cannot be true:
    plan/usage_check.py)."""
    from .samples import event_usage, usage_counts

    event = _last_call()
    if event is not None and event.output.usage is not None:
        return event_usage(event).usage
    return usage_counts(output.usage) if output.usage is not None else None


def _was_cached() -> bool:
    event = _last_call()
    return bool(event is not None and event.cache == "read")
