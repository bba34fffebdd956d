"""Batch replies in inspect's response cache: a later run asking the same reads them
at $0, as it would a live reply."""

from __future__ import annotations

from itemeval.engine.cache_lookup import model_outputs
from tests.engine.batch.test_executor import batch_study, run, serve, solutions

BODY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1790000000,
    "model": "test-model",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "ANSWER: 5"},
            "finish_reason": "length",
        }
    ],
    "usage": {
        "prompt_tokens": 20,
        "completion_tokens": 4,
        "total_tokens": 24,
        "prompt_tokens_details": {"cached_tokens": 8},
    },
}


def test_a_batch_reply_reads_as_inspect_reads_a_live_one():
    (made,) = model_outputs([BODY])
    assert made.completion == "ANSWER: 5"
    assert made.stop_reason == "max_tokens"
    assert (made.usage.input_tokens, made.usage.output_tokens) == (12, 4)
    assert made.usage.input_tokens_cache_read == 8


def test_batch_replies_answer_a_later_run_from_the_cache(tmp_path, capsys, monkeypatch):
    path = batch_study(tmp_path, cache=True)
    with serve(monkeypatch) as srv:
        srv.batches.auto_complete = True
        code, result = run(capsys, "generate", str(path), "--yes")
        assert code == 0, result
        assert srv.batches.submissions == 2 and srv.answered() == 4
        code, estimate = run(capsys, "estimate", str(path), "--force")
        assert code == 0 and estimate["total"]["cached"] == 4
        assert estimate["total"]["usd_expected"] == 0
        code, result = run(capsys, "generate", str(path), "--yes", "--force")
        assert code == 0, result
        assert srv.batches.submissions == 2 and srv.answered() == 4  # nothing sent
    rows = solutions(tmp_path)
    assert rows["cache_hit"].all() and rows["error"].isna().all()
    assert rows.loc["a1", "solution"] == "Computing it directly.\nANSWER: 5"
