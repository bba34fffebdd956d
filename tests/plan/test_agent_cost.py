"""An agent cell's worst case (plan/agent_cost.py): a bound its trajectory can
never pass, whatever the provider returns within its limits."""

from __future__ import annotations

import pytest

from itemeval.plan.agent_cost import TOOL_OUTPUT_TOKENS, worst_case
from itemeval.records import AgentSpec


def agent(**limits) -> AgentSpec:
    return AgentSpec(name="a", solver="react", limits=limits)


@pytest.mark.parametrize(
    ("limits", "prompt", "max_tokens", "expected"),
    [
        # M calls, each sending the prompt and at most M full messages
        (
            {"message_limit": 4},
            100,
            256,
            (4, 4 * (100 + 4 * TOOL_OUTPUT_TOKENS), 4 * 256),
        ),
        # a reply longer than a tool output bounds a message instead
        (
            {"message_limit": 2},
            10,
            20_000,
            (2, 2 * (10 + 2 * 20_000), 2 * 20_000),
        ),
        # T tokens before the last call; the last adds at most T, a tool output and a
        # reply
        (
            {"token_limit": 1000},
            100,
            256,
            (11, 2 * 1000 + 100 + TOOL_OUTPUT_TOKENS, 1000 + 256),
        ),
        # both: each figure's smaller bound
        (
            {"message_limit": 8, "token_limit": 1000},
            100,
            256,
            (8, 2 * 1000 + 100 + TOOL_OUTPUT_TOKENS, 1000 + 256),
        ),
        (
            {"message_limit": 1, "token_limit": 10**6},
            100,
            256,
            (1, 100 + TOOL_OUTPUT_TOKENS, 256),
        ),
    ],
)
def test_the_worst_case_of_an_agent_cell(limits, prompt, max_tokens, expected):
    assert worst_case(agent(**limits), prompt, max_tokens) == expected
