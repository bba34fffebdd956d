"""A provider's token counts that cannot be true are charged at the call's worst case
(issue 49: `prompt_tokens: -10000000` let 400 calls of a $1-capped run through)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.errors import EXIT_BUDGET
from itemeval.plan.usage_check import CallText, check_usage, reported_json
from tests.helpers import NO_METADATA, base_config, write_study
from tests.openai_server import OpenAIServer

CALL = CallText(sent_bytes=200, reply_bytes=40, max_tokens=16)
"""200 bytes sent, a 40-byte reply, max_tokens 16: the worst case is 208 in (the
chat's 8 tokens of overhead), 40 out (the reply's bytes beat max_tokens)."""
WORST = {"input_tokens": 208, "output_tokens": 40, "total_tokens": 248}


@pytest.mark.parametrize(
    "reported, why",
    [
        ({"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}, None),
        ({"input_tokens": 0, "output_tokens": 0}, None),  # a free call is possible
        ({"input_tokens": None, "output_tokens": None}, None),  # no usage: not a lie
        ({"input_tokens": 50.0, "output_tokens": 10}, None),  # a whole float is whole
        ({"input_tokens": 4000, "output_tokens": 10}, None),  # tools' definitions
        ({"input_tokens": 50, "output_tokens": 4000}, None),  # hidden reasoning
        ({"input_tokens": -10_000_000, "output_tokens": 10}, "below 0"),
        ({"input_tokens": 50, "output_tokens": -1}, "below 0"),
        ({"input_tokens": 50, "output_tokens": 10, "cache_read_tokens": -5}, "below 0"),
        ({"input_tokens": 12.5, "output_tokens": 10}, "not a whole number"),
        ({"input_tokens": float("nan"), "output_tokens": 10}, "not a whole number"),
        ({"input_tokens": float("inf"), "output_tokens": 10}, "not a whole number"),
        ({"input_tokens": "50", "output_tokens": 10}, "not a number"),
        ({"input_tokens": True, "output_tokens": 10}, "not a number"),
        ({"input_tokens": 50, "output_tokens": 10**15}, "past what the call"),
        ({"input_tokens": 10**12, "output_tokens": 10}, "past what the call"),
        ({"input_tokens": 50, "reasoning_tokens": 10**9}, "past what the call"),
    ],
)
def test_counts_that_cannot_be_true_are_the_calls_worst_case(reported, why):
    checked = check_usage(reported, CALL)
    if why is None:
        assert checked.reason is None and checked.reported is None
        assert {k: checked.usage[k] for k in reported} == reported
        return
    assert why in checked.reason
    assert {k: checked.usage[k] for k in WORST} == WORST
    assert checked.reported == {**dict.fromkeys(checked.usage), **reported}
    (kept,) = json.loads(reported_json([checked]))
    assert str(kept["input_tokens"]) == str(reported["input_tokens"])  # as it came


def test_a_call_that_sent_an_image_has_no_input_bound():
    image = CallText(sent_bytes=200, reply_bytes=40, max_tokens=16, sent_more=True)
    assert check_usage({"input_tokens": 10**6}, image).reason is None


def test_the_worst_case_reply_is_max_tokens_when_the_reply_is_shorter():
    checked = check_usage({"input_tokens": -1}, CallText(10, 3, max_tokens=500))
    assert checked.usage["output_tokens"] == 500 and checked.usage["input_tokens"] == 18


INPUT_PRICE = 0.0001
OUTPUT_PRICE = 0.001


def lying_study(root: Path) -> Path:
    """20 cells on the local server's model, each with a 16-token reply ceiling; the
    input and output both priced, so a negative input count would pay the run back."""
    config = base_config(
        cache=False,
        solvers__models=["openai-api/local/m"],
        solvers__max_tokens=16,
        solvers__max_retries=0,
        solvers__max_connections=4,
        facets__prompt=["p", "builtin:minimal"],
        budget__pricing_path="pricing.json",
        benchmark__mapping=NO_METADATA,
    )
    rows = [
        {"qid": f"q{i}", "question": f"What is {i} + 3?", "answer": str(i + 3)}
        for i in range(10)
    ]
    path = write_study(root, config, rows=rows)
    prices = {"input": INPUT_PRICE * 1e6, "output": OUTPUT_PRICE * 1e6}
    (root / "pricing.json").write_text(
        json.dumps({"models": {"openai-api/local/m": prices}})
    )
    return path


def test_a_negative_prompt_count_cannot_switch_the_cap_off(
    tmp_path, capsys, monkeypatch
):
    from inspect_ai.model import _model

    def lie(usage):
        return {**usage, "prompt_tokens": -10_000_000}

    with OpenAIServer(usage=lie) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        config = lying_study(tmp_path)
        code = main(["generate", str(config), "--max-usd", "0.2", "--json"])
        result = json.loads(capsys.readouterr().out)
    _model._models.clear()
    rows = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    # each call is charged its worst case (~$0.02-0.03), never a negative amount: the
    # $0.20 cap stops the run before all 20 cells ran
    assert code == EXIT_BUDGET and result["outcome"] == "budget_stopped"
    assert (rows["usd"] > 0).all() and (rows["input_tokens"] > 0).all()
    assert rows["usd"].sum() <= 0.2
    assert 1 <= len(srv.requests) == len(rows) < 20
    reported = [json.loads(text) for text in rows["usage_reported"]]
    assert all(r[0]["input_tokens"] == -10_000_000 for r in reported)
    assert all("below 0" in r[0]["why"] for r in reported)
    (note,) = [n for n in result["notes"] if "cannot be true" in n]
    assert f"{len(rows)} call(s)" in note and "usage_reported" in note


def test_honest_counts_are_stored_as_reported(tmp_path, capsys, monkeypatch):
    from inspect_ai.model import _model

    with OpenAIServer() as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        config = lying_study(tmp_path)
        assert main(["generate", str(config), "--limit", "2", "--json"]) == 0
        result = json.loads(capsys.readouterr().out)
    _model._models.clear()
    rows = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    assert rows["usage_reported"].isna().all() and len(rows) == 4
    assert not [n for n in result["notes"] if "cannot be true" in n]
    sent = [
        sum(max(1, -(-len(m["content"]) // 4)) for m in body["messages"])
        for body in srv.requests
    ]
    assert sorted(rows["input_tokens"]) == sorted(sent)  # the server's own counts


def _generate(tmp_path, capsys, monkeypatch, server, *args: str):
    from inspect_ai.model import _model

    for key, value in server.env().items():
        monkeypatch.setenv(key, value)
    _model._models.clear()
    config = lying_study(tmp_path)
    code = main(["generate", str(config), *args, "--json"])
    result = json.loads(capsys.readouterr().out)
    _model._models.clear()
    rows = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    return code, result, rows


def test_a_count_that_is_not_whole_keeps_the_paid_reply(tmp_path, capsys, monkeypatch):
    # inspect's own reading refuses 12.5 tokens (the call would end in an error and be
    # paid again on the next run); the reply read at the transport is kept
    with OpenAIServer(usage=lambda u: {**u, "prompt_tokens": 12.5}) as srv:
        code, result, rows = _generate(
            tmp_path, capsys, monkeypatch, srv, "--limit", "3"
        )
        assert code == 0 and len(srv.requests) == 6
    assert rows["error"].isna().all() and len(rows) == 6
    assert rows["solution"].str.contains("ANSWER:").all()
    assert (rows["usd"] > 0).all()
    assert all(
        "not a whole number" in json.loads(t)[0]["why"] for t in rows["usage_reported"]
    )
    with OpenAIServer() as again:  # nothing is paid twice
        code, _, rows = _generate(tmp_path, capsys, monkeypatch, again, "--limit", "3")
        assert code == 0 and again.requests == []


VOLATILE = ["run_id", "created_at", "latency_s", "log_file", "sample_uuid"]


def test_a_reply_read_at_the_transport_makes_the_row_inspect_makes(
    tmp_path, capsys, monkeypatch
):
    from itemeval.engine import reply_capture

    with OpenAIServer() as srv:
        _, _, caught = _generate(
            tmp_path / "a", capsys, monkeypatch, srv, "--limit", "4"
        )
    monkeypatch.setattr(reply_capture, "capture", lambda model: model)
    with OpenAIServer() as srv:
        _, _, read = _generate(tmp_path / "b", capsys, monkeypatch, srv, "--limit", "4")
    key = ["condition_id", "item_id", "epoch"]
    caught = caught.drop(columns=VOLATILE).sort_values(key).reset_index(drop=True)
    read = read.drop(columns=VOLATILE).sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(caught, read)
