"""What a generate plan sends: one inspect task per condition, one sample per (item,
replication), each the item's rendered prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import pandas as pd

from ..errors import ConfigError
from ..hashing import canonical_json, text_hash
from ..records import Cell, GenerateCondition, Item, TaskSpec
from ..study import chat
from ..study.prompts import PROMPT_LIMIT, PromptTooLong

if TYPE_CHECKING:
    from ..study.config import StudyConfig


def render_messages(condition: GenerateCondition, item: Item) -> list[chat.Message]:
    """What one item is sent: the prompt's system message and shots, then its turn."""
    values = {**item.metadata, "input": item.input, "id": item.id}
    try:
        return chat.render_chat(condition.prompt.text, values, limit=PROMPT_LIMIT)
    except PromptTooLong as exc:
        raise ConfigError(
            f"{item.dataset_id}: row {item.row + 1} (id {item.id!r}): prompt "
            f"{condition.prompt.ref!r} {exc}; shorten the field or the prompt"
        ) from None


def input_hash(condition: GenerateCondition, item: Item) -> str:
    """The hash of what a cell sends (README "What a solution records"): the turns of
    an inspect task's chat sample, then the prompt's system message, shots and the
    item's rendered turn; the same for every replication."""
    return _hash_of(render_messages(condition, item), item)


def _hash_of(messages: list[chat.Message], item: Item) -> str:
    turns = [[role, text] for role, text in messages]
    history = item.metadata.get("inspect_messages") or []
    return text_hash(canonical_json({"history": history, "turns": turns})) or ""


def render_prompt(condition: GenerateCondition, item: Item) -> str:
    """The whole chat as text (just the prompt when it has no front matter)."""
    return chat.as_text(render_messages(condition, item))


def _cell(condition: GenerateCondition, item: Item, epoch: int) -> Cell:
    messages = render_messages(condition, item)
    *preamble, (_, prompt) = messages
    return Cell(
        sample_id=f"{item.id}#{epoch}",
        prompt=prompt,
        metadata={
            "condition_id": condition.id,
            "item_id": item.id,
            "replication": epoch,
            "input_hash": _hash_of(messages, item),
            **_history(item),
            **(_agent_fields(condition, item) if condition.agent else {}),
        },
        preamble=tuple(preamble),
    )


def _agent_fields(condition: GenerateCondition, item: Item) -> dict[str, Any]:
    """What an agent's sample carries besides its turns: its solver's name (an agent
    row sums all its calls: engine/samples.py), and the item's options and targets,
    which a task's solver may read (multiple_choice() needs the options)."""
    assert condition.agent is not None
    return {
        "solver": condition.agent.name,
        **({"choices": list(item.choices)} if item.choices else {}),
        "targets": list(item.targets),
    }


def call_config(config: StudyConfig) -> dict[str, Any]:
    """What every generate call is configured with besides its condition's sampling
    parameters: the solvers' limits, and batch mode when it is on."""
    batch = config.budget.batch
    return {**config.solvers.inspect_limits(), **({"batch": batch} if batch else {})}


def task_specs(
    items: list[Item],
    conditions: list[GenerateCondition],
    cells: pd.DataFrame,
    *,
    config: dict[str, Any],
    cache_scope: Callable[[str], str | None],
) -> list[TaskSpec]:
    """One inspect task per condition with cells to run; each sample is one (item,
    replication) of `items`.

    `config` is every call's (`call_config`) over the condition's own parameters;
    `cache_scope` maps a condition id to its response-cache scope (None: no cache).
    """
    by_item = {item.id: item for item in items}
    by_condition = {
        cid: frame for cid, frame in cells.groupby("condition_id", sort=False)
    }
    specs = []
    for condition in (c for c in conditions if c.id in by_condition):
        frame = by_condition[condition.id]
        task_cells = [
            _cell(condition, by_item[item_id], int(epoch))
            for item_id, epoch in zip(frame["item_id"], frame["epoch"])
        ]
        specs.append(
            TaskSpec(
                name=condition.id,
                model=condition.model,
                config={**condition.params, **config},
                cells=task_cells,
                cache_scope=cache_scope(condition.id),
                metadata={"itemeval_stage": "generate", "condition_id": condition.id},
                agent=condition.agent,
            )
        )
    return specs


def _history(item: Item) -> dict[str, Any]:
    """An inspect task's chat turns before the input, sent before the rendered
    prompt."""
    turns = item.metadata.get("inspect_messages")
    return {"history": turns} if turns else {}


class InputHashes:
    """The current input hash of a study's cells, by (condition, item): what a
    stored solution's `input_hash` is compared with. Rendered once per (prompt,
    item): conditions that share a prompt send an item alike."""

    def __init__(
        self, conditions: Sequence[GenerateCondition], items: Sequence[Item]
    ) -> None:
        self._conditions = {c.id: c for c in conditions if c.kind == "generated"}
        self._items = {item.id: item for item in items}
        self._rendered: dict[tuple[str, str], str] = {}

    def of(self, condition_id: str, item_id: str) -> str | None:
        """None for an imported condition (it was never rendered here) or an id the
        study does not have."""
        condition = self._conditions.get(condition_id)
        item = self._items.get(item_id)
        if condition is None or item is None:
            return None
        key = (condition.prompt.hash, item_id)
        if key not in self._rendered:
            self._rendered[key] = input_hash(condition, item)
        return self._rendered[key]

    def column(self, cells: pd.DataFrame) -> pd.Series:
        """Each row's current input hash (`condition_id`, `item_id` columns)."""
        pairs = cells[["condition_id", "item_id"]].drop_duplicates()
        found = {
            (c, i): self.of(c, i)
            for c, i in zip(pairs["condition_id"], pairs["item_id"])
        }
        keys = zip(cells["condition_id"], cells["item_id"])
        return pd.Series([found[key] for key in keys], index=cells.index, dtype=object)
