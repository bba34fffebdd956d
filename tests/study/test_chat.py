"""Prompts as chats (issue 34 point 9): a system message and few-shot turns from the
prompt's front matter reach the provider, change the condition id, and `show` prints the
whole chat; `--items ID` selects items on every selecting command."""

from __future__ import annotations

import json

import pytest

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.study import chat
from tests.helpers import ARITH, base_config, write_study
from tests.openai_server import OpenAIServer

BODY = "Q: {input}\nEnd with ANSWER: <n>."
CHAT = f"""---
system: "You are a careful arithmetic tutor for item {{id}}."
shots:
  - user: "Q: What is 1 + 1?"
    assistant: "ANSWER: 2"
  - user: "Q: What is 3 * 3?"
    assistant: "ANSWER: 9"
---
{BODY}"""


def conditions(capsys, path) -> dict[str, str]:
    capsys.readouterr()
    assert main(["status", str(path), "--json"]) == 0
    return {
        c["prompt"]: c["condition_id"]
        for c in json.loads(capsys.readouterr().out)["generate"]
    }


def test_system_and_two_shots_reach_the_provider_and_change_the_id(
    tmp_path, capsys, monkeypatch
):
    config = base_config(
        **{
            "cache": False,
            "solvers__models": ["openai-api/local/m"],
            "facets__prompt": ["p", "fewshot"],
        }
    )
    path = write_study(tmp_path, config, prompt=BODY)
    (tmp_path / "prompts" / "fewshot.md").write_text(CHAT)
    ids = conditions(capsys, path)
    assert ids["p"] != ids["fewshot"] and ids["fewshot"].startswith(
        "m_fewshot_default--"
    )
    with OpenAIServer() as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        assert main(["generate", str(path), "--yes", "--json"]) == 0
        requests = srv.requests
    assert len(requests) == 2 * len(ARITH)  # one call per item and prompt, no more
    chats = [r["messages"] for r in requests if r["messages"][0]["role"] == "system"]
    assert len(chats) == len(ARITH)
    for messages in chats:
        roles = [m["role"] for m in messages]
        assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
        assert messages[0]["content"].startswith("You are a careful arithmetic tutor")
        assert (
            messages[2]["content"] == "ANSWER: 2" and "3 * 3" in messages[3]["content"]
        )
    items = {m[0]["content"].rsplit(" ", 1)[1].rstrip(".") for m in chats}
    assert items == {row["qid"] for row in ARITH}  # {id} rendered in the system message
    plain = [r["messages"] for r in requests if r["messages"][0]["role"] != "system"]
    assert all(
        len(m) == 1 for m in plain
    )  # a prompt without front matter: one user turn


def test_show_prints_the_whole_chat(tmp_path, capsys):
    config = base_config(**{"facets__prompt": ["fewshot"]})
    path = write_study(tmp_path, config)
    (tmp_path / "prompts" / "fewshot.md").write_text(CHAT)
    assert main(["generate", str(path), "--yes"]) == 0
    capsys.readouterr()
    assert main(["show", str(path), "a2"]) == 0
    out = capsys.readouterr().out
    for part in ("[system]", "tutor for item a2", "[assistant]", "ANSWER: 9", "7 * 6"):
        assert part in out, part


@pytest.mark.parametrize(
    "text, message",
    [
        ("---\nsystem: hi\n", "never closed"),
        ("---\nsytem: hi\n---\n{input}", "unknown front matter key(s) sytem"),
        ("---\nshots: [{user: a}]\n---\n{input}", "shots[0] must have exactly"),
        ("---\nsystem: [a]\n---\n{input}", "system must be text"),
        ("---\nsystem: '{input}'\n---\nno item here", "must contain {input}"),
    ],
)
def test_bad_front_matter_is_a_config_error_naming_the_problem(
    tmp_path, capsys, text, message
):
    path = write_study(tmp_path, base_config(), prompt=text)
    assert main(["status", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_a_prompt_without_front_matter_renders_as_before():
    assert chat.render_chat("Q: {input}", {"input": "2+2"}) == [("user", "Q: 2+2")]
    assert chat.as_text([("user", "Q: 2+2")]) == "Q: 2+2"
    with pytest.raises(ConfigError):
        chat.split("---\n- a list\n---\nbody")


def test_items_selects_by_id_on_every_selecting_command(tmp_path, capsys):
    path = write_study(tmp_path, base_config())
    pick = ["--items", "a4", "--items", "a2"]

    def run(*args: str) -> dict:
        capsys.readouterr()
        assert main([*args, str(path), *pick, "--json"]) == 0, capsys.readouterr().err
        return json.loads(capsys.readouterr().out)

    assert [c["calls"] for c in run("estimate")["conditions"]] == [2, 2]
    assert run("generate")["totals"]["rows"] == 2
    assert run("grade")["totals"]["rows"] == 2
    assert [c["items"] for c in run("results")["cells"]] == [2]
    pick = ["--items", "a4,a2"]  # the same two, joined by a comma
    assert [c["items"] for c in run("results")["cells"]] == [2]
    capsys.readouterr()
    assert (
        main(
            [
                "launch",
                "generate",
                str(path),
                "--shards",
                "2",
                "--yes",
                "--items",
                "a1",
                "--json",
            ]
        )
        == 0
    )
    import pandas as pd

    stored = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    assert sorted(stored["item_id"]) == ["a1", "a2", "a4"]
    capsys.readouterr()
    assert main(["generate", str(path), "--items", "nope"]) == 2
    assert "no item has id 'nope'" in capsys.readouterr().err
