"""A local OpenAI-compatible chat-completions server for tests of the real SDK path.

Usage::

    with OpenAIServer(delay=0.05) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="test", max_retries=0)
        ...
        assert srv.count("What is 2 + 2?") == 1

What a request gets is decided by its last user message, unless the server-level
`script` still has entries (the n-th request takes the n-th entry):
- `FAIL500` — always HTTP 500 "injected server error";
- `RATE429` — HTTP 429 the first time a prompt is seen, a normal reply afterwards;
- `BUSY429` — always HTTP 429 "injected rate limit: the model is busy", asking to retry
  after 3 s;
- `HANG` — no reply for `hang_seconds` (ends at once when the server stops);
- `BAD400` — HTTP 400 "injected bad request";
- `AUTH401` — HTTP 401 whose message echoes the request's Authorization header, as some
  providers do;
- otherwise (or `OK` in a script) a normal reply: `ANSWER: <n>` for an arithmetic
  problem, else `reply_text`, after `delay` seconds (or `delay(prompt)`: a latency per
  request), truncated with finish_reason "length" past `max_tokens` (unless
  `overlong_reply` > 0: then that many more characters are added and `max_tokens` is
  ignored). A prompt with `WORDS<n>` gets a reply of n words (for long and short
  answers). With `answer_limit`, only that many normal replies go out; later requests
  are held until `release()`. `before_reply(n)` is called just before the n-th normal
  reply is written. `responder(body)`, when given, writes the reply text of every normal
  reply (None: the above).
Every chat request body is kept in `requests` (with `_received`: when the kernel got
it, monotonic s), and those given a normal reply in
`answered()`; `usage(usage)`, when given, rewrites each reply's usage (a provider
that lies about its counts); `max_in_flight` is the peak of concurrent requests,
`in_flight` the count now. The server also speaks OpenAI's Batch API, with completion
the test controls: `srv.batches` (tests/batch_api.py).
"""

from __future__ import annotations

import json
import math
import re
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from itemeval.engine.offline import agent
from itemeval.engine.offline.arithmetic import find_problem, fmt
from itemeval.engine.offline.solver import find_claim, token_logprobs

TRIGGERS = ("FAIL500", "RATE429", "BUSY429", "HANG", "BAD400", "AUTH401")
CHAT_PATH = "/v1/chat/completions"


def _text(content: Any) -> str:
    """Message content as text, whether a string or a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict)
        )
    return ""


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def _error(status: int, message: str, kind: str) -> tuple[int, dict[str, Any]]:
    return status, {
        "error": {"message": message, "type": kind, "param": None, "code": None}
    }


class OpenAIServer:
    """A stdlib HTTP server on 127.0.0.1 with a random free port; use it as a context
    manager."""

    def __init__(
        self,
        *,
        delay: float | Callable[[str], float] = 0.0,
        script: Sequence[str] = (),
        reply_text: str = "Hello from the local test server.",
        hang_seconds: float = 30.0,
        cached_tokens: int = 0,
        reasoning_tokens: int = 0,
        overlong_reply: int = 0,
        answer_limit: int | None = None,
        before_reply: Callable[[int], None] | None = None,
        responder: Callable[[dict[str, Any]], str | None] | None = None,
        usage: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.responder = responder
        self.usage = usage
        self.delay = delay
        self.answer_limit = answer_limit
        self.before_reply = before_reply
        self._replies = 0
        self._admitted = 0
        self._released = threading.Event()
        self.overlong_reply = overlong_reply
        self.reply_text = reply_text
        self.hang_seconds = hang_seconds
        self.cached_tokens = cached_tokens
        self.reasoning_tokens = reasoning_tokens
        self._script = list(script)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._requests: list[dict[str, Any]] = []
        self._statuses: list[int] = []
        self._answered: list[dict[str, Any]] = []
        self.billed: list[dict[str, Any]] = []
        """The usage of every normal reply sent, as reported (what is charged)."""
        self.calls: list[dict[str, Any]] = []
        """Per request: its last user message, when it `arrived` and was `replied` to
        (monotonic s), its `status`."""
        self._rate_limited: set[str] = set()
        self._in_flight = 0
        self.max_in_flight = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.batches = _batch_api(self)
        """The Batch API's files and batches (tests/batch_api.py)."""

    # --- lifecycle
    # ---------------------------------------------------------------------------

    def start(self) -> OpenAIServer:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        # Handler threads are joined on close, so a test never leaks a thread past the
        # server.
        httpd.daemon_threads = False
        httpd.block_on_close = True
        httpd.owner = self  # type: ignore[attr-defined]
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # wakes HANG and delayed handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what tests read
    # ---------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def env(self, service: str = "local") -> dict[str, str]:
        """Environment for inspect's `openai-api/<service>/<model>` provider."""
        return {
            f"{service.upper()}_BASE_URL": self.base_url,
            f"{service.upper()}_API_KEY": "test-key",
        }

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._requests)

    @property
    def statuses(self) -> list[int]:
        with self._lock:
            return list(self._statuses)

    @property
    def in_flight(self) -> int:
        """Requests received and not yet answered (held ones included)."""
        with self._lock:
            return self._in_flight

    def answered(self, substr: str = "") -> int:
        """How many normal (HTTP 200) replies went to requests with `substr` in any
        message: the calls paid for."""
        with self._lock:
            bodies = list(self._answered)
        return sum(
            any(substr in _text(m.get("content")) for m in body.get("messages", []))
            for body in bodies
        )

    def release(self) -> None:
        """Let every request held by `answer_limit` (and all later ones) be answered."""
        self._released.set()

    def count(self, substr: str) -> int:
        """How many chat requests had `substr` in the text of any of their messages."""
        return sum(
            any(substr in _text(m.get("content")) for m in body.get("messages", []))
            for body in self.requests
        )

    # --- request handling (called from handler threads)
    # --------------------------------------

    def _enter(self, body: dict[str, Any]) -> str:
        """Records the request and returns the trigger that decides its reply."""
        with self._lock:
            self._requests.append(body)
            self.calls.append(
                {
                    "body": body,
                    "prompt": self._last_user(body),
                    "arrived": time.monotonic(),
                    "replied": None,
                    "status": None,
                }
            )
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            if self._script:
                return self._script.pop(0)
        prompt = self._last_user(body)
        return next((t for t in TRIGGERS if t in prompt), "OK")

    def _record(self, status: int, body: dict[str, Any]) -> None:
        # Recorded before the reply is written, so a client that has its answer always
        # sees it here.
        with self._lock:
            self._statuses.append(status)
            call = next(c for c in reversed(self.calls) if c["body"] is body)
            call.update(replied=time.monotonic(), status=status)
            if status == 200:
                self._answered.append(body)
                self._replies += 1
                number = self._replies
        if status == 200 and self.before_reply is not None:
            self.before_reply(number)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    @staticmethod
    def _last_user(body: dict[str, Any]) -> str:
        users = [
            _text(m.get("content"))
            for m in body.get("messages", [])
            if m.get("role") == "user"
        ]
        return users[-1] if users else ""

    def respond(
        self, body: dict[str, Any], trigger: str
    ) -> tuple[int, dict[str, Any]] | None:
        """The status and JSON payload for a request, or None to drop the connection."""
        if trigger == "FAIL500":
            return _error(500, "injected server error", "server_error")
        if trigger == "BAD400":
            return _error(400, "injected bad request", "invalid_request_error")
        if trigger == "AUTH401":
            return _error(
                401,
                "invalid credentials in header Authorization: "
                f"{body.get('_authorization', '')}",
                "invalid_request_error",
            )
        if trigger == "HANG":
            self._stopping.wait(self.hang_seconds)
            return None
        if trigger == "BUSY429":
            return _error(
                429, "injected rate limit: the model is busy", "rate_limit_error"
            )
        if trigger == "RATE429":
            prompt = self._last_user(body)
            with self._lock:
                first_time = prompt not in self._rate_limited
                self._rate_limited.add(prompt)
            if first_time:
                return _error(429, "injected rate limit", "rate_limit_error")
        delay = (
            self.delay(self._last_user(body)) if callable(self.delay) else self.delay
        )
        if delay and self._stopping.wait(delay):
            return None
        if not self._admit():
            return None
        return 200, self._completion(body)

    def _admit(self) -> bool:
        """Past `answer_limit` normal replies, wait for release(); False if the
        server stops first."""
        if self.answer_limit is None:
            return True
        with self._lock:
            admitted = self._admitted < self.answer_limit
            self._admitted += admitted
        while not admitted and not self._released.wait(0.05):
            if self._stopping.is_set():
                return False
        return True

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("tools") and (acted := _tool_use(body)) is not None:
            return self._reply_body(body, acted)
        prompt = self._last_user(body)
        problem, claim = find_problem(prompt), find_claim(prompt)
        if claim:
            content = "1" if claim[1] else "0"
        else:
            content = (
                f"Computing it directly.\nANSWER: {fmt(problem.answer)}"
                if problem
                else self.reply_text
            )
        if words := re.search(
            r"\bWORDS(\d+)\b", prompt
        ):  # a reply of that many words: long and short answers
            content = " ".join(["word"] * int(words.group(1)))
        if self.responder is not None:  # a scripted model: the reply the test decides
            content = self.responder(body) or content
        finish = "stop"
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        if self.overlong_reply:  # a provider that ignores max_tokens
            content, limit = content + " " + "x" * self.overlong_reply, None
        if limit and _tokens(content) > limit:
            content, finish = content[: limit * 4], "length"
        prompt_tokens = sum(
            _tokens(_text(m.get("content"))) for m in body.get("messages", [])
        )
        completion_tokens = _tokens(content) + self.reasoning_tokens
        return {
            "id": f"chatcmpl-local-{len(self._requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "unknown"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                    "logprobs": _wire_logprobs(
                        content, prompt, body.get("top_logprobs"), claim
                    )
                    if body.get("logprobs")
                    else None,
                }
            ],
            "usage": self._billed(
                {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                    "prompt_tokens_details": {
                        "cached_tokens": min(self.cached_tokens, prompt_tokens)
                    },
                    "completion_tokens_details": {
                        "reasoning_tokens": self.reasoning_tokens
                    },
                }
            ),
        }

    def _billed(self, usage: dict[str, Any]) -> dict[str, Any]:
        """The usage a reply reports (rewritten by `usage` when given), kept in
        `billed`: what a provider would charge for."""
        reported = (self.usage or (lambda counts: counts))(usage)
        with self._lock:
            self.billed.append(reported)
        return reported

    def _reply_body(
        self, body: dict[str, Any], message: dict[str, Any]
    ) -> dict[str, Any]:
        """A reply carrying `message` (a tool call), with usage counted as for text."""
        prompt_tokens = sum(
            _tokens(_text(m.get("content"))) for m in body.get("messages", [])
        )
        completion_tokens = _tokens(json.dumps(message))
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return {
            "id": f"chatcmpl-local-{len(self._requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "unknown"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": self._billed(
                {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                }
            ),
        }


def _tool_use(body: dict[str, Any]) -> dict[str, Any] | None:
    """The offline tool user's next move (itemeval/engine/offline/agent.py) as an
    OpenAI assistant message, always right; None when it has no tool to use."""
    functions: dict[str, str] = {}
    turns = []
    for message in body.get("messages", []):
        for call in message.get("tool_calls") or []:
            functions[call["id"]] = call["function"]["name"]
        role = message.get("role")
        function = (
            functions.get(message.get("tool_call_id", "")) if role == "tool" else None
        )
        turns.append(agent.Turn(role, _text(message.get("content")), function))
    offers = []
    for tool in body["tools"]:
        spec = tool.get("function", {})
        properties = (spec.get("parameters") or {}).get("properties") or {}
        strings = tuple(n for n, p in properties.items() if p.get("type") == "string")
        offers.append(agent.ToolOffer(spec.get("name", ""), strings))
    action = agent.next_action(turns, offers, right=True, key=())
    if action is None:
        return None
    message: dict[str, Any] = {"role": "assistant", "content": action.text}
    if action.tool is not None:
        message["tool_calls"] = [
            {
                "id": f"call_{len(turns)}",
                "type": "function",
                "function": {
                    "name": action.tool,
                    "arguments": json.dumps(action.arguments),
                },
            }
        ]
    return message


def _wire_logprobs(
    content: str, prompt: str, top: int | None, claim: Any
) -> dict[str, Any]:
    """Logprobs as OpenAI's chat completions send them: per token, its logprob, bytes
    and top alternatives."""
    found = token_logprobs(
        content, ("server", prompt), top=top, first_probability=0.9 if claim else None
    )
    return {
        "content": [
            {
                "token": token,
                "logprob": logprob,
                "bytes": list(token.encode()),
                "top_logprobs": [
                    {"token": t, "logprob": lp, "bytes": list(t.encode())}
                    for t, lp in tops
                ],
            }
            for token, logprob, tops in found
        ]
    }


def _batch_api(server: OpenAIServer) -> Any:
    from tests.batch_api import BatchAPI

    return BatchAPI(server)


def _kernel_received(sock: socket.socket) -> float:
    """When the kernel got the request's last bytes (monotonic s), from TCP_INFO's
    tcpi_last_data_recv (ms): a busy server reading late does not move it. Now where
    unavailable."""
    now = time.monotonic()
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
        last_data_recv_ms = struct.unpack_from("I", info, 8 + 11 * 4)[0]
    except (OSError, AttributeError, struct.error):
        return now
    return now - last_data_recv_ms / 1000


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.0 closes every connection after its response, so no idle keep-alive thread
    # outlives a test.
    protocol_version = "HTTP/1.0"
    timeout = (
        10  # a client that connects but never sends cannot block shutdown for long
    )

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        if not self._batch_route("GET"):
            self._send(*_error(404, f"no route {self.path}", "not_found"))

    def _batch_route(self, method: str) -> bool:
        """Files and batches go to the server's BatchAPI; False for other paths."""
        owner: OpenAIServer = self.server.owner  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length) if method == "POST" and length else b""
        reply = owner.batches.route(method, self.path, self.headers, raw)
        if reply is not None:
            self._send(*reply)
        return reply is not None

    def do_POST(self) -> None:
        if self.path.rstrip("/") != CHAT_PATH:
            if self._batch_route("POST"):
                return
            self._send(*_error(404, f"no route {self.path}", "not_found"))
            return
        length = int(self.headers.get("Content-Length", 0))
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send(
                *_error(400, "request body is not JSON", "invalid_request_error")
            )
            return
        owner: OpenAIServer = self.server.owner  # type: ignore[attr-defined]
        if isinstance(body, dict):
            body["_authorization"] = self.headers.get("Authorization", "")
            body["_received"] = _kernel_received(self.connection)
        try:
            reply = owner.respond(body, owner._enter(body))
            owner._record(
                0 if reply is None else reply[0], body
            )  # 0: dropped without a reply
            if reply is not None:
                self._send(*reply)
        finally:
            owner._leave()

    def _send(self, status: int, payload: dict[str, Any] | bytes) -> None:
        raw = isinstance(payload, bytes)  # a file's content
        data = payload if raw else json.dumps(payload).encode()
        try:
            self.send_response(status)
            kind = "application/octet-stream" if raw else "application/json"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", "3" if b"is busy" in data else "0")
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. its timeout fired); nothing left to tell it


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started server, stopped after the test."""
    with OpenAIServer() as srv:
        yield srv
