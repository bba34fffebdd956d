"""Importing a user's module from beside the study config (user scorers and metrics)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType


def import_beside(module_name: str, config_dir: Path) -> ModuleType:
    """Import `module_name` with the config's directory first on the path, for this
    import only; raises ImportError as importlib does."""
    added = str(config_dir) not in sys.path
    if added:
        sys.path.insert(0, str(config_dir))
    try:
        return importlib.import_module(module_name)
    finally:
        if added:
            sys.path.remove(str(config_dir))
