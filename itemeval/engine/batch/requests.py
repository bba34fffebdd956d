"""Pure translation between itemeval's cells and OpenAI Batch API lines: a cell's chat
request as one JSONL line, and one output or error line back as a SampleResult.

The body is what inspect's OpenAI provider would send for the same cell (its messages,
then the sampling settings OpenAI's chat completions take); settings that only steer
inspect itself (retries, timeouts, connections, caching) have no place in a batch.
"""

from __future__ import annotations

from typing import Any

from ...hashing import canonical_json, sha256_hex
from ...outcomes import SampleResult
from ...plan.usage_check import CallText, reported_json
from ...records import Cell, TaskSpec
from ..wire import read_reply, usage
from .ledger import Request

CHAT_URL = "/v1/chat/completions"

_SENT_AS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "seed": "seed",
    "stop_seqs": "stop",
    "frequency_penalty": "frequency_penalty",
    "presence_penalty": "presence_penalty",
    "num_choices": "n",
    "logprobs": "logprobs",
    "top_logprobs": "top_logprobs",
    "reasoning_effort": "reasoning_effort",
}
"""GenerateConfig name -> chat completions field, for the settings a batch carries."""


def provider_model(model: str) -> tuple[str, str] | None:
    """(service, model name at the provider) for a model the batch path serves:
    `openai/<m>` -> ("openai", m), `openai-api/<service>/<m>` -> (service, m); None for
    every other provider."""
    parts = model.split("/")
    if parts[0] == "openai" and len(parts) >= 2:
        return "openai", "/".join(parts[1:])
    if parts[0] == "openai-api" and len(parts) >= 3:
        return parts[1], "/".join(parts[2:])
    return None


def request_key(stage: str, spec_name: str, sample_id: str) -> str:
    """A cell's custom id: the same cell always gets the same one, so a re-run can tell
    which cells a batch already holds."""
    return sha256_hex(canonical_json([stage, spec_name, sample_id]))[:32]


def sent_config(config: dict[str, Any]) -> dict[str, Any]:
    """The part of a task's generate config that a batch request carries."""
    keep = set(_SENT_AS) | {"max_tokens"}
    return {k: v for k, v in config.items() if k in keep and v is not None}


def messages(cell: Cell) -> list[dict[str, str]]:
    """The cell's chat: its preamble, an inspect chat sample's earlier turns, then its
    prompt."""
    turns = [{"role": role, "content": text} for role, text in cell.preamble]
    turns += [
        {"role": turn["role"], "content": turn["content"]}
        for turn in cell.metadata.get("history") or []
    ]
    return [*turns, {"role": "user", "content": cell.prompt}]


def request_line(spec: TaskSpec, cell: Cell, custom_id: str) -> dict[str, Any]:
    """One line of a batch input file."""
    service, name = provider_model(spec.model) or ("", spec.model)
    config = sent_config(cell.config(spec.config))  # a judge's later draw: its seed
    body: dict[str, Any] = {"model": name, "messages": messages(cell)}
    body.update({_SENT_AS[k]: v for k, v in config.items() if k in _SENT_AS})
    if "max_tokens" in config:
        # OpenAI's own models take max_completion_tokens; other hosts max_tokens.
        field = "max_completion_tokens" if service == "openai" else "max_tokens"
        body[field] = config["max_tokens"]
    return {"custom_id": custom_id, "method": "POST", "url": CHAT_URL, "body": body}


def sent_bytes(cell: Cell) -> int:
    """The UTF-8 bytes of the chat a cell's request sends."""
    text = "\n".join(turn["content"] for turn in messages(cell))
    return len(text.encode("utf-8", errors="replace"))


def result(
    line: dict[str, Any],
    request: Request,
    config: dict[str, Any],
    *,
    log_file: str,
    logprob_tokens: int,
) -> SampleResult:
    """A finished batch request (an output or error file line) as the stage's sink
    expects a finished sample."""
    response = line.get("response") or {}
    body = response.get("body") or {}
    error = _error_text(line, response, body)
    if error is not None:
        return SampleResult(
            metadata=request.metadata,
            completion=None,
            stop_reason=None,
            error=error,
            usage=usage(None),
            cache_hit=False,
            latency_s=None,
            effective_config=sent_config(config),
            uuid=line.get("id"),
            log_file=log_file,
        )
    call = CallText(request.sent_bytes, 0, config.get("max_tokens"))
    reply = read_reply(body, call, logprob_tokens=logprob_tokens)
    return SampleResult(
        metadata=request.metadata,
        completion=reply.completion,
        stop_reason=reply.stop_reason,
        error=None,
        usage=reply.usage.usage,
        usage_reported=reported_json([reply.usage]),
        cache_hit=False,
        latency_s=None,
        effective_config=sent_config(config),
        uuid=line.get("id"),
        log_file=log_file,
        logprobs=reply.logprobs,
    )


def _error_text(
    line: dict[str, Any], response: dict[str, Any], body: dict[str, Any]
) -> str | None:
    status = response.get("status_code")
    if line.get("error"):
        detail = line["error"]
        return f"batch request failed: {detail.get('message') or detail}"
    if status != 200:
        detail = (body.get("error") or {}).get("message") or "no detail"
        return f"batch request failed: HTTP {status}: {detail}"
    return None
