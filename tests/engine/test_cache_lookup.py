"""Issue 26 case 9 (last bit): a reply with no choices, stored by inspect's response
cache, must not come back as the same error on every re-run."""

from __future__ import annotations

import json
import shutil

import pandas as pd

from itemeval.cli import main
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer


class _EmptyFirst(OpenAIServer):
    """Each prompt's first reply is a 200 with `choices: []`; later ones are normal."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def _completion(self, body):
        reply = super()._completion(body)
        prompt = self._last_user(body)
        if prompt not in self.seen:
            self.seen.add(prompt)
            reply["choices"] = []
        return reply


def test_an_empty_reply_is_not_replayed_from_the_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    config = base_config(
        cache=True,
        solvers__models=["openai-api/local/m"],
        solvers__max_retries=0,
    )
    path = write_study(tmp_path, config)
    with _EmptyFirst() as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        main(["generate", str(path), "--yes", "--json"])
        first = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
        asked = len(srv.requests)
        capsys.readouterr()
        main(["generate", str(path), "--yes", "--json"])
        said = capsys.readouterr().err
        rows = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
        again = len(srv.requests) - asked
        main(["generate", str(path), "--yes", "--json", "--force"])
        third = len(srv.requests) - asked - again
    assert first["solution"].isna().all()  # the empty replies gave no answer
    assert again == len(rows)  # asked again, not replayed from the cache
    assert rows["error"].isna().all() and rows["solution"].notna().all()
    # a later run finds the good replies in the cache; the empty entries are passed over
    assert "held an empty reply (no choices)" in said and third == 0


def test_an_empty_reply_in_the_cache_is_estimated_at_its_price(
    tmp_path, monkeypatch, capsys
):
    # estimate priced a cached empty reply at $0, yet the run passes it over and pays
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "prices.json").write_text(
        '{"models": {"openai-api/local/m": {"input": 1, "output": 1}}}'
    )
    config = base_config(
        cache=True,
        solvers__models=["openai-api/local/m"],
        solvers__max_retries=0,
        budget__pricing_path="prices.json",
    )
    path = write_study(tmp_path, config)
    with _EmptyFirst() as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        main(["generate", str(path), "--yes", "--json"])  # caches the empty replies
        cells = len(srv.requests)
        shutil.rmtree(tmp_path / "studies" / "t")
        capsys.readouterr()
        assert main(["estimate", str(path), "--stage", "generate", "--json"]) == 0
        total = json.loads(capsys.readouterr().out)["total"]
        asked = len(srv.requests)
        assert main(["generate", str(path), "--yes", "--json"]) == 0
        paid = len(srv.requests) - asked
    assert paid == cells  # every cell was asked again
    assert total["cached"] == 0 and total["usd_expected"] > 0
