"""How the offline solver models act when they are given tools (README "Agents"): a
deterministic tool user, as pure functions of the conversation so far.

Offered a tool that computes (any tool but `submit` and `think` with a string
parameter: a user's calculator, inspect's `python` or `bash`), the model works the
problem one step at a time, one tool call per step, then answers from the last tool
result: with `submit` when the agent offers it (inspect's `react()`), else as text.
Whether the answer it gives is right is drawn as a plain reply's is, but a wrong draw
slips only half the time: the tool did the arithmetic. Offered no such tool, it
answers at once. The local test server (tests/openai_server.py) acts the same way,
so an agent study answers alike on both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .arithmetic import Problem, find_problem, fmt
from .draws import unit

SUBMIT = "submit"
NOT_COMPUTING = frozenset({SUBMIT, "think"})
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")


@dataclass(frozen=True)
class Turn:
    """One message as the policy reads it."""

    role: str
    text: str
    function: str | None = None
    """The tool a `tool` message answers."""


@dataclass(frozen=True)
class ToolOffer:
    """A tool the model may call: its name and its string parameters, in order."""

    name: str
    string_params: tuple[str, ...] = ()


@dataclass(frozen=True)
class Action:
    """The model's next message: a tool call (`tool`, `arguments`) or text."""

    text: str = ""
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)


def next_action(
    turns: list[Turn], tools: list[ToolOffer], *, right: bool, key: tuple[Any, ...]
) -> Action | None:
    """The next move of an agent working the conversation's problem; None when the
    model has no tool to use (it then replies as a plain solver does). `right`: the
    draw of whether this cell's answer is right; `key` fixes its slips."""
    compute = next(
        (t for t in tools if t.name not in NOT_COMPUTING and t.string_params), None
    )
    problem = _problem(turns)
    if compute is None or problem is None:
        return None
    results = [t.text for t in turns if t.role == "tool" and t.function == compute.name]
    if len(results) < len(problem.steps):
        lhs = _step(problem, results)
        return Action(
            text=f"Step {len(results) + 1}: {lhs}",
            tool=compute.name,
            arguments={compute.string_params[0]: _command(compute, lhs)},
        )
    answer = _last_number(results[-1]) if results else None
    if answer is None:
        answer = problem.answer
    if not right and unit("agent-slip", *key) < 0.5:
        answer = answer + (1 if answer.denominator == 1 else Fraction(1, 2))
    reply = f"ANSWER: {fmt(answer)}"
    if any(t.name == SUBMIT for t in tools):
        return Action(text="Done.", tool=SUBMIT, arguments={"answer": reply})
    return Action(text=f"The tool computed it.\n{reply}")


def _problem(turns: list[Turn]) -> Problem | None:
    """The problem of the last user turn that states one (an agent's nudges to go on
    state none)."""
    for turn in reversed(turns):
        if turn.role == "user" and (problem := find_problem(turn.text)):
            return problem
    return None


def _step(problem: Problem, results: list[str]) -> str:
    """The next step's expression, on the value the tool gave for the last one."""
    lhs = problem.steps[len(results)][0]
    if results and (last := _last_number(results[-1])) is not None:
        previous = fmt(problem.steps[len(results) - 1][1])
        if lhs.startswith(previous + " "):
            lhs = fmt(last) + lhs[len(previous) :]
    return lhs


def _command(tool: ToolOffer, expression: str) -> str:
    """The expression as the tool takes it: code for `python`, a command for
    `bash`, else as written."""
    if tool.name == "python" or tool.string_params[0] == "code":
        return f"print({expression})"
    if tool.name == "bash" or tool.string_params[0] == "cmd":
        return f"python3 -c 'print({expression})'"
    return expression


def _last_number(text: str) -> Fraction | None:
    found = _NUMBER.findall(text or "")
    if not found:
        return None
    try:
        return Fraction(found[-1])
    except (ValueError, ZeroDivisionError):
        return None


def turn_of(message: Any) -> Turn:
    """An inspect chat message as a Turn."""
    return Turn(message.role, message.text, getattr(message, "function", None))


def offer_of(info: Any) -> ToolOffer:
    """An inspect ToolInfo as a ToolOffer: its string parameters in order."""
    properties = info.parameters.properties if info.parameters else {}
    names = tuple(name for name, p in properties.items() if p.type == "string")
    return ToolOffer(info.name, names)
