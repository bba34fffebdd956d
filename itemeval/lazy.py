"""Heavy libraries loaded when first used, not when a module that may use them is
imported: a command that never reaches the statistics (status, a no-op generate)
then never pays for loading scipy (about a third of a second on a quiet machine,
seconds on a loaded one)."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands in for the module `name` and imports it at the first attribute read.

    `import_module` takes the import lock, so threads that race to the first use
    get one module; every later read goes to the module kept on the first.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attribute: str) -> Any:
        # kept once imported: `pd.isna(x)` in a per-row loop pays one lookup
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        return f"<lazily imported module {self._name!r}>"


def lazy_import(name: str) -> Any:
    """The module `name`, imported at its first use (`sps = lazy_import(
    "scipy.stats")`, then `sps.norm.ppf(...)` as usual)."""
    return LazyModule(name)
