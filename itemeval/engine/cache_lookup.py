"""Which planned calls inspect's local response cache holds, looked up before a run.

A cached call costs nothing, so `estimate` and the spend gate price it at $0. The key
is inspect's own (`inspect_ai.model._cache.CacheEntry`), built from what the run would
send: the sample's messages as inspect makes them a conversation, the model's merged
config with its reply ceiling filled in, its endpoint and the condition's cache policy.
What cannot be looked up (a provider that cannot be built without its key, an
inspect-ai whose private helpers moved) counts as not cached: never too low a price.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from ..lazy import lazy_import
from ..records import Cell, TaskSpec, draw_seed

asyncio = lazy_import("asyncio")  # a command that looks nothing up never loads it

FOUND: dict[str, tuple[str, tuple[str, ...]]] = {}
"""Task name (condition id) -> (model, the cache keys its last lookup found), for
naming the studies whose calls answer them (cache_origins)."""


def cached_sample_ids(spec: TaskSpec) -> frozenset[str]:
    """The sample ids of `spec` whose one call inspect would answer from its cache."""
    if spec.cache_scope is None or spec.scorer is not None or not spec.cells:
        return frozenset()
    if not _has_entries(spec.model):  # nothing cached for the model: skip building it
        return frozenset()
    try:
        return frozenset(asyncio.run(_lookup(spec)))
    # an unknown answer is "not cached", never an error
    except Exception:  # noqa: BLE001 - the reason above
        return frozenset()


def _has_entries(model: str) -> bool:
    # Most studies' models have no entries yet: look first where inspect keeps them
    # without loading inspect-ai (a second of `estimate`'s start, and of a launcher's
    # before its shards start); inspect's own `cache_path` then has the last word.
    if not _non_empty(cache_root() / model):
        return False
    from inspect_ai.model import cache_path

    try:
        folder = cache_path(model=model)
    except ValueError:
        return False
    return _non_empty(folder)


def cache_root() -> Path:
    """The folder of inspect's response cache, as every inspect-ai of the tested range
    finds it (its public `cache_path()`, which creates the folder; tests hold the two
    equal on both ends of the range), without loading inspect-ai."""
    configured = os.environ.get("INSPECT_CACHE_DIR")
    if configured:
        return Path(configured) / "generate"
    from platformdirs import user_cache_path  # inspect-ai's own choice of folder

    return user_cache_path("inspect_ai") / "generate"


def _non_empty(folder: Path) -> bool:
    try:
        return folder.is_dir() and any(folder.iterdir())
    except OSError:
        return False


async def _lookup(spec: TaskSpec) -> list[str]:
    from .compat import cache_fetch

    found, keys = [], []
    for cell, entry in await cache_entries(spec, spec.cells):
        with contextlib.redirect_stdout(sys.stderr):
            cached = cache_fetch(entry)
        # a reply with no choices is passed over and asked again (paid) by the run
        if cached is not None and cached.choices:
            found.append(cell.sample_id)
            keys.append(entry.key)
    FOUND[spec.name] = (spec.model, tuple(keys))
    return found


async def cache_entries(spec: TaskSpec, cells: list[Cell]) -> list[tuple[Cell, Any]]:
    """Each cell's key in inspect's cache (a CacheEntry), as the task's call would
    make it; batch mode stores its replies under them too."""
    from inspect_ai.model import GenerateConfig

    from .compat import cache_entry, prepared_input, resolved_config
    from .tasks import build_model, cache_policy

    model = build_model(spec.model)
    # Inside the task the model is the active one: its own config, then the task's, then
    # the empty config of the solver's generate() call.
    config = model.config.merge(GenerateConfig(**spec.config))
    config = resolved_config(model, config)
    if config.max_tokens is None:
        config.max_tokens = (
            model.api.max_tokens_for_config(config) or model.api.max_tokens()
        )
    entries = []
    for cell in cells:
        messages = _conversation(cell, config)
        prepared = await prepared_input(model, messages, config)
        seed = draw_seed(cell.metadata)  # a judge's later draw is sent with its own
        entry = cache_entry(
            base_url=model.api.base_url,
            config=config.model_copy(
                deep=True, update={} if seed is None else {"seed": seed}
            ),
            input=prepared.input,
            model=str(model),
            policy=cache_policy(spec.cache_scope, cell.metadata),
            tool_choice=prepared.tool_choice,
            tools=prepared.tools,
        )
        entries.append((cell, entry))
    return entries


def _conversation(cell: Cell, config: Any) -> list[Any]:
    """The messages inspect sends for the cell: its sample's input as a conversation."""
    from inspect_ai.model import ChatMessageSystem

    from .compat import sample_messages
    from .tasks import sample_for

    messages = sample_messages(sample_for(cell))
    if config.system_message:
        messages = [ChatMessageSystem(content=config.system_message), *messages]
    return messages


def store_replies(spec: TaskSpec, replies: list[tuple[Cell, dict[str, Any]]]) -> int:
    """Write chat completions (a provider batch's answers) into the cache under the
    cells' keys; how many were stored."""
    return asyncio.run(_store(spec, replies))


async def _store(spec: TaskSpec, replies: list[tuple[Cell, dict[str, Any]]]) -> int:
    from .compat import cache_store

    bodies = {cell.sample_id: body for cell, body in replies}
    stored = 0
    for cell, entry in await cache_entries(spec, [cell for cell, _ in replies]):
        output = await model_output(bodies[cell.sample_id])
        with contextlib.redirect_stdout(sys.stderr):
            stored += bool(cache_store(entry, output))
    return stored


async def model_output(body: dict[str, Any]) -> Any:
    """A chat completion as inspect's ModelOutput, read the way its openai provider
    reads a live one (inspect's public `model_output_from_openai`)."""
    from inspect_ai.model import model_output_from_openai

    return await model_output_from_openai(body)


def model_outputs(bodies: list[dict[str, Any]]) -> list[Any]:
    """`model_output` of each chat completion, from code that is not async."""

    async def read() -> list[Any]:
        return [await model_output(body) for body in bodies]

    return asyncio.run(read())
