"""The provider's Batch API through the openai SDK: upload a request file, create,
retrieve, cancel and find batches, read result files.

inspect-ai 0.3.285 has batchers for openai, anthropic, google, grok and together, but
they keep their batch ids in memory and give each request a random custom id, with no
public way to record or re-attach to them; its `openai-api/*` provider does not batch
at all. So itemeval talks to OpenAI-compatible batch endpoints itself (README "Batch
mode").
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass
from typing import Any

from ...errors import ConfigError
from .requests import CHAT_URL, provider_model

WINDOW = "24h"


@dataclass(frozen=True)
class Status:
    """What the provider says about one batch."""

    status: str
    output_file_id: str | None
    error_file_id: str | None
    completed: int
    failed: int
    total: int


TERMINAL = ("completed", "expired", "failed", "cancelled")


def env_names(model: str) -> tuple[str, str]:
    """(API key variable, base URL variable) of a model, as inspect names them."""
    service, _ = provider_model(model) or ("openai", model)
    prefix = service.upper().replace("-", "_")
    return f"{prefix}_API_KEY", f"{prefix}_BASE_URL"


class BatchClient:
    """One provider endpoint's files and batches."""

    def __init__(self, model: str) -> None:
        import openai

        key_var, url_var = env_names(model)
        key = os.environ.get(key_var)
        if not key:
            raise ConfigError(
                f"batch mode for {model} needs {key_var} in the environment"
            )
        self._client = openai.OpenAI(
            api_key=key, base_url=os.environ.get(url_var) or None, max_retries=3
        )

    def upload(self, lines: list[dict[str, Any]]) -> str:
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        made = self._client.files.create(
            file=("itemeval-batch.jsonl", io.BytesIO(data)), purpose="batch"
        )
        return made.id

    def create(self, file_id: str, metadata: dict[str, str]) -> str:
        batch = self._client.batches.create(
            input_file_id=file_id,
            endpoint=CHAT_URL,
            completion_window=WINDOW,
            metadata=metadata,
        )
        return batch.id

    def retrieve(self, batch_id: str) -> Status:
        batch = self._client.batches.retrieve(batch_id)
        counts = batch.request_counts
        return Status(
            status=batch.status,
            output_file_id=batch.output_file_id,
            error_file_id=batch.error_file_id,
            completed=counts.completed if counts else 0,
            failed=counts.failed if counts else 0,
            total=counts.total if counts else 0,
        )

    def cancel(self, batch_id: str) -> str:
        return self._client.batches.cancel(batch_id).status

    def find_by_file(self, file_id: str, since: float) -> str | None:
        """The batch created from `file_id` (a run killed before it recorded the
        batch id), looking back no further than `since` (unix time)."""
        for batch in self._client.batches.list(limit=100):
            if batch.input_file_id == file_id:
                return batch.id
            if batch.created_at < since - 60:
                return None
        return None

    def lines(self, file_id: str | None) -> list[dict[str, Any]]:
        if file_id is None:
            return []
        text = self._client.files.content(file_id).text
        return [json.loads(line) for line in text.splitlines() if line.strip()]
