"""User metrics: `module.path:function` imported from beside the config, its source
hashed."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from ..hashing import content_hash
from ..user_code import import_beside

ARGUMENTS = ("scores", "answers", "targets", "metadata")
"""What a user metric may accept, in this order; it may accept fewer."""


@dataclass(frozen=True)
class UserMetric:
    function: Callable[..., float]
    arity: int
    """How many of ARGUMENTS it takes (the first `arity`)."""
    source_hash: str


def load_user_metric(ref: str, config_dir: Path) -> UserMetric:
    """Import `module.path:function` (the config's directory first on the path)."""
    module_name, _, name = ref.partition(":")
    if not module_name or not name:
        raise ConfigError(f"metric {ref!r}: a user metric is `module.path:function`")
    try:
        module = import_beside(module_name, config_dir)
    except ImportError as exc:
        raise ConfigError(
            f"metric {ref!r}: cannot import {module_name!r} ({exc}); put it beside "
            "the config or install it"
        ) from None
    function = getattr(module, name, None)
    if not callable(function):
        raise ConfigError(f"metric {ref!r}: {module_name} has no function {name!r}")
    path = getattr(module, "__file__", None)
    source = Path(path).read_text(encoding="utf-8") if path else ""
    return UserMetric(function, _arity(ref, function), content_hash(source)[:16])


def _arity(ref: str, function: Callable[..., float]) -> int:
    positional = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and p.default is p.empty
    ]
    if not 1 <= len(positional) <= len(ARGUMENTS):
        raise ConfigError(
            f"metric {ref!r}: takes {len(positional)} arguments; a user metric takes "
            f"({', '.join(ARGUMENTS)}) or the first few of them"
        )
    return len(positional)
