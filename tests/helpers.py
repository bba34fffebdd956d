"""Small builders shared by the tests: write a study config and its inputs into a
directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

TESTS = Path(__file__).resolve().parent
"""The tests folder: support files (a task file, a stalled hook) live here."""
REPO = TESTS.parent

ARITH = [
    {"qid": "a1", "question": "What is 2 + 3?", "answer": "5", "difficulty": "easy"},
    {"qid": "a2", "question": "What is 7 * 6?", "answer": "42", "difficulty": "easy"},
    {
        "qid": "a3",
        "question": "What is 100 - 58?",
        "answer": "42",
        "difficulty": "medium",
    },
    {"qid": "a4", "question": "What is 81 / 9?", "answer": "9", "difficulty": "medium"},
]


def base_config(**overrides: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "study": "t",
        "benchmark": {
            "datasets": [{"id": "data/arith.jsonl"}],
            "mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
                "metadata": ["difficulty"],
            },
        },
        "solvers": {
            "models": ["itemeval/arith-good"],
            "temperature": 0.5,
            "max_tokens": 256,
        },
        "facets": {"prompt": ["p"], "scorer": "numeric"},
    }
    for dotted, value in overrides.items():
        node = config
        parts = dotted.split("__")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return config


def write_study(
    root: Path,
    config: dict[str, Any] | None = None,
    *,
    rows: list[dict] | None = None,
    prompt: str = "Q: {input}\nEnd with ANSWER: <n>.",
    rubric: str | None = None,
) -> Path:
    """Write config.yaml, prompts/p.md, rubrics/r.md and data/arith.jsonl under root;
    return the config path."""
    (root / "prompts").mkdir(parents=True, exist_ok=True)
    (root / "rubrics").mkdir(exist_ok=True)
    (root / "data").mkdir(exist_ok=True)
    (root / "prompts" / "p.md").write_text(prompt)
    (root / "rubrics" / "r.md").write_text(
        rubric or "Q: {input}\nRef: {target}\nA: {solution}\nScore 1 if right."
    )
    with (root / "data" / "arith.jsonl").open("w") as handle:
        for row in ARITH if rows is None else rows:
            handle.write(json.dumps(row) + "\n")
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config or base_config(), sort_keys=False))
    return path


NO_METADATA = {"input": "question", "target": "answer", "id": "qid"}


def local_model_config(**overrides):
    """A study of the local OpenAI-compatible server's model over rows without
    metadata, answered fresh (no response cache)."""
    return base_config(
        **{
            "cache": False,
            "solvers__models": ["openai-api/local/m"],
            "benchmark__mapping": NO_METADATA,
            **overrides,
        }
    )


def cli_json(capsys, *args: str) -> tuple[int, dict | None, str]:
    """Run `itemeval ARGS` in the config's folder: the exit code, stdout read as JSON
    where it is JSON, and stderr."""
    from itemeval.cli import main

    capsys.readouterr()
    code = main([*args, "-C", str(Path(args[1]).parent)])
    captured = capsys.readouterr()
    out = captured.out
    return code, json.loads(out) if out.strip().startswith("{") else None, captured.err
