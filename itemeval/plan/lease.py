"""The budget a Ray launch leases to its shards: the book an actor keeps, and a shard's
side of it (budget.Lease).

Only the shards of `launch --engine ray` load Ray through here (spend.shared_lease); the
launcher's side is stages/launch/ray.py.
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import ConfigError

LEASE_ENV = "ITEMEVAL_BUDGET_LEASE"
"""Set by `launch --engine ray` for its shards: where the budget actor is
(`<namespace>/<actor name>`)."""


class BudgetBook:
    """The cap and what each holder has leased of it (a Ray actor in a launch; plain
    Python here, for tests)."""

    def __init__(self, cap: float, chunk: float) -> None:
        self.cap = cap
        self.chunk = chunk
        self.leased: dict[str, float] = {}

    def take(self, holder: str, need: float) -> float:
        left = self.cap - sum(self.leased.values())
        grant = max(0.0, min(left, max(need, self.chunk)))
        self.leased[holder] = self.leased.get(holder, 0.0) + grant
        return grant

    def settle(self, holder: str, spent: float) -> None:
        self.leased[holder] = spent

    def holders(self) -> dict[str, float]:
        return dict(self.leased)


class RayLease:
    """One shard's side of the budget actor (budget.Lease)."""

    def __init__(self, actor: Any, holder: str) -> None:
        self.actor = actor
        self.holder = holder

    def take(self, need: float) -> float:
        ray = require_ray()
        return float(ray.get(self.actor.take.remote(self.holder, need)))

    def settle(self, spent: float) -> None:
        ray = require_ray()
        ray.get(self.actor.settle.remote(self.holder, spent))


def lease_from_env(holder: str) -> RayLease:
    """Join the launcher's cluster (RAY_ADDRESS) and find its budget actor (named in
    ITEMEVAL_BUDGET_LEASE)."""
    ray = require_ray()
    namespace, _, name = os.environ[LEASE_ENV].partition("/")
    if not ray.is_initialized():
        ray.init(
            address=os.environ.get("RAY_ADDRESS"),
            namespace=namespace,
            log_to_driver=False,
            configure_logging=False,
        )
    return RayLease(ray.get_actor(name, namespace=namespace), holder)


def require_ray() -> Any:
    """The ray module, or a config error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "--engine ray needs Ray: pip install 'itemeval[ray]' (or use "
            "--engine local)"
        ) from None
    return ray
