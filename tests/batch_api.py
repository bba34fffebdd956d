"""OpenAI's Batch API on the local test server (`OpenAIServer.batches`).

Routes: `POST /v1/files` (multipart upload), `GET /v1/files/{id}`,
`GET /v1/files/{id}/content`, `POST /v1/batches`, `GET /v1/batches` (list),
`GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`.

A created batch is `validating`; the first retrieve moves it to `in_progress`. Nothing
more happens until the test says so (no timers, no sleeps):

    srv.batches.wait_for(1)          # the client has created one batch
    srv.batches.complete()           # every open batch answers: finalizing, completed
    srv.batches.expire(done=2)       # answers the first 2 requests, then `expired`
    srv.batches.fail()               # `failed`, no output
    srv.batches.auto_complete = True # batches complete as soon as they are created
    srv.batches.wait_looked(id, 2)   # the client has asked about a batch twice

Each request line is answered exactly as the chat route would (the same arithmetic
replies, triggers, usage), and counted in `OpenAIServer.answered()`; a `FAIL500` line
goes to the error file. `submissions` counts batches created, `submitted(substr)` the
request lines that carried `substr`.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import re
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.openai_server import OpenAIServer

Reply = tuple[int, Any]
OPEN = ("validating", "in_progress", "finalizing", "cancelling")


def _error(status: int, message: str) -> Reply:
    return status, {"error": {"message": message, "type": "invalid_request_error"}}


class BatchAPI:
    """The files and batches of one server; every method is thread-safe."""

    def __init__(self, server: OpenAIServer) -> None:
        self.server = server
        self.files: dict[str, dict[str, Any]] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.submissions = 0
        self.looks: dict[str, int] = {}
        """Retrieves of each batch: how often the client asked about it."""
        self.auto_complete = False
        self.enabled = True
        """False: a host without a Batch API (batches routes answer 404)."""
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self._created = threading.Condition(self._lock)

    # --- what tests do
    # ----------------------------------------------------------------------

    def wait_for(self, count: int, timeout: float = 60.0) -> bool:
        """Block until `count` batches exist (False on timeout)."""
        with self._created:
            return self._created.wait_for(
                lambda: len(self.batches) >= count, timeout=timeout
            )

    def wait_looked(self, batch_id: str, count: int, timeout: float = 60.0) -> bool:
        """Block until the client asked about the batch `count` times."""
        with self._created:
            return self._created.wait_for(
                lambda: self.looks.get(batch_id, 0) >= count, timeout=timeout
            )

    def submitted(self, substr: str = "") -> int:
        """Request lines of created batches whose body contains `substr`."""
        with self._lock:
            return sum(substr in line for line in self._lines)

    def open_ids(self) -> list[str]:
        with self._lock:
            return [b["id"] for b in self.batches.values() if b["status"] in OPEN]

    def complete(self, batch_id: str | None = None) -> None:
        """Answer every request of the batch (or every open batch)."""
        for bid in self._targets(batch_id):
            self._finish(bid, "completed", None)

    def expire(self, batch_id: str | None = None, *, done: int = 0) -> None:
        """Answer the first `done` requests, then expire the rest."""
        for bid in self._targets(batch_id):
            self._finish(bid, "expired", done)

    def fail(self, batch_id: str | None = None) -> None:
        for bid in self._targets(batch_id):
            with self._lock:
                self.batches[bid].update(status="failed", failed_at=int(time.time()))

    def _targets(self, batch_id: str | None) -> list[str]:
        return [batch_id] if batch_id else self.open_ids()

    # --- routing
    # ----------------------------------------------------------------------------

    def route(self, method: str, path: str, headers: Any, raw: bytes) -> Reply | None:
        """The reply for a files/batches request, or None when the path is not
        one."""
        path = path.split("?")[0].rstrip("/")
        parts = path.split("/")[2:]  # after "/v1"
        if not parts or parts[0] not in ("files", "batches"):
            return None
        if parts[0] == "files":
            return self._files(method, parts[1:], headers, raw)
        return self._batches(method, parts[1:], raw)

    def _files(self, method: str, rest: list[str], headers: Any, raw: bytes) -> Reply:
        if method == "POST" and not rest:
            return self._upload(headers.get("Content-Type", ""), raw)
        file_id = rest[0] if rest else ""
        with self._lock:
            meta = self.files.get(file_id)
            data = self.contents.get(file_id, b"")
        if meta is None:
            return _error(404, f"no file {file_id}")
        if rest[1:] == ["content"]:
            return 200, data
        return 200, meta

    def _upload(self, content_type: str, raw: bytes) -> Reply:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw
        )
        fields = {
            part.get_param("name", header="content-disposition"): part
            for part in message.iter_parts()
        }
        if "file" not in fields:
            return _error(400, "no file in the upload")
        data = fields["file"].get_payload(decode=True) or b""
        purpose = (fields.get("purpose") or fields["file"]).get_content()
        return 200, self._store_file(data, str(purpose).strip(), "input.jsonl")

    def _store_file(self, data: bytes, purpose: str, name: str) -> dict[str, Any]:
        with self._lock:
            file_id = f"file-local-{len(self.files) + 1}"
            meta = {
                "id": file_id,
                "object": "file",
                "bytes": len(data),
                "created_at": int(time.time()),
                "filename": name,
                "purpose": purpose,
                "status": "processed",
            }
            self.files[file_id], self.contents[file_id] = meta, data
        return meta

    def _batches(self, method: str, rest: list[str], raw: bytes) -> Reply:
        if not self.enabled:
            return _error(404, "this host has no Batch API")
        if method == "POST" and not rest:
            return self._create(json.loads(raw or b"{}"))
        if method == "GET" and not rest:
            with self._lock:
                data = list(reversed(list(self.batches.values())))
            return 200, {"object": "list", "data": data, "has_more": False}
        batch_id = rest[0]
        if batch_id not in self.batches:
            return _error(404, f"no batch {batch_id}")
        if method == "POST" and rest[1:] == ["cancel"]:
            with self._lock:
                batch = self.batches[batch_id]
                if batch["status"] in OPEN:
                    batch.update(status="cancelled", cancelled_at=int(time.time()))
                return 200, dict(batch)
        return 200, self._retrieve(batch_id)

    def _create(self, body: dict[str, Any]) -> Reply:
        file_id = body.get("input_file_id", "")
        with self._lock:
            data = self.contents.get(file_id)
        if data is None:
            return _error(400, f"no input file {file_id}")
        lines = [line for line in data.decode().splitlines() if line.strip()]
        with self._created:
            batch_id = f"batch-local-{len(self.batches) + 1}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body.get("endpoint"),
                "input_file_id": file_id,
                "completion_window": body.get("completion_window", "24h"),
                "status": "validating",
                "created_at": int(time.time()),
                "metadata": body.get("metadata"),
                "output_file_id": None,
                "error_file_id": None,
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            }
            self.submissions += 1
            self._lines.extend(lines)
            self._created.notify_all()
            batch = dict(self.batches[batch_id])
        if self.auto_complete:
            self._finish(batch_id, "completed", None)
        return 200, batch

    def _retrieve(self, batch_id: str) -> dict[str, Any]:
        with self._created:
            self.looks[batch_id] = self.looks.get(batch_id, 0) + 1
            self._created.notify_all()
            batch = self.batches[batch_id]
            shown = dict(batch)
            if batch["status"] == "validating":
                batch["status"] = "in_progress"
            elif batch["status"] == "finalizing":
                batch["status"] = batch.pop("_final")
            return shown

    # --- answering
    # --------------------------------------------------------------------------

    def _finish(self, batch_id: str, final: str, done: int | None) -> None:
        """Answer the batch's requests (the first `done` of them when given) and put
        it through `finalizing` to `final` (one retrieve shows `finalizing`)."""
        with self._lock:
            batch = self.batches[batch_id]
            if batch["status"] not in OPEN:
                return
            lines = self.contents[batch["input_file_id"]].decode().splitlines()
        lines = [json.loads(line) for line in lines if line.strip()]
        outputs, errors = [], []
        for request in lines if done is None else lines[:done]:
            answer = self._answer(request)
            (outputs if answer["response"]["status_code"] == 200 else errors).append(
                answer
            )
        output_id = self._jsonl(outputs, "batch_output.jsonl")
        error_id = self._jsonl(errors, "batch_errors.jsonl")
        with self._lock:
            batch.update(
                status="finalizing",
                _final=final,
                output_file_id=output_id,
                error_file_id=error_id,
                request_counts={
                    "total": len(lines),
                    "completed": len(outputs),
                    "failed": len(errors),
                },
            )
            batch[f"{final}_at"] = int(time.time())

    def _jsonl(self, rows: list[dict[str, Any]], name: str) -> str | None:
        if not rows:
            return None
        data = "".join(json.dumps(row) + "\n" for row in rows).encode()
        return self._store_file(data, "batch_output", name)["id"]

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """One output line: the chat route's reply to the request's body."""
        server, body = self.server, dict(request.get("body") or {})
        trigger = server._enter(body)
        try:
            trigger = "OK" if trigger in ("HANG", "RATE429", "BUSY429") else trigger
            status, payload = server.respond(body, trigger) or (500, {})
            server._record(status, body)
        finally:
            server._leave()
        return {
            "id": f"batch_req_{re.sub(r'[^A-Za-z0-9]', '', request['custom_id'])}",
            "custom_id": request["custom_id"],
            "response": {"status_code": status, "body": payload},
            "error": None,
        }
