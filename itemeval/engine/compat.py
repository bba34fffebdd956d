"""Every private part of inspect-ai that itemeval uses, in one place.

inspect-ai promises a stable Python API, not stable internals. What itemeval needs and
inspect does not make public is reached only through this module (tests/test_imports.py
holds the rest of the package to that), each entry saying why no public name serves.
Entries import inspect-ai when first called, so importing this module loads nothing.
A new inspect-ai release that moves one of these breaks here, and only here.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

HTTP_LOGGER = "inspect_ai.model._providers.util.hooks"
"""The logger inspect writes each provider response's HTTP status line to: the only
place a refusal's status and reason (429, 503, ...) can be read per sample."""


def sample_active() -> Any:
    """The sample running in this task, or None: its uuid and id are how a reply is
    journaled the moment its call returns (inspect exposes the active sample only
    privately, in `inspect_ai.log._samples`). None too where a later inspect-ai moved
    it: the offline models then answer every call as epoch 1."""
    try:
        from inspect_ai.log._samples import sample_active as active
    except ImportError:  # pragma: no cover - a later inspect-ai
        return None
    return active()


def cache_entry(**fields: Any) -> Any:
    """A response-cache key built as inspect builds it for a live call, so estimate
    can price a cached call at $0 and batch replies can be stored where a live call
    would find them (inspect has no public cache lookup)."""
    from inspect_ai.model._cache import CacheEntry

    return CacheEntry(**fields)


def cache_fetch(entry: Any) -> Any:
    """The cached reply of a cache entry, or None (no public lookup exists)."""
    from inspect_ai.model._cache import cache_fetch as fetch

    return fetch(entry)


def cache_store(entry: Any, output: Any) -> bool:
    """Store a batch reply under the key the same live call would have (no public
    writer exists); True when it was stored."""
    from inspect_ai.model._cache import cache_store as store

    return store(entry, output)


def sample_messages(sample: Any) -> Any:
    """The messages inspect sends for a sample: the key of its cache entry, built as
    the task would build it (the helper is internal to inspect's task runner)."""
    from inspect_ai._eval.task.util import sample_messages as messages

    return messages(sample)


def resolved_config(model: Any, config: Any) -> Any:
    """A model's generate config resolved as its own `generate()` resolves it before
    the call (and the cache key): a private method of inspect's Model."""
    return model._resolve_config(config)


async def prepared_input(model: Any, messages: list[Any], config: Any) -> Any:
    """The input, tools and tool choice a model sends (and keys the cache by), as
    its own `generate()` prepares them: a private method of inspect's Model."""
    return await model._prepare_input(messages, [], None, config)


def load_task_spec(spec: str, args: dict[str, Any]) -> list[Any]:
    """The tasks of `file.py@function` or a registered name, loaded as `inspect eval`
    loads them (the loader is internal to inspect's eval)."""
    from inspect_ai._eval.loader import load_task_spec as load

    return load(spec, args)


def registry_lookup(kind: str, name: str) -> Any:
    """A registered object (a task) by its registry name; inspect's registry has no
    public lookup."""
    from inspect_ai._util.registry import registry_lookup as lookup

    return lookup(kind, name)


def model_providers() -> set[str]:
    """The unqualified names of every provider inspect knows, installed packages'
    included, so an unknown one is refused before a run writes anything (inspect
    only finds out at the first call, with no public list)."""
    import inspect_ai.model  # noqa: F401 - registers inspect's own providers
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_find, registry_unqualified_name

    ensure_entry_points()  # providers of installed packages
    return {
        registry_unqualified_name(info)
        for info in registry_find(lambda info: info.type == "modelapi")
    }


def prerequisite_error() -> type[Exception]:
    """The error inspect raises for a provider whose package is missing, caught to
    name it as a config error (it is not exported)."""
    from inspect_ai._util.error import PrerequisiteError

    return PrerequisiteError


def init_hooks() -> None:
    """Load inspect's hooks now, so the banner its first model would print can be
    captured (the loader is internal)."""
    from inspect_ai.hooks._startup import init_hooks as init

    init()


def eval_log_name() -> Callable[..., str] | None:
    """inspect's name for a task's log file, known when the task starts (each row
    carries it); None when a later inspect moved it, and rows carry no log_file."""
    try:
        from inspect_ai._util.log_layout import eval_log_name as name
    except ImportError:  # pragma: no cover - a later inspect-ai
        return None
    return name


def create_reducers(reducer: str) -> Any:
    """inspect's epochs reducers by name, so a `multi_scorer` reducer it does not know
    is refused when the config loads (the reducer registry is internal)."""
    from inspect_ai.scorer._reducer.registry import create_reducers as create

    return create(reducer)


def parse_answers(state: Any, multiple_correct: bool) -> Any:
    """The option letters a stored reply chose, read as inspect's `multiple_choice`
    solver reads them, for its `choice` scorer over stored answers (internal)."""
    from inspect_ai.solver._multiple_choice import parse_answers as parse

    return parse(state, multiple_correct)


def mark_choices(state: Any, answers: Any) -> None:
    """Mark the chosen options on a rebuilt state as inspect's `multiple_choice`
    solver does, before its `choice` scorer reads them (internal)."""
    from inspect_ai.solver._multiple_choice import (
        set_choices_based_on_generated_response,
    )

    set_choices_based_on_generated_response(state, answers)


def memoise_text_normalisers() -> None:
    """Cache inspect's text normalisers (used by `f1` and `exact`) for the process:
    its private `_normalize_token` and `_normalize` are pure functions of their text.

    The per-token one (casefold, punctuation, number and article rules) sees the same
    tokens again and again, and the whole-text one sees each target twice per grade.
    Cached, `f1` over stored solutions costs ~8x less with the same verdicts. An
    inspect-ai without these functions runs uncached.
    """
    from inspect_ai.scorer import _classification

    token = getattr(_classification, "_normalize_token", None)
    if callable(token) and not hasattr(token, "cache_info"):
        _classification._normalize_token = functools.lru_cache(maxsize=1 << 14)(token)
    text = getattr(_classification, "_normalize", None)
    if callable(text) and not hasattr(text, "__wrapped__"):
        _classification._normalize = _cached_text_normaliser(text)


def _cached_text_normaliser(normalize: Callable[..., str]) -> Callable[..., str]:
    @functools.lru_cache(maxsize=4096)
    def cached(text: str, stop_words: tuple[str, ...] | None) -> str:
        return normalize(text, None if stop_words is None else list(stop_words))

    @functools.wraps(normalize)
    def normalize_text(text: str, stop_words: list[str] | None = None) -> str:
        return cached(text, None if stop_words is None else tuple(stop_words))

    return normalize_text
