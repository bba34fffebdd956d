"""Which environment variables a model's provider needs, checked before any work.

inspect-ai finds a missing key only when a condition's task starts, and words it with
rich markup; a person setting up a study should hear at once, by name, what to set.
Providers not listed here (local servers, cloud SDK credentials, installed packages)
are left to inspect.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# provider -> the variables inspect-ai accepts for its key (any one will do)
KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZUREAI_OPENAI_API_KEY"),
    "anthropic": (
        "ANTHROPIC_API_KEY",
        "AZUREAI_ANTHROPIC_API_KEY",
        "AZURE_ANTHROPIC_API_KEY",
        "ANTHROPIC_VERTEX_PROJECT_ID",
        "ANTHROPIC_BEDROCK_BASE_URL",
    ),
    "google": ("GOOGLE_API_KEY", "GEMINI_API_KEY", "VERTEX_API_KEY"),
    "mistral": ("MISTRAL_API_KEY", "AZURE_MISTRAL_API_KEY", "AZUREAI_MISTRAL_API_KEY"),
    "grok": ("XAI_API_KEY", "GROK_API_KEY"),
    "groq": ("GROQ_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "perplexity": ("PERPLEXITY_API_KEY",),
}
# Settings that make a provider authenticate some other way (cloud SDK credentials).
OTHER_AUTH: dict[str, tuple[str, ...]] = {
    "google": ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT"),
}


@dataclass(frozen=True)
class Missing:
    """A variable (or one of several) that `models` need and the environment lacks."""

    names: tuple[str, ...]
    models: tuple[str, ...]

    def __str__(self) -> str:
        name = " or ".join(self.names)
        return f"{name} is not set (needed by {', '.join(self.models)})"


def needed(model: str) -> list[tuple[str, ...]]:
    """The variables `model` needs, each a tuple of alternatives; [] when not known."""
    provider, _, rest = model.partition("/")
    if provider == "openai-api":  # openai-api/<service>/<model>: both, by service
        service = re.sub(r"[^A-Za-z0-9]", "_", rest.partition("/")[0]).upper()
        return [(f"{service}_API_KEY",), (f"{service}_BASE_URL",)]
    keys = KEYS.get(provider)
    return [keys] if keys else []


def missing(models: Iterable[str], environ: Mapping[str, str]) -> list[Missing]:
    """Each variable a model needs and `environ` lacks, with the models needing it."""
    by_names: dict[tuple[str, ...], list[str]] = {}
    for model in sorted(set(models)):
        provider = model.partition("/")[0]
        if any(environ.get(name) for name in OTHER_AUTH.get(provider, ())):
            continue
        for names in needed(model):
            if not any(environ.get(name) for name in names):
                by_names.setdefault(names, []).append(model)
    return [Missing(names, tuple(models)) for names, models in by_names.items()]


def advice(gaps: list[Missing]) -> str:
    """One message for a ConfigError: what to set, and for which models."""
    lines = "; ".join(map(str, gaps))
    return (
        f"missing credentials: {lines}. Set them in the environment (a key as the "
        "provider issues it; an OpenAI-compatible host also needs <SERVICE>_BASE_URL, "
        "e.g. http://localhost:8000/v1) and run the same command again"
    )
