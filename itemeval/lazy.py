"""Heavy libraries loaded when first used, not when a module that may use them is
imported: a command that never reaches the statistics (status, a no-op generate)
then never pays for loading scipy (about a third of a second on a quiet machine,
seconds on a loaded one)."""

from __future__ import annotations

import importlib
import re
from typing import Any, cast


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


class LazyPattern:
    """Stands in for `re.compile(pattern, flags)` and compiles it at the first use.

    A scorer module holds dozens of patterns that a command reading the config
    (status, a no-op generate) never matches. The compiled pattern's methods are
    kept on the instance once looked up, so a hot loop pays the lookup once.
    """

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self._source = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        value = getattr(self._compiled, attribute)
        setattr(self, attribute, value)  # next time a plain instance attribute
        return value

    def __repr__(self) -> str:
        return f"<lazily compiled pattern {self._source!r}>"


def lazy_pattern(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled at its first use."""
    return cast("re.Pattern[str]", LazyPattern(pattern, flags))
