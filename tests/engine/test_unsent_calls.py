"""A call that timed out before its request was written is not an attempt (issue 49):
it is asked again without counting against `solvers.max_retries`, and the cell gets
its reply instead of an `AttemptTimeoutError` row.

The provider is reached through a real listening socket whose accept queue is full
(the kernel drops the SYN, so the connection never opens) until the test opens it;
from then on a proxy carries each connection to the local OpenAI-compatible server.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from tests.helpers import ARITH, local_model_config, write_study
from tests.openai_server import OpenAIServer


class ClosedDoor:
    """127.0.0.1:port, listening with a full accept queue until `open()`; then each
    connection is piped to `upstream`."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(0)
        self.port = self.sock.getsockname()[1]
        self._fill = [self._pending() for _ in range(3)]
        self._threads: list[threading.Thread] = []

    def _pending(self) -> socket.socket:
        client = socket.socket()
        client.setblocking(False)
        try:
            client.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        return client

    def open(self) -> None:
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            far = socket.create_connection(("127.0.0.1", self.upstream))
            for a, b in ((conn, far), (far, conn)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()

    def close(self) -> None:
        for client in self._fill:
            client.close()
        self.sock.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@pytest.fixture
def door(monkeypatch):
    from inspect_ai.model import _model

    with OpenAIServer() as srv:
        gate = ClosedDoor(srv._httpd.server_address[1])
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        monkeypatch.setenv("LOCAL_BASE_URL", f"http://127.0.0.1:{gate.port}/v1")
        _model._models.clear()
        yield gate, srv
        gate.close()
    _model._models.clear()


def test_a_call_no_connection_took_is_asked_again_not_recorded_as_a_timeout(
    tmp_path: Path, capsys, door, monkeypatch
):
    """max_retries 0: one attempt. It times out with its connection never opened;
    the door opens when itemeval says it asks again, and the cell gets its reply
    (before: an AttemptTimeoutError row)."""
    from itemeval.engine import tasks

    gate, srv = door
    said = tasks._say_once

    def open_door(message: str) -> None:
        gate.open()
        said(message)

    monkeypatch.setattr(tasks, "_say_once", open_door)
    config = local_model_config(
        solvers__max_retries=0, solvers__attempt_timeout=10, solvers__max_connections=1
    )
    path = write_study(tmp_path, config, rows=ARITH[:1])
    code = main(["generate", str(path), "--json"])
    err = capsys.readouterr().err
    solutions = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    assert code == 0 and solutions["error"].isna().all(), solutions["error"].tolist()
    assert solutions["solution"].str.contains("ANSWER: 5").all()
    assert srv.count("What is 2 + 3?") == 1  # asked once at the provider
    assert "timed out before its request was written" in err


def test_a_provider_no_connection_reaches_is_an_error_after_its_rounds(
    tmp_path: Path, capsys, door, monkeypatch
):
    """A door that never opens: the call is asked UNSENT_ROUNDS more times, then its
    row is the timeout, so a dead endpoint does not hang the run."""
    from itemeval.engine import tasks

    monkeypatch.setattr(tasks, "UNSENT_ROUNDS", 1)
    gate, srv = door
    config = local_model_config(solvers__max_retries=0, solvers__attempt_timeout=1)
    path = write_study(tmp_path, config, rows=ARITH[:1])
    main(["generate", str(path), "--json"])
    capsys.readouterr()
    solutions = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    assert solutions["error"].str.contains("AttemptTimeoutError").all()
    assert srv.count("What is 2 + 3?") == 0
