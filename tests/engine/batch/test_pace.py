"""Batches under a cap against a provider that ignores max_tokens (issue 49): a
model's first batch is one request, alone; once a reply went past max_tokens each
batch goes alone and is cut to fit at the longest reply seen."""

from __future__ import annotations

import json

import pytest

from itemeval.engine.batch import ledger, pace
from itemeval.plan.budget import SpendCap
from itemeval.plan.estimates import MESSAGE_OVERHEAD_TOKENS
from itemeval.plan.pricing import Price, PriceTable, normalise_model_id
from tests.engine.batch.test_executor import batch_study, run, serve, solutions
from tests.helpers import base_config, write_study

MODEL = "openai-api/local/test-model"
PRICE = {"input": 1.0, "output": 500.0, "batch": 0.5}
"""Dear output tokens: a reply of ~2,000 tokens costs ~$0.50 at the batch price, one
of the 16 asked for ~$0.004."""
LONG = 8000
"""Characters the server adds to every reply, ignoring max_tokens: ~2,000 tokens."""


def hostile_study(root, *, items: int, size: int):
    (root / "prices.json").write_text(json.dumps({"models": {MODEL: PRICE}}))
    rows = [
        {"qid": f"q{i:02d}", "question": f"What is {i} + 1?", "answer": str(i + 1)}
        for i in range(items)
    ]
    config = base_config(
        **{
            "solvers__models": [MODEL],
            "solvers__max_retries": 0,
            "solvers__max_tokens": 16,
            "cache": False,
            "benchmark__mapping__metadata": [],
            "budget__batch": size,
            "budget__pricing_path": "prices.json",
        }
    )
    return write_study(root, config, rows=rows)


def reply_usd(output_tokens: int) -> float:
    return output_tokens * PRICE["output"] * PRICE["batch"] / 1e6


def batch_sizes(srv) -> list[int]:
    return [b["request_counts"]["total"] for b in srv.batches.batches.values()]


@pytest.mark.parametrize("size", [10, 100])
def test_a_provider_ignoring_max_tokens_overshoots_a_batch_cap_by_one_batch_at_most(
    tmp_path, capsys, monkeypatch, size
):
    """Before: every batch was created at once, each reserved at 16-token replies:
    20 requests of ~$0.50 under a $3 cap spent ~$10."""
    cap = 3.0
    path = hostile_study(tmp_path, items=20, size=size)
    with serve(monkeypatch, overlong_reply=LONG) as srv:
        srv.batches.auto_complete = True
        code, result = run(
            capsys, "generate", str(path), "--yes", "--max-usd", str(cap)
        )
        sizes = batch_sizes(srv)
    assert code == 4 and result["outcome"] == "budget_stopped", result
    rows = solutions(tmp_path)
    longest = int(rows["output_tokens"].max())
    assert longest > 1900  # the provider did ignore max_tokens
    # README "Batch mode": the overshoot is at most what one batch's replies ran past
    # what was reserved for them; the first batch, of one request, reserved 16 tokens,
    # every later one the longest reply seen before it (within a few tokens of each
    # reply here)
    first = reply_usd(longest - 16)
    later = reply_usd(10) * max(sizes)
    spent = float(rows["usd"].sum())
    assert spent <= cap + max(first, later), (spent, sizes)
    assert sizes[0] == 1 and sum(sizes) == len(rows) < 20
    manifest = json.loads(open(result["manifest"]).read())
    assert manifest["batch"]["submitted"] == len(sizes)


def test_a_batch_that_does_not_fit_waits_for_open_ones_to_free_room(
    tmp_path, capsys, monkeypatch
):
    # Under $0.0008, once the first request is answered (~$0.00002), a batch of two
    # holds $0.00056 at its worst and the last request ($0.00028) would cross the
    # cap: it goes once that batch is answered, for what it cost.
    path = batch_study(tmp_path)
    with serve(monkeypatch) as srv:
        srv.batches.auto_complete = True
        code, result = run(
            capsys, "generate", str(path), "--yes", "--max-usd", "0.0008"
        )
        assert code == 0, result
        sizes = [b["request_counts"]["total"] for b in srv.batches.batches.values()]
        assert sizes == [1, 2, 1]
    assert solutions(tmp_path)["usd"].sum() <= 0.0008


def _submission(model: str = MODEL, requests: int = 2, **config) -> ledger.Submission:
    return ledger.Submission(
        id=f"s-{model}-{requests}",
        stage="generate",
        model=model,
        run_id="r",
        config={"max_tokens": 16, **config},
        requests={
            f"k{i}": ledger.Request("c", {}, worst_usd=0.01, sent_bytes=100)
            for i in range(requests)
        },
        price_factor=0.5,
    )


def test_a_model_s_first_batch_is_small_and_alone_until_a_reply_is_seen():
    cap = SpendCap(cap=10.0)
    assert pace.limit(None, [], MODEL, 500) == 500  # no cap: as before
    assert pace.limit(cap, [], MODEL, 500) == pace.FIRST_BATCH
    assert pace.limit(cap, [_submission()], MODEL, 500) == 0
    assert pace.limit(cap, [_submission("other")], MODEL, 500) == 1


def test_replies_within_max_tokens_give_full_batches_at_once():
    cap = SpendCap(cap=10.0)
    pace.learn(cap, _submission(), {"output_tokens": 16})
    assert pace.limit(cap, [_submission()], MODEL, 500) == 500
    assert pace.ceiling(cap, MODEL, 16) == 16


def test_a_reply_past_max_tokens_makes_batches_alone_at_the_longest_reply():
    cap = SpendCap(cap=10.0)
    pace.learn(cap, _submission(), {"output_tokens": 12})
    pace.learn(cap, _submission(), {"output_tokens": 2000})
    assert pace.limit(cap, [_submission()], MODEL, 500) == 0
    assert pace.limit(cap, [], MODEL, 500) == 500
    assert pace.ceiling(cap, MODEL, 16) == 2000
    assert pace.ceiling(cap, MODEL, 4000) == 4000  # never below max_tokens


def test_open_batches_are_held_again_at_the_longest_reply_seen():
    prices = PriceTable(prices={normalise_model_id(MODEL): Price(**PRICE)})
    cap = SpendCap(cap=10.0, spent=0.02)
    open_batch = _submission()
    reserved = {open_batch.id: 0.02}
    pace.reprice(cap, prices, [open_batch], reserved)
    assert reserved[open_batch.id] == 0.02  # nothing seen past max_tokens: as held
    pace.learn(cap, open_batch, {"output_tokens": 2000})
    pace.reprice(cap, prices, [open_batch], reserved)
    each = 0.5 * Price(**PRICE).cost(100 + MESSAGE_OVERHEAD_TOKENS, 2000)
    assert reserved[open_batch.id] == pytest.approx(2 * each)
    assert cap.spent == pytest.approx(2 * each)
