"""User scorers: a `module.path:function` loaded from the config's directory, with
the hash of its source."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..hashing import content_hash
from ..user_code import import_beside


@dataclass(frozen=True)
class UserScorer:
    factory: Callable[..., Any]
    source_hash: str


def load_user_scorer(ref: str, config_dir: Path) -> UserScorer:
    """Import `module.path:function` (the config's directory first on the path) and
    hash the module's source."""
    module_name, _, function = ref.partition(":")
    if not module_name or not function:
        raise ConfigError(
            f"scorer {ref!r}: a user scorer is written `module.path:function`"
        )
    try:
        module = import_beside(module_name, config_dir)
    except ImportError as exc:
        raise ConfigError(
            f"scorer {ref!r}: cannot import module {module_name!r} ({exc}); "
            "put it beside the config "
            "or install it"
        ) from None
    factory = getattr(module, function, None)
    if not callable(factory):
        found = ", ".join(
            sorted(
                n
                for n, v in vars(module).items()
                if callable(v) and not n.startswith("_")
            )
        )
        raise ConfigError(
            f"scorer {ref!r}: {module_name} has no function {function!r} (it "
            f"has: {found or 'none'})"
        )
    source = (
        Path(module.__file__).read_text(encoding="utf-8")
        if getattr(module, "__file__", None)
        else ""
    )
    return UserScorer(factory=factory, source_hash=content_hash(source)[:16])
