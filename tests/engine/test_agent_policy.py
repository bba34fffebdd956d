"""The offline tool user (engine/offline/agent.py) and the compact transcript
(engine/transcripts.py), as tables of cases."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from itemeval.engine.offline.agent import Action, ToolOffer, Turn, next_action
from itemeval.engine.transcripts import TRANSCRIPT_LIMIT, render, trajectory

CALC = ToolOffer("calculator", ("expression",))
SUBMIT = ToolOffer("submit", ("answer",))
PY = ToolOffer("python", ("code",))
BASH = ToolOffer("bash", ("cmd",))
Q = Turn("user", "What is 6 * 7 + 8?")


@pytest.mark.parametrize(
    ("turns", "tools", "expected"),
    [
        # first step, then the second on the tool's value, then the answer
        (
            [Q],
            [CALC, SUBMIT],
            Action("Step 1: 6 * 7", "calculator", {"expression": "6 * 7"}),
        ),
        (
            [Q, Turn("assistant", "Step 1"), Turn("tool", "42", "calculator")],
            [CALC, SUBMIT],
            Action("Step 2: 42 + 8", "calculator", {"expression": "42 + 8"}),
        ),
        (
            [Q, Turn("tool", "42", "calculator"), Turn("tool", "50", "calculator")],
            [CALC, SUBMIT],
            Action("Done.", "submit", {"answer": "ANSWER: 50"}),
        ),
        # no submit tool: the answer as text
        (
            [Q, Turn("tool", "42", "calculator"), Turn("tool", "50", "calculator")],
            [CALC],
            Action("The tool computed it.\nANSWER: 50"),
        ),
        # the tool's own (wrong) value is what the model believes
        (
            [Q, Turn("tool", "42", "calculator"), Turn("tool", "51", "calculator")],
            [CALC],
            Action("The tool computed it.\nANSWER: 51"),
        ),
        # python takes code, bash a command
        ([Q], [PY], Action("Step 1: 6 * 7", "python", {"code": "print(6 * 7)"})),
        (
            [Q],
            [BASH],
            Action("Step 1: 6 * 7", "bash", {"cmd": "python3 -c 'print(6 * 7)'"}),
        ),
        # think and submit compute nothing; no problem, nothing to do
        ([Q], [ToolOffer("think", ("thought",)), SUBMIT], None),
        ([Turn("user", "Hello there")], [CALC], None),
        # a nudge to continue states no problem: the earlier one is worked
        (
            [Q, Turn("user", "Please proceed to the next step.")],
            [CALC],
            Action("Step 1: 6 * 7", "calculator", {"expression": "6 * 7"}),
        ),
        # a tool without a string parameter cannot take an expression
        ([Q], [ToolOffer("counter", ())], None),
    ],
)
def test_the_offline_tool_user_works_a_problem_step_by_step(turns, tools, expected):
    assert next_action(turns, tools, right=True, key=("k",)) == expected


def test_a_wrong_draw_slips_about_half_the_time_after_the_tool():
    done = [Q, Turn("tool", "42", "calculator"), Turn("tool", "50", "calculator")]
    answers = [
        next_action(done, [CALC], right=False, key=(i,)).text.rsplit(" ", 1)[-1]
        for i in range(400)
    ]
    slipped = sum(a != "50" for a in answers) / len(answers)
    assert 0.4 < slipped < 0.6 and set(answers) == {"50", "51"}


def _message(role, text, calls=(), function=None):
    return SimpleNamespace(
        role=role,
        text=text,
        function=function,
        error=None,
        tool_calls=[SimpleNamespace(function=f, arguments=a) for f, a in calls],
    )


def test_a_trajectory_counts_the_models_turns_and_its_work_not_its_answer():
    messages = [
        _message("system", "You are an agent."),
        _message("user", "What is 6 * 7?"),
        _message("assistant", "Step 1", [("calculator", {"expression": "6 * 7"})]),
        _message("tool", "42", function="calculator"),
        _message("assistant", "Done.", [("submit", {"answer": "42"})]),
    ]
    found = trajectory(messages)
    assert (found.turns, found.tool_calls, found.tools_used) == (2, 1, ["calculator"])
    assert found.transcript.splitlines() == [
        "[user] What is 6 * 7?",
        "[assistant] Step 1",
        '  -> calculator({"expression": "6 * 7"})',
        "[tool calculator] 42",
        "[assistant] Done.",
        '  -> submit({"answer": "42"})',
    ]


def test_a_long_transcript_keeps_its_start_and_end():
    messages = (
        [_message("user", "start")]
        + [_message("tool", "x" * 1000, function="bash") for _ in range(30)]
        + [_message("assistant", "the end")]
    )
    text = render(messages)
    assert len(text) <= TRANSCRIPT_LIMIT
    assert text.startswith("[user] start") and text.endswith("[assistant] the end")
    assert "characters cut]" in text
    one = render([_message("tool", "y" * 5000, function="bash")])
    assert len(one) < 1300 and "characters cut" in one
