"""The baseline: a plain inspect `eval()` of prompts written by a benchmark, with sample
logging on.

Usage: `python benchmarks/plain_inspect.py SPEC.json LOG_DIR`. SPEC holds `model` (or
`models`: a task per model, all running at once),
`prompts` (a list of `{id, prompt, metadata}`), `config` (GenerateConfig fields),
`epochs` and `eval` (extra keyword arguments to `eval()`, e.g. `log_buffer`). One task,
one model call per sample, no scorer, exactly what a user would write by hand around
inspect. The benchmark times this whole script, interpreter start-up and `import
inspect_ai` included, as it times the whole itemeval command.
"""

from __future__ import annotations

import json
import sys

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import generate


def main(spec_path: str, log_dir: str) -> int:
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    samples = [
        Sample(
            id=p["id"],
            input=[ChatMessageUser(content=p["prompt"])],
            metadata=p.get("metadata") or {},
        )
        for p in spec["prompts"]
    ]
    models = spec.get("models") or [spec["model"]]
    tasks = [
        Task(
            dataset=MemoryDataset(samples),
            solver=[generate()],
            name=spec.get("name", "plain"),
            model=get_model(model),
            config=GenerateConfig(**spec.get("config", {})),
        )
        for model in models
    ]
    logs = eval(
        tasks,
        max_tasks=len(tasks),
        log_dir=log_dir,
        display="none",
        epochs=spec.get("epochs", 1),
        **spec.get("eval", {}),
    )
    ok = bool(logs) and all(log.status == "success" for log in logs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
