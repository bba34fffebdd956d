"""The models a run will call, checked before it writes anything."""

from __future__ import annotations

import os

from ..errors import ConfigError
from . import credentials

BUILT_IN = frozenset(
    {
        # inspect-ai 0.3.285's own providers (tests/test_providers.py holds this to
        # its registry) ...
        *("anthropic", "azureai", "bedrock", "cloudflare", "deepseek", "fireworks"),
        *("google", "grok", "groq", "hf", "hf-inference-providers", "litellm-proxy"),
        *("llama-cpp-python", "meta", "mistral", "mockllm", "moonshot", "nnterp"),
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
