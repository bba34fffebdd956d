"""Issue 26 case 8, the SIGKILL window: a paid reply's row reaches the journal as soon
as inspect has parsed it, inside the model call.

inspect writes each parsed reply to its response cache before the call returns: the
row must be in the journal by then. With one connection, the next request can start
only once the previous call gave its connection back: the server counts the journal's
rows as each request arrives, and every reply written before it must already be a row.
Orders of events, never a duration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from itemeval.cli import main
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer

CELLS = 12


class JournalCountingServer(OpenAIServer):
    """Notes, as each request arrives, the replies written so far and the rows the
    study's journal files hold then."""

    def __init__(self, journal: Path, **options: Any) -> None:
        super().__init__(**options)
        self.journal = journal
        self.at_arrival: list[tuple[int, int]] = []

    def _enter(self, body: dict[str, Any]) -> str:
        with self._lock:
            replied = len(self._answered)
        rows = sum(
            path.read_bytes().count(b"\n") for path in self.journal.glob("*.jsonl")
        )
        self.at_arrival.append((replied, rows))
        return super()._enter(body)


def _study(tmp_path: Path) -> Path:
    rows = [
        {"qid": f"q{i}", "question": f"[q{i}] What is {i} + 1?", "answer": str(i + 1)}
        for i in range(CELLS)
    ]
    config = base_config(
        cache=True,  # inspect's response cache: a step of its own after each reply
        solvers__models=["openai-api/local/m"],
        solvers__max_connections=1,
    )
    config["benchmark"]["mapping"]["metadata"] = []
    return write_study(tmp_path, config, rows=rows, prompt="{input}")


def test_a_reply_is_journaled_before_inspect_caches_it_or_takes_the_next_call(
    tmp_path, monkeypatch
):
    import inspect_ai.model._model as inspect_model
    from inspect_ai.log._samples import sample_active

    path = _study(tmp_path)
    journal = tmp_path / "studies" / "t" / "journal"
    unjournaled_when_cached = []
    store = inspect_model.cache_store

    def cache_store(**kwargs: Any) -> Any:
        # inspect writes a reply to its response cache once it has parsed it
        item = str(sample_active().sample.id).split("#")[0]
        text = "".join(path.read_text() for path in journal.glob("*.jsonl"))
        if f'"item_id":"{item}"' not in text:
            unjournaled_when_cached.append(item)
        return store(**kwargs)

    monkeypatch.setattr(inspect_model, "cache_store", cache_store)
    with JournalCountingServer(journal) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        assert main(["generate", str(path), "--yes"]) == 0
    assert len(srv.at_arrival) == CELLS  # one call per cell
    assert not unjournaled_when_cached  # every reply was a row before it was cached
    late = [(replied, rows) for replied, rows in srv.at_arrival if rows < replied]
    assert not late, f"requests that started before earlier replies were rows: {late}"
