"""The spend gate and the hard cap: confirm before spending, and start a call only
while the cap still holds."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Protocol, Sequence

from ..errors import BudgetError, ConfirmationRequired
from ..lazy import lazy_import
from ..records import TaskSpec
from .cost import DEFAULT_MAX_TOKENS, worst_case_usd
from .estimates import Estimate
from .pricing import Price, call_usd, format_usd

asyncio = lazy_import("asyncio")  # the cap's locks exist only inside a run


def check_gate(
    estimate: Estimate,
    *,
    confirm_above: float | None,
    yes: bool,
    ask: Callable[[str], bool] | None,
    projected: bool = False,
) -> None:
    """Above `confirm_above` a run needs --yes or an answer on the terminal; nothing
    runs otherwise.

    The figure held against it is the ceiling, or with `projected` (after a pilot) the
    upper bound of the projection from the replies observed, which is far closer to what
    a run spends.
    """
    # An unpriced model adds an unknown amount: the priced part alone can already need
    # confirmation.
    high = estimate.bound("usd_high") if projected else None
    ceiling = high if high is not None else _priced_total(estimate, "usd_ceiling")
    what = (
        "projected spend (95% upper bound)"
        if high is not None
        else "projected spend ceiling"
    )
    if confirm_above is None or yes or ceiling <= confirm_above:
        return
    unpriced = estimate.unpriced_models()
    plus = f" plus an unknown amount for {', '.join(unpriced)}" if unpriced else ""
    question = (
        f"This run may spend up to {format_usd(ceiling)}{plus} (expected "
        f"{format_usd(_priced_total(estimate, 'usd_expected'))}), "
        f"above budget.confirm_above_usd {format_usd(confirm_above)}. Continue?"
    )
    if ask is not None and ask(question):
        return
    raise ConfirmationRequired(
        f"{what} {format_usd(ceiling)}{plus} is above budget.confirm_above_usd "
        f"{format_usd(confirm_above)}; "
        "re-run with --yes to confirm (nothing was run)"
    )


def approved_ceiling(estimate: Estimate) -> float:
    """The spend a run is approved for: its estimate's priced ceiling."""
    return _priced_total(estimate, "usd_ceiling")


def may_spend_more(
    approved: float, more: float | None, *, confirm_above: float | None, yes: bool
) -> bool:
    """Whether a run may spend `more` (None: unknown) beyond the `approved` ceiling
    without asking again: with --yes or no gate, or while both stay within the gate."""
    if confirm_above is None or yes:
        return True
    return more is not None and approved + more <= confirm_above


def _priced_total(estimate: Estimate, attribute: str) -> float:
    return float(
        sum(
            value
            for value in (getattr(line, attribute) for line in estimate.lines)
            if value is not None
        )
    )


def check_cap(estimate: Estimate, max_usd: float | None) -> list[str]:
    """Refuse an unpriced model under a cap; say how far a run will likely get when
    the estimate exceeds it."""
    if max_usd is None or estimate.calls == 0:
        return []
    unpriced = estimate.unpriced_models()
    if unpriced:
        raise BudgetError(
            f"max_usd {format_usd(max_usd)} is set but {', '.join(unpriced)} "
            "has no price, so the cap could not hold; "
            "add it to a pricing file (budget.pricing_path) or remove the cap "
            "(nothing was run)"
        )
    expected, ceiling = (
        estimate.total("usd_expected") or 0.0,
        estimate.total("usd_ceiling") or 0.0,
    )
    if expected > max_usd:
        share = max_usd / expected if expected else 1.0
        return [
            f"the expected spend {format_usd(expected)} exceeds max_usd "
            f"{format_usd(max_usd)}: the run will likely stop "
            f"after about {share:.0%} of its {estimate.calls} calls; a later "
            "run with a higher cap continues"
        ]
    if ceiling > max_usd:
        return [
            f"the worst case {format_usd(ceiling)} exceeds max_usd "
            f"{format_usd(max_usd)}: the run may stop before the end"
        ]
    return []


DEFAULT_CONNECTIONS = 10
"""inspect's own default `max_connections` for a provider: a capped run reserves no
more calls per model."""


class CallGate(Protocol):
    """Decides, before every model call, whether it may start; told what the call
    used when it ends."""

    async def acquire(self, key: str, prompt: str) -> bool: ...

    async def release(
        self, key: str, usage: dict[str, int | None] | None, cache_hit: bool
    ) -> None: ...


class Lease(Protocol):
    """A share of a cap held across processes (`launch --engine ray`): budget is
    taken in chunks as it is needed."""

    def take(self, need: float) -> float:
        """More budget: at least `need` while that much is left, less (0.0 when none)
        once the cap is leased out."""
        ...

    def settle(self, spent: float) -> None:
        """Report what this holder spent in all; what it leased beyond that goes back
        for other holders."""
        ...


@dataclass
class SpendCap:
    """Shared by every task of a run: spend so far plus the worst case of the calls in
    flight never exceed the cap.

    With a `lease`, `cap` is what this process has leased so far, and it grows chunk by
    chunk until the lease runs dry; from then on the cap holds as for a single process.
    """

    cap: float
    spent: float = 0.0
    stopped: bool = False
    lease: Lease | None = None
    _dry: bool = False
    _in_flight: dict[str, float] = field(default_factory=dict)
    replies: dict[str, ReplySizes] = field(default_factory=dict)
    """What each model's replies showed about honouring max_tokens (the slow start)."""
    _model_of: dict[str, str] = field(default_factory=dict)
    _changed: asyncio.Condition | None = None
    _slots: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Semaphore] = field(
        default_factory=dict
    )

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def reserve(
        self,
        key: str,
        worst: float | Callable[[], float],
        model: str = "",
        connections: int = 1,
    ) -> bool:
        """Wait while calls in flight might free room; False (and stop the run) when
        this call can never fit.

        Until a reply of `model` has shown whether the provider honours max_tokens, one
        of its calls is in flight; then, while the cap is within reach of `connections`
        worst cases, one more than its replies have confirmed (ReplySizes.window).
        """
        changed = self._condition()
        async with changed:
            while not self.stopped:
                # a callable worst case is asked again after each wait: a reply may have
                # shown that the provider writes past max_tokens
                this = worst() if callable(worst) else worst
                need = self.spent + sum(self._in_flight.values()) + this - self.cap
                if need <= 0 and self._within_window(model, this, connections):
                    self._in_flight[key] = this
                    self._model_of[key] = model
                    return True
                if need <= 0:
                    # a reply will confirm the provider, or end a call
                    await changed.wait()
                    continue
                if self.lease is not None and not self._dry:
                    await self._take_lease(self.lease, need)
                    continue
                if not self._in_flight:
                    self.stopped = True
                    break
                await changed.wait()
            changed.notify_all()
            return False

    async def _take_lease(self, lease: Lease, need: float) -> None:
        """The cap raised by what the lease grants of `need`; dry once it grants
        less."""
        granted = await asyncio.to_thread(lease.take, need)
        self.cap += granted
        self._dry = granted < need

    def hold_most(self, worst: Sequence[float]) -> int:
        """Reserve the worst cases of as many of `worst`, in order, as fit (a provider
        batch cut to the cap), taking more of a lease when one is held; how many were
        held (0: none fits, nothing is held, and the holder decides whether to stop).
        The holder settles them by adding what they cost less what was held to
        `spent`."""
        need = self.spent + sum(self._in_flight.values()) + sum(worst) - self.cap
        if need > 0 and self.lease is not None and not self._dry:
            granted = self.lease.take(need)
            self.cap += granted
            self._dry = granted < need
        room = self.cap - self.spent - sum(self._in_flight.values())
        count, total = 0, 0.0
        for each in worst:
            if total + each > room:
                break
            total, count = total + each, count + 1
        self.spent += total
        return count

    def slots(self, model: str, limit: int) -> asyncio.Semaphore:
        """A model's call slots for this event loop (each eval runs its own loop):
        reservations wait for one, so calls reserved but still queued for a
        connection never outnumber the connections."""
        # the loop itself, not its id: a dead loop's id can come back
        key = (
            asyncio.get_running_loop(),
            model,
        )
        if key not in self._slots:
            self._slots[key] = asyncio.Semaphore(limit)
        return self._slots[key]

    def _within_window(self, model: str, worst: float, connections: int) -> bool:
        sizes = self.replies.setdefault(model, ReplySizes())
        known = sizes.confirmed or sizes.largest
        if known and self.cap - self.spent >= connections * worst:
            return True  # the provider showed its reply sizes, a wave fits: no bet
        flying = sum(1 for m in self._model_of.values() if m == model)
        return flying < sizes.window()

    async def settle(self, key: str, actual: float) -> None:
        changed = self._condition()
        async with changed:
            self._in_flight.pop(key, None)
            self._model_of.pop(key, None)
            # the running total never goes down, whatever a price or a count says
            self.spent += max(actual, 0.0)
            changed.notify_all()


@dataclass
class ReplySizes:
    """One model's replies against the max_tokens its calls asked for (issue 26: a
    provider ignoring max_tokens made a 20-connection run spend 13× its cap at
    once)."""

    confirmed: int = 0
    """Replies that stayed within max_tokens."""
    largest: int = 0
    """The most output tokens of a reply beyond max_tokens; 0 while none went beyond."""

    def window(self) -> float:
        """Calls that may be in flight while the cap is within reach of a wave: one more
        than the replies that confirmed max_tokens (TCP's slow start); once a reply went
        beyond, reservations use `largest`, so the cap itself bounds the calls."""
        return math.inf if self.largest else self.confirmed + 1

    def seen(self, output_tokens: int | None, max_tokens: int | None) -> None:
        if output_tokens is None or max_tokens is None:
            return
        if output_tokens > max_tokens:
            self.largest = max(self.largest, output_tokens)
        else:
            self.confirmed += 1

    def ceiling(self, max_tokens: int | None) -> int | None:
        """The reply length to reserve: max_tokens, or the largest reply seen beyond."""
        if max_tokens is None:
            return None
        return max(max_tokens, self.largest)


@dataclass
class PricedGate:
    """The cap as seen by one condition's task: its model's price and its reply
    ceiling."""

    cap: SpendCap
    price: Price
    max_tokens: int | None
    model: str = ""
    connections: int = DEFAULT_CONNECTIONS

    @property
    def stopped(self) -> bool:
        return self.cap.stopped

    async def acquire(self, key: str, prompt: str) -> bool:
        slots = self.cap.slots(self.model, self.connections)
        await slots.acquire()
        sizes = self.cap.replies.setdefault(self.model, ReplySizes())

        def worst() -> float:
            return worst_case_usd(self.price, prompt, sizes.ceiling(self.max_tokens))

        if await self.cap.reserve(self._key(key), worst, self.model, self.connections):
            return True
        slots.release()
        return False

    async def release(
        self, key: str, usage: dict[str, int | None] | None, cache_hit: bool
    ) -> None:
        if usage is not None and not cache_hit:
            sizes = self.cap.replies.setdefault(self.model, ReplySizes())
            sizes.seen(usage.get("output_tokens"), self.max_tokens)
        try:
            await self.cap.settle(
                self._key(key), call_usd(self.price, usage, cache_hit=cache_hit) or 0.0
            )
        finally:
            self.cap.slots(self.model, self.connections).release()

    def _key(self, sample_id: str) -> str:
        # Sample ids repeat across conditions (every generate task has an `a1#1`); one
        # gate serves one task, so its identity keeps two tasks' calls in flight apart
        # in the shared cap.
        return f"{id(self)}:{sample_id}"


def with_reply_ceiling(spec: TaskSpec) -> TaskSpec:
    """The spec with a max_tokens set: the cap's worst case assumes a bounded reply,
    so a capped call must send one."""
    if "max_tokens" in spec.config:
        return spec
    return replace(spec, config={**spec.config, "max_tokens": DEFAULT_MAX_TOKENS})
