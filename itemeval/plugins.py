"""Registries filled from above: a part of itemeval that lives in a higher layer
(inspect-ai's scorer families, an inspect task as a dataset) registers itself in the
registry of the layer that looks it up, so that layer never imports upward.

A registry that is asked for a name it does not hold calls `load()`, which imports
every module of the `itemeval.plugins` entry point group once (pyproject.toml names
`itemeval.engine.plugin`); another installed package may add its own the same way.
"""

from __future__ import annotations

from importlib.metadata import entry_points

GROUP = "itemeval.plugins"

_loaded = False


def load() -> None:
    """Import the installed plugin modules, once per process; each registers its
    parts as it loads."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for entry in entry_points(group=GROUP):
        entry.load()


def missing(what: str) -> str:
    """The message of a registry that still lacks a part after `load()`: the
    package's metadata is not installed (a checkout on sys.path only)."""
    return (
        f"{what} is registered by itemeval's engine through the {GROUP!r} entry "
        "point, which this environment does not have: install itemeval "
        "(pip install -e . in a checkout)"
    )
