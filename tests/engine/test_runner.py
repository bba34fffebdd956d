"""Cells are fed to inspect so the connections stay busy while calls are slow: a held
call never stops the others from being started (issue 27, "no lockstep").

Event-bound: the server holds calls until an event, never for a time; no assertion
depends on the machine's speed.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from itemeval.cli import main
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer

CELLS, LIMIT = 24, 4
HELD = ("[q0]", "[q5]")  # two slow calls far apart in the queue
WAIT_S = 120.0  # a generous bound: only reached when feeding stalls


def _study(tmp_path):
    rows = [
        {"qid": f"q{i}", "question": f"[q{i}] What is {i} + 1?", "answer": str(i + 1)}
        for i in range(CELLS)
    ]
    config = base_config(
        solvers__models=["openai-api/local/m"], solvers__max_connections=LIMIT
    )
    config["benchmark"]["mapping"]["metadata"] = []
    return write_study(tmp_path, config, rows=rows, prompt="{input}")


@pytest.mark.parametrize("in_flight", ["8", "600"])
def test_two_held_calls_never_stop_the_others_being_started(
    tmp_path, capsys, monkeypatch, in_flight
):
    # Two calls are held at the server until every other cell has arrived. Every other
    # call is answered only once the calls in flight reach the connection limit (or
    # every cell has arrived): feeding that waited for a held call (a task ending
    # on its slowest call before the next starts) would stall here until WAIT_S.
    monkeypatch.setenv("ITEMEVAL_CELLS_IN_FLIGHT", in_flight)
    path = _study(tmp_path)
    everyone_arrived, stalled = threading.Event(), []
    server: list[OpenAIServer] = []

    def delay(prompt: str) -> float:
        srv = server[0]
        if len(srv.calls) >= CELLS:
            everyone_arrived.set()
        if any(mark in prompt for mark in HELD):
            everyone_arrived.wait(WAIT_S)
            return 0.0
        deadline = time.monotonic() + WAIT_S
        while srv.in_flight < LIMIT and not everyone_arrived.is_set():
            if time.monotonic() > deadline:
                stalled.append(prompt)
                break
            time.sleep(0.01)
        return 0.0

    with OpenAIServer(delay=delay) as srv:
        server.append(srv)
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        capsys.readouterr()
        code = main(["generate", str(path), "--json"])
        result = json.loads(capsys.readouterr().out)
        held_replies = [
            call["replied"]
            for call in srv.calls
            if any(mark in call["prompt"] for mark in HELD)
        ]
        others_arrived = [
            call["arrived"]
            for call in srv.calls
            if not any(mark in call["prompt"] for mark in HELD)
        ]

    assert stalled == [], f"feeding stalled behind the held calls: {stalled}"
    assert code == 0 and result["totals"]["rows"] == CELLS
    assert len(srv.calls) == CELLS  # one call per cell, none repeated
    # every other cell was started while both held calls were still open
    assert len(held_replies) == 2 and max(others_arrived) < min(held_replies)
    assert srv.max_in_flight == LIMIT  # the limit was reached and never passed
