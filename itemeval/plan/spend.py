"""The spend cap of one run: a lease a launcher hands its shards, each task's priced
gate, a shard's share of the connections."""

from __future__ import annotations

import os
from dataclasses import replace

from ..records import TaskSpec
from .budget import DEFAULT_CONNECTIONS, Lease, PricedGate, SpendCap
from .lease import LEASE_ENV
from .pricing import Price, PriceTable, format_usd, panel_price


def shared_lease(holder: str) -> Lease | None:
    """The budget lease a launcher handed this shard in its environment (`launch
    --engine ray`), if any."""
    if not os.environ.get(LEASE_ENV):
        return None
    from .lease import (
        lease_from_env,  # ray loads only in the shards of a Ray launch
    )

    return lease_from_env(holder)


def share_connections(spec: TaskSpec, shards: int) -> TaskSpec:
    """One of `shards` shards gets its share of the model's connections, so N shards
    do not send N times as many."""
    connections = spec.config.get("max_connections") or DEFAULT_CONNECTIONS
    return replace(
        spec,
        config={**spec.config, "max_connections": max(1, -(-connections // shards))},
    )


def arm_cap(max_usd: float | None, run_id: str) -> SpendCap | None:
    """The hard cap of an approved run: its own `max_usd`, or (a shard of a Ray
    launch) the launcher's budget leased in chunks."""
    if max_usd is None:
        return None
    lease = shared_lease(run_id)
    return SpendCap(cap=0.0 if lease is not None else max_usd, lease=lease)


def priced_gate(cap: SpendCap, prices: PriceTable, spec: TaskSpec) -> PricedGate:
    """The gate each of a task's calls passes: its worst case must fit under the
    cap."""
    return PricedGate(
        cap=cap,
        price=spec_price(prices, spec),
        max_tokens=spec.config.get("max_tokens"),
        model=spec.model,
        connections=spec.config.get("max_connections") or DEFAULT_CONNECTIONS,
    )


def spec_price(prices: PriceTable, spec: TaskSpec) -> Price | None:
    """The task's model's price; a model-graded panel's models all grade each
    sample, so their rates add up (a conservative bound that the cap holds to:
    actual usage is priced at the summed rates too)."""
    if spec.scorer is None:
        return prices.lookup(spec.model)
    model = spec.scorer["params"]["model"]
    models = [model] if isinstance(model, str) else model
    return panel_price([prices.lookup(m) for m in models])


def overrun_note(cap: SpendCap) -> str:
    """Why the spend went over the cap, which no call started after reaching."""
    return (
        f"spend {format_usd(cap.spent)} went over max_usd {format_usd(cap.cap)} by "
        f"{format_usd(cap.spent - cap.cap)}: the provider returned more tokens than "
        "max_tokens allows, so calls already in flight cost more than their worst "
        "case; no call started once the spend reached the cap"
    )
