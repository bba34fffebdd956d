"""The spend gate and the hard cap: pure checks, the cap under concurrency, and whole
runs on the local server."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.errors import EXIT_BUDGET, EXIT_CONFIRM, BudgetError, ConfirmationRequired
from itemeval.plan.budget import PricedGate, ReplySizes, SpendCap, check_cap, check_gate
from itemeval.plan.estimates import Estimate, EstimateLine
from itemeval.plan.pricing import Price
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer


def line(
    usd_ceiling: float | None,
    usd_expected: float | None = None,
    *,
    calls: int = 10,
    model: str = "m/priced",
) -> EstimateLine:
    expected = usd_ceiling if usd_expected is None else usd_expected
    return EstimateLine(
        stage="generate",
        condition_id=f"c-{model}",
        slug="c",
        model=model,
        calls=calls,
        usd_ceiling=usd_ceiling,
        usd_expected=expected,
        priced=usd_ceiling is not None,
    )


# ---- the gate
# --------------------------------------------------------------------------------------


def test_gate_passes_below_the_threshold_or_with_yes():
    check_gate(Estimate([line(1.0)]), confirm_above=5.0, yes=False, ask=None)
    check_gate(Estimate([line(9.0)]), confirm_above=None, yes=False, ask=None)
    check_gate(Estimate([line(9.0)]), confirm_above=5.0, yes=True, ask=None)


def test_gate_asks_on_a_terminal_and_refuses_without_an_answer():
    questions: list[str] = []
    check_gate(
        Estimate([line(9.0, 2.0)]),
        confirm_above=5.0,
        yes=False,
        ask=lambda q: questions.append(q) or True,
    )
    assert (
        "$9.00" in questions[0] and "$2.00" in questions[0] and "$5.00" in questions[0]
    )
    for ask in (None, lambda q: False):
        with pytest.raises(ConfirmationRequired, match="--yes") as info:
            check_gate(Estimate([line(9.0)]), confirm_above=5.0, yes=False, ask=ask)
        assert info.value.exit_code == EXIT_CONFIRM


def test_gate_counts_the_priced_part_when_a_model_has_no_price():
    mixed = Estimate([line(9.0), line(None, model="m/unpriced")])
    with pytest.raises(ConfirmationRequired, match="m/unpriced"):
        check_gate(mixed, confirm_above=5.0, yes=False, ask=None)
    check_gate(
        Estimate([line(1.0), line(None, model="m/unpriced")]),
        confirm_above=5.0,
        yes=False,
        ask=None,
    )


# ---- the cap, before a run
# ----------------------------------------------------------------------------------


def test_check_cap():
    assert check_cap(Estimate([line(9.0)]), None) == []
    assert (
        check_cap(Estimate([line(None, calls=0, model="m/unpriced")]), 1.0) == []
    )  # nothing would run
    assert check_cap(Estimate([line(0.5)]), 1.0) == []
    with pytest.raises(BudgetError, match="m/unpriced has no price") as info:
        check_cap(Estimate([line(0.5), line(None, model="m/unpriced")]), 1.0)
    assert info.value.exit_code == EXIT_BUDGET
    [likely] = check_cap(Estimate([line(4.0, 2.0, calls=10)]), 1.0)
    assert (
        "expected spend $2.00 exceeds max_usd $1.00" in likely
        and "50%" in likely
        and "10 calls" in likely
    )
    [maybe] = check_cap(Estimate([line(4.0, 0.5)]), 1.0)
    assert "worst case $4.00 exceeds max_usd $1.00" in maybe


# ---- the cap, during a run
# --------------------------------------------------------------------------------


class Ledger:
    """Watches a SpendCap: the most that was ever spent or reserved at once."""

    def __init__(self, cap: SpendCap) -> None:
        self.cap, self.peak = cap, 0.0

    def look(self) -> None:
        self.peak = max(self.peak, self.cap.spent + sum(self.cap._in_flight.values()))


def test_concurrent_reserve_and_settle_never_exceed_the_cap():
    async def scenario() -> tuple[SpendCap, Ledger, list[bool]]:
        cap = SpendCap(cap=1.0)
        ledger = Ledger(cap)
        rng = random.Random(7)

        async def call(index: int) -> bool:
            worst = rng.uniform(0.05, 0.2)
            if not await cap.reserve(f"k{index}", worst):
                return False
            ledger.look()
            await asyncio.sleep(rng.uniform(0, 0.01))
            await cap.settle(f"k{index}", worst * rng.uniform(0.3, 1.0))
            ledger.look()
            return True

        results = await asyncio.gather(*(call(i) for i in range(200)))
        return cap, ledger, results

    cap, ledger, results = asyncio.run(scenario())
    assert ledger.peak <= 1.0 + 1e-12 and cap.spent <= 1.0 + 1e-12
    assert cap.stopped and 5 < sum(results) < 200 and not cap._in_flight
    assert (
        cap.spent > 0.8
    )  # waiting for calls in flight to settle let most of the room be used


def test_a_call_waits_for_room_and_a_call_that_can_never_fit_stops_the_run():
    async def scenario() -> list[Any]:
        cap = SpendCap(cap=1.0)
        assert await cap.reserve("a", 0.6)
        waiting = asyncio.create_task(cap.reserve("b", 0.6))
        await asyncio.sleep(0.01)
        assert not waiting.done()  # 0.6 + 0.6 > 1: b waits for a
        await cap.settle("a", 0.3)
        assert await waiting  # 0.3 spent + 0.6 fits now
        await cap.settle("b", 0.6)
        return [
            cap.spent,
            await cap.reserve("c", 0.2),
            cap.stopped,
            await cap.reserve("d", 0.01),
        ]

    spent, fits, stopped, after = asyncio.run(scenario())
    assert (
        spent == pytest.approx(0.9)
        and fits is False
        and stopped is True
        and after is False
    )


def test_two_tasks_with_the_same_sample_id_both_count_in_flight():
    """Generate conditions share sample ids (`a1#1`): one task's reservation must not
    hide another's."""

    async def scenario() -> tuple[bool, bool, bool, float]:
        cap = SpendCap(cap=2.0)
        cap.replies[""] = ReplySizes(confirmed=5)  # max_tokens honoured: no slow start
        price = Price(
            input=0.0, output=1_000_000.0
        )  # $1 per output token: each call's worst case is $1
        first, second = (
            PricedGate(cap=cap, price=price, max_tokens=1) for _ in range(2)
        )
        a = await first.acquire("a1#1", "")
        b = await second.acquire("a1#1", "")
        third = asyncio.create_task(first.acquire("a2#1", ""))
        await asyncio.sleep(0.01)
        blocked = not third.done()  # $2 are in flight: a third call must wait
        await first.release("a1#1", {"input_tokens": 0, "output_tokens": 1}, False)
        await second.release("a1#1", {"input_tokens": 0, "output_tokens": 1}, False)
        return a and b, blocked, await third, cap.spent

    both, blocked, third, spent = asyncio.run(scenario())
    assert both and blocked and third is False and spent == 2.0


def test_priced_gate_reserves_the_worst_case_and_settles_actual_usage():
    price = Price(
        input=1_000_000.0, output=2_000_000.0
    )  # $1 an input token, $2 an output token

    async def scenario() -> list[Any]:
        too_small = SpendCap(cap=15.0)
        gate = PricedGate(cap=too_small, price=price, max_tokens=2)
        refused = await gate.acquire(
            "x", "abcd"
        )  # worst: (4 bytes + 8) * $1 + 2 * $2 = $16 > $15
        cap = SpendCap(cap=100.0)
        gate = PricedGate(cap=cap, price=price, max_tokens=2)
        spent = []
        for usage, hit in (
            ({"input_tokens": 3, "output_tokens": 2}, False),
            ({"input_tokens": 3, "output_tokens": 2}, True),
            (None, False),
        ):
            assert await gate.acquire("x", "abcd")
            assert cap._in_flight and sum(cap._in_flight.values()) == 16.0
            await gate.release("x", usage, hit)
            spent.append(cap.spent)
        return [refused, too_small.stopped, spent]

    assert asyncio.run(scenario()) == [False, True, [7.0, 7.0, 7.0]]


# ---- whole runs
# --------------------------------------------------------------------------------------

ROWS = [
    {
        "qid": f"q{i:02d}",
        "question": f"What is {i} + {i + 1}?",
        "answer": str(2 * i + 1),
        "difficulty": "x",
    }
    for i in range(10)
]
PRICE_PER_OUTPUT_TOKEN = 0.001


@pytest.fixture
def server(monkeypatch):
    """The local server as `openai-api/local/*` (inspect memoizes models by name, so
    forget them)."""
    from inspect_ai.model import _model

    with OpenAIServer(delay=0.2) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        yield srv
    _model._models.clear()


def capped_study(root: Path, *, priced: bool = True, **overrides: Any) -> Path:
    """2 prompts × 10 items on `openai-api/local/m`; 5-token replies at $0.001 a
    token ($0.005 a call)."""
    config = base_config(
        **{
            "cache": False,
            "solvers__models": ["openai-api/local/m"],
            "solvers__max_tokens": 5,
            "solvers__max_retries": 0,
            "solvers__max_connections": 8,
            "facets__prompt": ["p", "builtin:minimal"],
            **({"budget__pricing_path": "pricing.json"} if priced else {}),
            **overrides,
        }
    )
    path = write_study(root, config, rows=ROWS)
    (root / "pricing.json").write_text(
        json.dumps(
            {
                "models": {
                    "openai-api/local/m": {
                        "input": 0.0,
                        "output": PRICE_PER_OUTPUT_TOKEN * 1e6,
                    }
                }
            }
        )
    )
    return path


def run(capsys, *args: str) -> tuple[int, dict[str, Any]]:
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_gate_without_yes_exits_3_and_writes_nothing(tmp_path, capsys):
    config = write_study(tmp_path, base_config(budget={"confirm_above_usd": 0.0001}))
    assert main(["generate", str(config)]) == EXIT_CONFIRM
    err = capsys.readouterr().err
    assert "--yes" in err and err.index("estimate: 4 calls") < err.index(
        "--yes"
    )  # the estimate came first
    study = tmp_path / "studies" / "t"
    assert not study.exists()  # no store, pin, manifest, log or lock left behind
    code, result = run(capsys, "generate", str(config), "--yes")
    assert (
        code == 0
        and result["totals"]["rows"] == 4
        and len(list(study.glob("manifests/*.json"))) == 1
    )


def test_the_hard_cap_stops_mid_run_and_a_higher_cap_continues(
    tmp_path, capsys, server
):
    config = capped_study(tmp_path)
    cap = 0.0751  # room for 15 of the 20 $0.005 calls
    code, result = run(capsys, "generate", str(config), "--max-usd", str(cap))
    solutions = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    seen = (
        f"{result} requests={len(server.requests)} statuses={server.statuses} "
        f"rows={len(solutions)}"
    )
    assert code == EXIT_BUDGET and result["outcome"] == "budget_stopped", seen
    assert any(
        "exceeds max_usd" in note for note in result["notes"]
    )  # said before the first call
    assert server.max_in_flight > 1, seen  # calls did run concurrently under the cap
    manifest = json.loads(Path(result["manifest"]).read_text())
    assert (
        manifest["outcome"] == "budget_stopped"
        and manifest["estimate"]["total"]["calls"] == 20
    )

    assert (
        solutions["error"].isna().all() and (solutions["output_tokens"] == 5).all()
    ), seen
    assert (
        solutions["usd"].sum() <= cap and len(solutions) == len(server.requests) == 15
    ), seen
    assert manifest["spend_usd"] == pytest.approx(solutions["usd"].sum())
    status = run(capsys, "status", str(config))[1]["generate"]
    assert (
        sum(row["missing"] for row in status) == 5
        and sum(row["errors"] for row in status) == 0
    )
    assert (
        main(["generate", str(config), "--max-usd", "0.001"]) == EXIT_BUDGET
    )  # no call fits at all
    err = capsys.readouterr().err
    assert "exceeds max_usd" in err and "5 cells were not run and stay missing" in err
    assert len(server.requests) == 15

    code, result = run(capsys, "generate", str(config), "--max-usd", "1")
    assert (
        code == 0 and result["outcome"] == "completed" and result["totals"]["rows"] == 5
    )
    prompts = Counter(
        body["messages"][-1]["content"]
        if isinstance(body["messages"][-1]["content"], str)
        else json.dumps(body["messages"][-1]["content"])
        for body in server.requests
    )
    assert len(prompts) == 20 and set(prompts.values()) == {
        1
    }  # nothing was paid for twice
    assert len(pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")) == 20


def test_an_unpriced_model_under_a_cap_is_refused_before_any_call(
    tmp_path, capsys, server
):
    config = capped_study(tmp_path, priced=False)
    assert main(["generate", str(config), "--max-usd", "1"]) == EXIT_BUDGET
    assert "openai-api/local/m has no price" in capsys.readouterr().err
    assert server.requests == []
    assert not (tmp_path / "studies" / "t" / "solutions.parquet").exists()
    assert not (tmp_path / "studies" / "t" / ".lock").exists()  # nothing left behind


def test_a_provider_ignoring_max_tokens_stops_the_run_and_the_overrun_is_reported(
    tmp_path, capsys, monkeypatch
):
    from inspect_ai.model import _model

    with OpenAIServer(
        delay=0.2, overlong_reply=400
    ) as srv:  # ~100 tokens a reply at max_tokens 5: 20x the worst case
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        config = capped_study(tmp_path)
        code, result = run(capsys, "generate", str(config), "--max-usd", "0.0751")
    _model._models.clear()
    solutions = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    spent = solutions["usd"].sum()
    assert code == EXIT_BUDGET and result["outcome"] == "budget_stopped"
    # Reservations are bounded by the model's connections (8): the calls in flight when
    # the first overlong reply came back still cost what they cost, and none started
    # after it (the worst-case bound alone allowed 15). How many were in flight by then
    # depends on the machine's speed; more than 8 never are.
    assert spent > 0.0751 and 1 <= len(srv.requests) == len(solutions) <= 8
    (note,) = [n for n in result["notes"] if "went over max_usd" in n]
    assert "max_tokens" in note
    manifest = json.loads(Path(result["manifest"]).read_text())
    assert manifest["overrun_usd"] == pytest.approx(spent - 0.0751)


def _spend_against(
    tmp_path, capsys, monkeypatch, *, overlong, connections, cap, wave=0
):
    """(exit code, spend, requests, peak calls in flight) of one capped generate.

    With `wave`, the server answers the first call at once (the slow start's probe)
    and then nothing until that many calls are in flight together (or 60 s pass), so a
    gate that holds calls back shows as a lower peak however slow the machine;
    otherwise each call takes 0.3 s.
    """
    from inspect_ai.model import _model

    full = threading.Event()
    arrived = itertools.count()

    def hold_for_the_wave(_prompt: str) -> float:
        if next(arrived) == 0:
            return 0.0
        if srv.in_flight >= wave:
            full.set()
        if not full.wait(60):
            full.set()  # one timeout, not one per call
        return 0.0

    srv = OpenAIServer(
        delay=hold_for_the_wave if wave else 0.3, overlong_reply=overlong
    )
    with srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        config = capped_study(
            tmp_path,
            solvers__max_tokens=16,
            solvers__max_connections=connections,
            facets__prompt=["p", "builtin:minimal", "builtin:standard"],
        )
        code, result = run(capsys, "generate", str(config), "--max-usd", str(cap))
    _model._models.clear()
    solutions = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    return code, float(solutions["usd"].sum()), len(srv.requests), srv.max_in_flight


@pytest.mark.parametrize(("connections", "cap"), [(20, 0.2), (40, 0.6)])
def test_a_provider_ignoring_max_tokens_overshoots_by_two_calls_at_most(
    tmp_path, capsys, monkeypatch, connections, cap
):
    # Issue 26 case 2 at this test's prices ($0.001 a token): max_tokens 16 ($0.016 a
    # reply) but ~250-token replies ($0.25): before, the whole first wave was paid.
    code, spent, requests, _ = _spend_against(
        tmp_path, capsys, monkeypatch, overlong=1000, connections=connections, cap=cap
    )
    call = spent / requests
    assert code == EXIT_BUDGET
    assert spent <= cap + 2 * call, (spent, requests)


def test_an_honest_provider_is_not_slowed_by_the_slow_start(
    tmp_path, capsys, monkeypatch
):
    # 30 cells at $0.016 + input: a cap of $0.6 is within reach of 20 connections' worst
    # cases ($0.4 + input), yet once the first reply has shown that the provider keeps
    # to max_tokens, a whole wave goes out
    code, spent, requests, peak = _spend_against(
        tmp_path, capsys, monkeypatch, overlong=0, connections=20, cap=0.6, wave=15
    )
    assert code == 0 and requests == 30 and spent <= 0.6
    assert peak >= 15  # the first wave went out whole


def test_the_slow_start_widens_as_replies_confirm_max_tokens_and_reserves_the_largest():
    """Issue 26 case 2, at the gate: a cap within reach of a wave of worst cases."""

    async def scenario() -> tuple[list[bool], list[bool], float]:
        cap = SpendCap(cap=5.0)
        gate = PricedGate(cap=cap, price=Price(input=0.0, output=1e6), max_tokens=1)
        assert await gate.acquire("a", "")  # the first call always goes
        second = asyncio.create_task(gate.acquire("b", ""))
        await asyncio.sleep(0.01)
        held = [not second.done()]  # unconfirmed: one call at a time
        await gate.release("a", {"output_tokens": 1}, False)  # honoured max_tokens
        held.append(await second)
        third = asyncio.create_task(gate.acquire("c", ""))
        await asyncio.sleep(0.01)
        held.append(third.done())  # one confirmation: two in flight
        await gate.release("b", {"output_tokens": 3}, False)  # $3: went beyond
        assert await third
        fourth = asyncio.create_task(gate.acquire("d", ""))
        await asyncio.sleep(0.01)
        # $4 spent + $1 in flight: a call now reserves the largest reply ($3): no fit
        await gate.release("c", {"output_tokens": 1}, False)
        return held, [await fourth], cap.spent

    held, last, spent = asyncio.run(scenario())
    assert held == [True, True, True] and last == [False] and spent == 5.0


def test_hold_most_holds_the_requests_that_fit_in_order():
    cap = SpendCap(cap=1.0, spent=0.25)
    assert cap.hold_most([0.25, 0.25, 0.25, 0.25]) == 3
    assert cap.spent == pytest.approx(1.0)
    assert cap.hold_most([0.1]) == 0 and cap.spent == pytest.approx(1.0)
    assert not cap.stopped  # the holder decides: an open batch may free room


def test_hold_most_takes_more_of_a_lease_before_cutting_the_batch():
    class Lease:
        def __init__(self, left: float) -> None:
            self.left = left

        def take(self, need: float) -> float:
            granted, self.left = min(need, self.left), self.left - min(need, self.left)
            return granted

        def settle(self, spent: float) -> None:
            pass

    cap = SpendCap(cap=0.0, lease=Lease(0.5))
    assert cap.hold_most([0.25, 0.25, 0.25]) == 2  # the lease had two of three
    assert cap.cap == pytest.approx(0.5) and cap.spent == pytest.approx(0.5)
