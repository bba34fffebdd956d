"""One inspect `.eval` log per collected provider batch, beside a live run's logs, so
`inspect view` shows batch replies too (README "Batch mode").

inspect writes logs only for tasks it runs itself; a batch is run by the provider, so
its log is put together here from inspect's own log types: one sample per answered
request (the prompt sent, the reply as inspect's openai provider reads it, its usage,
or its error).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ...records import Cell
from .ledger import Submission


def write(
    folder: Path,
    batch: Submission,
    answers: list[tuple[str, Cell | None, dict[str, Any], str | None]],
) -> Path:
    """Write the batch's log; its path. `answers`: (custom id, the cell when this
    run planned it, the chat completion, the error text)."""
    submission, batch_id, stage = batch.id, batch.batch_id, batch.stage
    model, created_at = batch.model, batch.created_at
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalSpec,
        write_eval_log,
    )

    created = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(created_at))
    log = EvalLog(
        eval=EvalSpec(
            created=created,
            task=f"itemeval-batch-{stage}",
            task_id=submission,
            dataset=EvalDataset(name=submission, samples=len(answers)),
            model=model,
            config=EvalConfig(),
            metadata={"batch_id": batch_id, "itemeval_batch": submission},
        ),
        status="success",
        samples=_samples(answers),
    )
    folder.mkdir(parents=True, exist_ok=True)
    stamp = created.replace(":", "-")
    path = folder / f"{stamp}_itemeval-batch-{stage}_{submission}.eval"
    write_eval_log(log, str(path))
    return path


def _samples(
    answers: list[tuple[str, Cell | None, dict[str, Any], str | None]],
) -> list[Any]:
    from inspect_ai.model import ModelOutput

    from ..cache_lookup import model_outputs

    bodies = [body for *_, body, error in answers if error is None]
    replies = iter(model_outputs(bodies))
    return [
        _sample(
            custom_id,
            cell,
            ModelOutput() if error is not None else next(replies),
            error,
        )
        for custom_id, cell, _, error in answers
    ]


def _sample(custom_id: str, cell: Cell | None, output: Any, error: str | None) -> Any:
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import ChatMessageUser

    prompt = cell.prompt if cell is not None else ""
    messages: list[Any] = [ChatMessageUser(content=prompt)]
    if error is None and output.choices:
        messages.append(output.message)
    return EvalSample(
        id=cell.sample_id if cell is not None else custom_id,
        epoch=1,
        input=prompt,
        target=str((cell.metadata if cell else {}).get("target", "")),
        messages=messages,
        output=output,
        metadata={"custom_id": custom_id, **(cell.metadata if cell else {})},
        error=None
        if error is None
        else EvalError(message=error, traceback="", traceback_ansi=""),
    )
