"""Which shard a cell belongs to (`--shard K/N`): by a hash of its condition and item,
or every cell of a model on one shard (`--shard-by model`)."""

from __future__ import annotations

import hashlib
from typing import Iterable

import pandas as pd

from ..records import Shard


def shard_of(condition_id: str, item_id: str, count: int) -> int:
    """The shard of a cell: all replications of an item together, stable as the grid
    grows, whatever the order."""
    digest = hashlib.sha256(f"{condition_id}\0{item_id}".encode()).hexdigest()
    return int(digest[:16], 16) % count


def model_shards(models: Iterable[str], count: int) -> dict[str, int]:
    """`--shard-by model`: every cell of a model on one shard, the study's models (in
    order of their ids) dealt to the shards in turn, so N models fill N shards (a hash
    of each model put two of two on one shard)."""
    return {model: k % count for k, model in enumerate(sorted(set(models)))}


def in_shard(
    frame: pd.DataFrame, shard: Shard, condition_column: str, models: dict[str, str]
) -> pd.Series:
    """Which rows of a cells frame (`condition_column`, item_id) belong to the shard;
    `models` maps condition -> model."""
    if shard.by == "model":
        dealt = model_shards(models.values(), shard.count)
        owner = frame[condition_column].map(lambda cid: dealt[models[cid]])
    else:
        owner = pd.Series(
            [
                shard_of(c, i, shard.count)
                for c, i in zip(frame[condition_column], frame["item_id"])
            ],
            index=frame.index,
            dtype="int64",
        )
    return owner == shard.index
