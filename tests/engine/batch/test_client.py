"""The local server's Batch API, driven through the real openai SDK."""

from __future__ import annotations

import io
import json

import openai
import pytest

from tests.openai_server import OpenAIServer


def _client(srv: OpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url, api_key="test", max_retries=0)


def _line(custom_id: str, prompt: str) -> str:
    body = {"model": "m", "messages": [{"role": "user", "content": prompt}]}
    return json.dumps(
        {
            "custom_id": custom_id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": body,
        }
    )


def _submit(client: openai.OpenAI, prompts: dict[str, str]) -> str:
    data = "\n".join(_line(cid, p) for cid, p in prompts.items()).encode()
    uploaded = client.files.create(file=("in.jsonl", io.BytesIO(data)), purpose="batch")
    batch = client.batches.create(
        input_file_id=uploaded.id,
        endpoint="/v1/chat/completions",
        completion_window="24h",
        metadata={"study": "s"},
    )
    assert batch.status == "validating"
    return batch.id


def _lines(client: openai.OpenAI, file_id: str | None) -> dict[str, dict]:
    if file_id is None:
        return {}
    text = client.files.content(file_id).text
    return {row["custom_id"]: row for row in map(json.loads, text.splitlines())}


def test_completed_batch_walks_the_statuses_and_answers_each_line():
    with OpenAIServer() as srv:
        client = _client(srv)
        bid = _submit(client, {"a": "What is 2 + 3?", "b": "FAIL500 please"})
        assert srv.batches.wait_for(1, timeout=5)
        assert client.batches.retrieve(bid).status == "validating"
        assert client.batches.retrieve(bid).status == "in_progress"
        assert client.batches.retrieve(bid).status == "in_progress"
        srv.batches.complete()
        assert client.batches.retrieve(bid).status == "finalizing"
        done = client.batches.retrieve(bid)
        assert done.status == "completed"
        assert done.request_counts.completed == 1 and done.request_counts.failed == 1
        out = _lines(client, done.output_file_id)
        err = _lines(client, done.error_file_id)
        assert set(out) == {"a"} and set(err) == {"b"}
        reply = out["a"]["response"]["body"]["choices"][0]["message"]["content"]
        assert reply.endswith("ANSWER: 5")
        assert err["b"]["response"]["status_code"] == 500
        assert srv.batches.submissions == 1 and srv.batches.submitted("2 + 3") == 1
        assert srv.answered("2 + 3") == 1
        assert [b.id for b in client.batches.list()] == [bid]


@pytest.mark.parametrize(
    "end, status, answered",
    [("expire", "expired", 1), ("fail", "failed", 0), ("cancel", "cancelled", 0)],
)
def test_batches_that_end_early(end, status, answered):
    with OpenAIServer() as srv:
        client = _client(srv)
        bid = _submit(client, {"a": "What is 1 + 1?", "b": "What is 2 + 2?"})
        if end == "expire":
            srv.batches.expire(done=1)
            client.batches.retrieve(bid)  # finalizing
        elif end == "fail":
            srv.batches.fail()
        else:
            client.batches.cancel(bid)
        batch = client.batches.retrieve(bid)
        assert batch.status == status
        assert len(_lines(client, batch.output_file_id)) == answered
        assert srv.answered() == answered
        assert srv.batches.open_ids() == []


def test_auto_complete_and_unknown_ids():
    with OpenAIServer() as srv:
        srv.batches.auto_complete = True
        client = _client(srv)
        bid = _submit(client, {"a": "What is 4 + 4?"})
        client.batches.retrieve(bid)
        assert client.batches.retrieve(bid).status == "completed"
        with pytest.raises(openai.NotFoundError):
            client.batches.retrieve("batch-nope")
        with pytest.raises(openai.NotFoundError):
            client.files.content("file-nope")
