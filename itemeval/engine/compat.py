"""Every private part of inspect-ai that itemeval uses, in one place.

inspect-ai promises a stable Python API, not stable internals. What itemeval needs and
inspect does not make public is reached only through this module (tests/test_imports.py
holds the rest of the package to that), each entry saying why no public name serves.
Entries import inspect-ai when first called, so importing this module loads nothing.
A new inspect-ai release that moves one of these breaks here, and only here.

`PARTS` names what each entry reaches in which releases. Each was checked in the source
of every release from 0.3.260 to 0.3.285 the package index serves, and run at both ends
(`make test` on 0.3.285, `make test-oldest` on 0.3.260); where a part moved within the
range, the entry handles each form.
"""

from __future__ import annotations

import functools
import importlib
import os
from types import SimpleNamespace
from typing import Any, Callable

from ..version import release

TESTED = "0.3.260-0.3.285"

PARTS: dict[str, dict[str, tuple[str, ...]]] = {
    "HTTP_LOGGER": {TESTED: ("inspect_ai.model._providers.util.hooks:logger",)},
    "sample_active": {TESTED: ("inspect_ai.log._samples:sample_active",)},
    "cache_entry": {TESTED: ("inspect_ai.model._cache:CacheEntry",)},
    "cache_fetch": {TESTED: ("inspect_ai.model._cache:cache_fetch",)},
    "cache_store": {TESTED: ("inspect_ai.model._cache:cache_store",)},
    "sample_messages": {TESTED: ("inspect_ai._eval.task.util:sample_messages",)},
    "resolved_config": {TESTED: ("inspect_ai.model._model:Model._resolve_config",)},
    "prepared_input": {
        "0.3.279-0.3.285": ("inspect_ai.model._model:Model._prepare_input",),
        "0.3.260-0.3.278": tuple(
            f"inspect_ai.model._model:{name}"
            for name in (
                "ToolCallModelInputHints",
                "resolve_reasoning_history",
                "resolve_tool_model_input",
                "tool_result_media_as_user_message",
                "collapse_consecutive_messages_for_api",
            )
        ),
    },
    "load_task_spec": {TESTED: ("inspect_ai._eval.loader:load_task_spec",)},
    "registry_lookup": {TESTED: ("inspect_ai._util.registry:registry_lookup",)},
    "model_providers": {
        TESTED: (
            "inspect_ai._util.entrypoints:ensure_entry_points",
            "inspect_ai._util.registry:registry_find",
            "inspect_ai._util.registry:registry_unqualified_name",
        )
    },
    "prerequisite_error": {TESTED: ("inspect_ai._util.error:PrerequisiteError",)},
    "init_hooks": {TESTED: ("inspect_ai.hooks._startup:init_hooks",)},
    "eval_log_name": {
        "0.3.269-0.3.285": ("inspect_ai._util.log_layout:eval_log_name",),
        # before, the rule was the file recorder's, written out here
        "0.3.260-0.3.268": (),
    },
    "create_reducers": {
        TESTED: ("inspect_ai.scorer._reducer.registry:create_reducers",)
    },
    "parse_answers": {TESTED: ("inspect_ai.solver._multiple_choice:parse_answers",)},
    "mark_choices": {
        TESTED: (
            "inspect_ai.solver._multiple_choice:set_choices_based_on_generated_response",
        )
    },
    "memoise_text_normalisers": {
        TESTED: (
            "inspect_ai.scorer._classification:_normalize_token",
            "inspect_ai.scorer._classification:_normalize",
        )
    },
}
"""Each entry of this module -> the releases it was checked on -> the private names it
reaches there (`module:attribute`). A release newer than the tested ones runs when it
has every name the newest tested one has (engine/support.py)."""

OPTIONAL = frozenset({"sample_active", "memoise_text_normalisers"})
"""Entries whose absence only degrades: the offline models answer every call as epoch
1; `f1` and `exact` run uncached."""


def missing_parts(version: str, *, optional: bool = False) -> list[str]:
    """The entries of PARTS (the OPTIONAL ones too, with `optional`) whose names for
    `version` the installed inspect-ai lacks (importing its modules to look). A
    release newer than the tested ones is asked for the newest one's names."""
    return [
        entry
        for entry, forms in PARTS.items()
        if (optional or entry not in OPTIONAL)
        and not all(map(_present, _names_for(forms, release(version))))
    ]


def _names_for(forms: dict[str, tuple[str, ...]], found: tuple[int, ...]) -> tuple:
    spans = [
        (tuple(map(release, span.split("-"))), names) for span, names in forms.items()
    ]
    newest = max(spans)[1]
    return next((names for (low, high), names in spans if low <= found <= high), newest)


def _present(name: str) -> bool:
    module, _, attributes = name.partition(":")
    try:
        found: Any = importlib.import_module(module)
    except ImportError:
        return False
    for attribute in attributes.split("."):
        found = getattr(found, attribute, None)
        if found is None:
            return False
    return True


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
    """The input, tools and tool choice a model sends (and keys the cache by) for a
    call with no tools, as its own `generate()` prepares them: a private method of
    inspect's Model from inspect-ai 0.3.279 on; before, inline in `Model._generate`
    (`prepared_inline`)."""
    prepare = getattr(model, "_prepare_input", None)
    if prepare is None:
        return prepared_inline(model, messages, config)
    return await prepare(messages, [], None, config)


def prepared_inline(model: Any, messages: list[Any], config: Any) -> Any:
    """`prepared_input` for inspect-ai 0.3.260-0.3.278, whose `Model._generate` did
    the same inline before its cache entry, with the module functions of
    `inspect_ai.model._model` it called. Written for no tools: the MCP checks and tool
    filters are no-ops then (tests compare it with `_prepare_input` on 0.3.285)."""
    from inspect_ai.model import ContentDocument, ContentImage
    from inspect_ai.model import _model as inline

    api = model.api
    hints = inline.ToolCallModelInputHints(
        disable_computer_screenshot_truncation=(
            api.disable_computer_screenshot_truncation()
        )
    )
    given = inline.resolve_reasoning_history(messages, config, api)
    given = inline.resolve_tool_model_input([], given, hints)
    extract = [ContentImage] if not api.tool_result_images() else []
    extract += [ContentDocument] if not api.tool_result_documents() else []
    if extract:
        given = inline.tool_result_media_as_user_message(given, tuple(extract))
    given = inline.collapse_consecutive_messages_for_api(given, api)
    return SimpleNamespace(input=given, tools=[], tool_choice="none")


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


def eval_log_name() -> Callable[..., str]:
    """inspect's name for a task's log file, known when the task starts (each row
    carries it). inspect-ai 0.3.269 on names it in `_util.log_layout.eval_log_name`;
    the releases before held the same rule inside their file recorder, as
    `log_name_before_269` writes it out."""
    try:
        from inspect_ai._util.log_layout import eval_log_name as name
    except ImportError:
        return log_name_before_269
    return name


def log_name_before_269(*, task: str, task_id: str, created: str, model: str) -> str:
    """inspect-ai 0.3.260-0.3.268's log file name, their `FileRecorder._log_file_key`
    written out (released, so it cannot change; tests compare it with 0.3.285's
    `eval_log_name`): `<created>_` + INSPECT_EVAL_LOG_FILE_PATTERN with each part
    cleaned, the task without its package prefix (`hf/` tasks keep theirs), no model
    for none/none."""

    def clean(part: str) -> str:
        return "".join("-" if char in "_/:+" else char for char in part)

    pattern = os.getenv("INSPECT_EVAL_LOG_FILE_PATTERN", "{task}_{id}")
    display = task if task.startswith("hf/") else task.split("/", 1)[-1]
    name = f"{clean(created)}_" + pattern
    name = name.replace("{task}", clean(display)).replace("{id}", clean(task_id))
    return name.replace("{model}", clean(model) if model != "none/none" else "")


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
