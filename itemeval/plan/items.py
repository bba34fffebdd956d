"""Which items a run covers: the first N (--limit), those with given ids (--items),
or a reproducible random sample, stratified by a metadata column (--sample)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import ConfigError
from ..records import Item

_NO_METADATA = "no metadata (add columns under benchmark.mapping.metadata)"


def first_items(items: Sequence[Item], limit: int | None) -> list[Item]:
    """The items a run covers: the first `limit` of them (`--limit`), or all."""
    return list(items if limit is None else items[:limit])


def choose_items(
    items: Sequence[Item],
    *,
    limit: int | None = None,
    sample: int | None = None,
    seed: int = 0,
    stratify: str | None = None,
    ids: Sequence[str] = (),
) -> list[Item]:
    """The items a run covers: `--items` first, then `--limit`, then a reproducible
    random `--sample` of what is left.

    With `stratify` (an item metadata key) each stratum gets its share of the sample
    (largest remainders round it), so a small sample keeps the mix of, say, difficulty
    levels. The chosen items keep the dataset's order; the same items, sample, seed and
    stratify always choose the same.
    """
    if stratify is not None and not any(stratify in item.metadata for item in items):
        known = sorted({key for item in items for key in item.metadata})
        raise ConfigError(
            f"--stratify {stratify!r}: no item has that metadata key; the items have: "
            f"{', '.join(known) or _NO_METADATA}"
        )
    pool = first_items(by_id(items, ids), limit)
    if sample is None or sample >= len(pool):
        return pool
    rng = np.random.default_rng(seed)
    strata: dict[str, list[int]] = {}
    for index, item in enumerate(pool):
        strata.setdefault(
            str(item.metadata.get(stratify, "")) if stratify else "", []
        ).append(index)
    chosen: list[int] = []
    for members, size in zip(
        strata.values(), _shares(sample, [len(m) for m in strata.values()])
    ):
        chosen.extend(
            rng.choice(members, size=size, replace=False).tolist() if size else []
        )
    return [pool[index] for index in sorted(chosen)]


def by_id(items: Sequence[Item], ids: Sequence[str]) -> list[Item]:
    """The items named by `--items` (all when none is; repeated, or several ids
    joined by commas), in the dataset's order; an id that no item has is a usage
    error naming it."""
    if not ids:
        return list(items)
    known = {item.id for item in items}
    # `--items q01,q03` names two items, unless an item's id holds that comma
    wanted = {
        part.strip()
        for given in ids
        for part in ([given] if given in known else given.split(","))
        if part.strip()
    }
    unknown = sorted(wanted - known)
    if unknown:
        sample = ", ".join(item.id for item in items[:5])
        raise ConfigError(
            f"--items: no item has id {', '.join(map(repr, unknown))} "
            f"(the study's ids look like: {sample})"
        )
    return [item for item in items if item.id in wanted]


def _shares(total: int, sizes: list[int]) -> list[int]:
    """`total` split in proportion to `sizes` (largest remainder; ties to the earlier
    stratum)."""
    whole = sum(sizes)
    exact = [total * size / whole for size in sizes]
    shares = [int(x) for x in exact]
    order = sorted(range(len(sizes)), key=lambda k: (-(exact[k] - shares[k]), k))
    for k in order[: total - sum(shares)]:
        shares[k] += 1
    return shares
