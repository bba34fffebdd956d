"""The local OpenAI-compatible test server, through the real openai SDK and through
inspect."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.solver import generate

from tests.openai_server import OpenAIServer, openai_server  # noqa: F401  (fixture)


def client(srv: OpenAIServer, timeout: float = 5.0) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=srv.base_url, api_key="test-key", max_retries=0, timeout=timeout
    )


def ask(c: openai.OpenAI, text: str, **kwargs):
    return c.chat.completions.create(
        model="local-model", messages=[{"role": "user", "content": text}], **kwargs
    )


def test_normal_reply_with_usage(openai_server):
    reply = ask(client(openai_server), "What is 17 * 23?")
    assert reply.choices[0].message.content.splitlines()[-1] == "ANSWER: 391"
    assert reply.choices[0].finish_reason == "stop"
    usage = reply.usage
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens > 0
    assert (
        usage.prompt_tokens_details.cached_tokens == 0
        and usage.completion_tokens_details.reasoning_tokens == 0
    )
    assert (
        ask(client(openai_server), "Hi there").choices[0].message.content
        == "Hello from the local test server."
    )
    assert (
        openai_server.count("17 * 23") == 1
        and openai_server.requests[0]["model"] == "local-model"
    )


def test_max_tokens_truncates_with_length():
    with OpenAIServer(reply_text="x" * 400) as srv:
        reply = ask(client(srv), "Say a lot", max_tokens=10)
    assert (
        reply.choices[0].finish_reason == "length"
        and len(reply.choices[0].message.content) == 40
    )


@pytest.mark.parametrize(
    ("trigger", "error", "status"),
    [
        ("FAIL500", openai.InternalServerError, 500),
        ("BAD400", openai.BadRequestError, 400),
    ],
)
def test_error_triggers(openai_server, trigger, error, status):
    for _ in range(2):
        with pytest.raises(error, match="injected"):
            ask(client(openai_server), f"please {trigger} now")
    assert openai_server.statuses == [status, status]


def test_rate_limit_once_per_prompt(openai_server):
    c = client(openai_server)
    with pytest.raises(openai.RateLimitError):
        ask(c, "RATE429 a")
    assert ask(c, "RATE429 a").choices[0].finish_reason == "stop"
    with pytest.raises(openai.RateLimitError):
        ask(c, "RATE429 b")
    assert openai_server.statuses == [429, 200, 429]


def test_script_overrides_message_triggers():
    with OpenAIServer(script=["FAIL500", "OK"]) as srv:
        with pytest.raises(openai.InternalServerError):
            ask(client(srv), "What is 1 + 1?")
        assert (
            ask(client(srv), "FAIL500").choices[0].message.content
            == "Hello from the local test server."
        )
        assert (
            ask(client(srv), "What is 1 + 1?")
            .choices[0]
            .message.content.endswith("ANSWER: 2")
        )


def test_hang_times_out_and_shutdown_is_prompt():
    threads_before = threading.active_count()
    srv = OpenAIServer(hang_seconds=30).start()
    with pytest.raises(openai.APITimeoutError):
        ask(client(srv, timeout=0.5), "HANG")
    started = time.perf_counter()
    srv.stop()
    assert time.perf_counter() - started < 2
    assert threading.active_count() == threads_before


def test_unknown_routes_are_404(openai_server):
    for request in [
        urllib.request.Request(openai_server.base_url + "/models"),
        urllib.request.Request(
            openai_server.base_url + "/embeddings", data=b"{}", method="POST"
        ),
    ]:
        with pytest.raises(urllib.error.HTTPError) as raised:
            urllib.request.urlopen(request, timeout=5)
        assert raised.value.code == 404
    assert openai_server.requests == []


def test_delay_and_peak_concurrency():
    with OpenAIServer(delay=0.2) as srv:
        c = client(srv)
        with ThreadPoolExecutor(4) as pool:
            replies = list(pool.map(lambda i: ask(c, f"What is {i} + 1?"), range(4)))
    assert [r.choices[0].message.content.splitlines()[-1] for r in replies] == [
        f"ANSWER: {i + 1}" for i in range(4)
    ]
    assert srv.max_in_flight == 4


def _task(*prompts: str) -> Task:
    return Task(
        dataset=MemoryDataset([Sample(id=i, input=p) for i, p in enumerate(prompts)]),
        solver=[generate()],
    )


def test_inspect_openai_api_provider_reads_usage_and_cache(monkeypatch, tmp_path):
    with OpenAIServer(cached_tokens=3, reasoning_tokens=2) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        log = eval(
            _task("What is 2 + 3?", "What is 6 * 7?"),
            model="openai-api/local/gen-model",
            model_args={"max_retries": 0},
            max_retries=0,
            log_dir=str(tmp_path),
            display="none",
        )[0]
    assert log.status == "success"
    assert [s.output.completion.splitlines()[-1] for s in log.samples] == [
        "ANSWER: 5",
        "ANSWER: 42",
    ]
    usage = log.samples[0].model_usage["openai-api/local/gen-model"]
    assert usage.input_tokens_cache_read == 3 and usage.reasoning_tokens == 2
    assert srv.requests[0]["model"] == "gen-model"


def test_inspect_records_server_errors_without_waiting(tmp_path):
    with OpenAIServer() as srv:
        model = get_model(
            "openai-api/local/m",
            base_url=srv.base_url,
            api_key="test-key",
            max_retries=0,
        )
        log = eval(
            _task("FAIL500", "BAD400", "What is 1 + 2?"),
            model=model,
            max_retries=0,
            fail_on_error=False,
            log_dir=str(tmp_path),
            display="none",
        )[0]
    errors = {s.input: s.error.message if s.error else None for s in log.samples}
    assert (
        "InternalServerError" in errors["FAIL500"]
        and "injected bad request" in errors["BAD400"]
    )
    assert errors["What is 1 + 2?"] is None
    assert sorted(srv.statuses) == [200, 400, 500]  # each asked once: no retry waited


def test_inspect_retries_a_rate_limit_once(tmp_path):
    with OpenAIServer() as srv:
        model = get_model(
            "openai-api/local/m",
            base_url=srv.base_url,
            api_key="test-key",
            max_retries=0,
        )
        log = eval(
            _task("RATE429 What is 4 + 4?"),
            model=model,
            max_retries=1,
            log_dir=str(tmp_path),
            display="none",
        )[0]
    assert log.samples[0].output.completion.endswith("ANSWER: 8")
    assert srv.statuses == [429, 200]
