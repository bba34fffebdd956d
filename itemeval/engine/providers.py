"""The models a run will call, checked before it writes anything."""

from __future__ import annotations

import os

from ..errors import ConfigError
from . import credentials

BUILT_IN = frozenset(
    {
        # the providers every inspect-ai of the tested range has (tests/engine/
        # test_providers.py holds this to its registry) ...
        *("anthropic", "azureai", "bedrock", "cloudflare", "deepseek", "fireworks"),
        *("google", "grok", "groq", "hf", "hf-inference-providers"),
        *("llama-cpp-python", "mistral", "mockllm", "moonshot", "nnterp"),
        *("none", "ollama", "openai", "openai-api", "openai-api-completions"),
        *("openrouter", "perplexity", "sagemaker", "sambanova", "sglang", "together"),
        *("transformer_lens", "vllm", "vllm-completions"),
        # ... and itemeval's offline models
        "itemeval",
    }
)
"""Providers known without loading inspect-ai: `launch` checks its study's models
before its shards start, and importing inspect-ai there cost the shards ~0.6 s of
their start on two cores (and the launcher 55 MB)."""

ADDED_IN_RANGE = frozenset({"meta", "litellm-proxy"})
"""Providers of later releases of the range (`meta` from inspect-ai 0.3.267,
`litellm-proxy` from 0.3.269): checked against the installed inspect-ai's registry,
like any provider not in BUILT_IN."""


def check_providers(models: list[str]) -> None:
    """Refuse, before the run writes anything, a model whose provider inspect does
    not know or whose credentials are not set."""
    others = [model for model in models if model.partition("/")[0] not in BUILT_IN]
    if others:
        from . import tasks as inspect_tasks

        inspect_tasks.check_providers(others)
    gaps = credentials.missing(models, os.environ)
    if gaps:
        raise ConfigError(credentials.advice(gaps))
