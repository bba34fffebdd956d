"""The models a run will call, checked before it writes anything."""

from __future__ import annotations

import os

from . import credentials
from .errors import ConfigError


def check_providers(models: list[str]) -> None:
    """Refuse, before the run writes anything, a model whose provider inspect does
    not know or whose credentials are not set."""
    if models:
        from . import (
            inspect_tasks,  # inspect-ai loads only for commands that will call a model
        )

        inspect_tasks.check_providers(models)
        gaps = credentials.missing(models, os.environ)
        if gaps:
            raise ConfigError(credentials.advice(gaps))
