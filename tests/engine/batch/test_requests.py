"""Pure parts of batch mode: request lines, result lines, prices, the waiting line."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from itemeval.engine.batch import ledger
from itemeval.engine.batch.client import Status
from itemeval.engine.batch.display import age_text, waiting_line
from itemeval.engine.batch.ledger import Request
from itemeval.engine.batch.requests import (
    provider_model,
    request_key,
    request_line,
    result,
)
from itemeval.plan.pricing import load_prices
from itemeval.records import Cell, TaskSpec


@pytest.mark.parametrize(
    "model, expected",
    [
        ("openai/gpt-4.1-mini", ("openai", "gpt-4.1-mini")),
        ("openai-api/local/test-model", ("local", "test-model")),
        ("openai-api/together/meta/llama-3", ("together", "meta/llama-3")),
        ("anthropic/claude-sonnet-4-5", None),
        ("openai-api/local", None),
    ],
)
def test_provider_model(model, expected):
    assert provider_model(model) == expected


def _spec(model: str, **config) -> TaskSpec:
    return TaskSpec("c1", model, config, [], None, {})


CELL = Cell(
    "a1#1",
    "What is 2 + 3?",
    {"condition_id": "c1", "item_id": "a1", "replication": 1},
    preamble=(("system", "Be brief."),),
)


def test_request_line_carries_messages_and_sampling_but_not_inspect_settings():
    spec = _spec(
        "openai-api/local/m",
        temperature=0.5,
        max_tokens=64,
        stop_seqs=["\n\n"],
        max_retries=3,
        timeout=600,
        batch=True,
    )
    line = request_line(spec, CELL, "k1")
    assert line["custom_id"] == "k1" and line["url"] == "/v1/chat/completions"
    assert line["body"] == {
        "model": "m",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is 2 + 3?"},
        ],
        "temperature": 0.5,
        "max_tokens": 64,
        "stop": ["\n\n"],
    }
    openai_line = request_line(_spec("openai/gpt-4.1", max_tokens=64), CELL, "k")
    assert openai_line["body"]["max_completion_tokens"] == 64


def test_a_judges_later_draw_is_sent_with_its_own_seed_in_a_batch_too():
    spec = _spec("openai-api/local/m", temperature=0.0)
    first = request_line(spec, CELL, "k1")["body"]
    later = replace(CELL, sample_id="a1#1~draw3", metadata={**CELL.metadata, "draw": 3})
    third = request_line(spec, later, "k3")["body"]
    assert "seed" not in first and third["seed"] == 3
    assert {k: v for k, v in third.items() if k != "seed"} == first


def test_request_keys_are_stable_and_distinct():
    key = request_key("generate", "c1", "a1#1")
    assert key == request_key("generate", "c1", "a1#1") and len(key) == 32
    assert key != request_key("grade", "c1", "a1#1")
    assert key != request_key("generate", "c1", "a1#2")


def _output(status: int, body: dict) -> dict:
    return {
        "id": "r1",
        "custom_id": "k1",
        "response": {"status_code": status, "body": body},
    }


def test_an_output_line_becomes_a_sample_result():
    body = {
        "choices": [{"message": {"content": "ANSWER: 5"}, "finish_reason": "length"}],
        "usage": {
            "prompt_tokens": 20,
            "completion_tokens": 4,
            "total_tokens": 24,
            "prompt_tokens_details": {"cached_tokens": 5},
        },
    }
    got = result(
        _output(200, body),
        Request("t", CELL.metadata, sent_bytes=80),
        {"max_tokens": 4, "batch": 2},
        log_file="batches/x.json",
        logprob_tokens=8,
    )
    assert got.completion == "ANSWER: 5" and got.stop_reason == "max_tokens"
    assert got.error is None and got.metadata["item_id"] == "a1"
    assert got.usage["input_tokens"] == 15 and got.usage["cache_read_tokens"] == 5
    assert got.effective_config == {"max_tokens": 4}


@pytest.mark.parametrize(
    "line, message",
    [
        (_output(500, {"error": {"message": "boom"}}), "HTTP 500: boom"),
        ({"custom_id": "k1", "error": {"message": "expired"}}, "expired"),
    ],
)
def test_error_lines_become_error_results(line, message):
    got = result(line, Request("t", {}), {}, log_file="x", logprob_tokens=8)
    assert got.completion is None and message in got.error
    assert got.usage["input_tokens"] is None


def test_batch_discount_per_provider_and_per_model(tmp_path):
    prices = tmp_path / "p.json"
    prices.write_text(
        json.dumps(
            {
                "models": {
                    "openai-api/local/m": {"input": 1, "output": 2, "batch": 0.4},
                    "openai/gpt-x": {"input": 1, "output": 2, "batch": 1.0},
                },
                "batch": {"mistral": 0.5},
            }
        )
    )
    table = load_prices(prices)
    assert table.batch_factor("openai/gpt-4.1-mini") == 0.5
    assert table.batch_factor("anthropic/claude-sonnet-4-5") == 0.5
    assert table.batch_factor("openai-api/local/m") == 0.4
    assert table.batch_factor("openai/gpt-x") == 1.0
    assert table.batch_factor("mistral/large") == 0.5
    assert table.batch_factor("openai-api/other/m") == 1.0  # unknown host: live price


@pytest.mark.parametrize(
    "seconds, text", [(5, "5s"), (125, "2m"), (3600 * 3 + 300, "3h05m"), (-1, "0s")]
)
def test_age_text(seconds, text):
    assert age_text(seconds) == text


def test_waiting_line_counts_batches_and_requests():
    def sub(name: str, created: float, n: int) -> ledger.Submission:
        requests = {f"{name}{i}": ledger.Request("c", {}) for i in range(n)}
        return ledger.Submission(
            name, "generate", "m", "r", {}, requests, created_at=created
        )

    waiting = [sub("a", 1000.0, 3), sub("b", 1500.0, 2)]
    statuses = {"a": Status("in_progress", None, None, 1, 1, 3)}
    line = waiting_line(waiting, statuses, 4, now=1000.0 + 7200)
    assert line == (
        "batches: 2 open (1 in progress), 4 requests collected, 2/5 answered in "
        "open batches, oldest 2h00m"
    )
