"""How far a capped run's next batch of a model may go (README "Batch mode"): its
size, the reply length its requests reserve, and what open batches hold once a
reply showed the provider writes past max_tokens.

A batch is billed as a whole when it ends, and until a reply shows whether the
provider honours max_tokens every request in it can pass its reservation by any
amount (issue 49: with max_tokens 16 ignored, a $3 cap ended at $55.42, its 11 batches
created before the first was answered). So a model's first batch goes alone and
small, and a model whose replies went past max_tokens has one batch open at a time,
each reserving the longest reply seen: the cap can then be passed by what one batch's
replies run past what was reserved for them, no more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...plan.budget import ReplySizes
from ...plan.cost import DEFAULT_MAX_TOKENS
from ...plan.estimates import MESSAGE_OVERHEAD_TOKENS
from . import ledger

if TYPE_CHECKING:
    from ...plan.budget import SpendCap
    from ...plan.pricing import PriceTable

FIRST_BATCH = 1
"""Requests in a capped run's first batch of a model, which goes alone: until it is
answered nothing shows whether the provider honours max_tokens, and one request
passes its reservation by one reply at most, as a live run's first call does. A
provider that honours max_tokens waits for this one reply once, then gets batches of
`budget.batch` as before."""


def sizes(cap: SpendCap, model: str) -> ReplySizes:
    """What the run's replies of `model` (live or batched) showed so far."""
    return cap.replies.setdefault(model, ReplySizes())


def limit(
    cap: SpendCap | None,
    waiting: Sequence[ledger.Submission],
    model: str,
    size: int,
) -> int:
    """Requests the next batch of `model` may hold: `size`, uncapped or once its
    replies stayed within max_tokens; else 0 while a batch of it is open, and
    `FIRST_BATCH` while none of its replies has been seen."""
    if cap is None:
        return size
    seen = sizes(cap, model)
    if seen.confirmed and not seen.largest:
        return size
    if any(submission.model == model for submission in waiting):
        return 0
    return size if seen.largest else min(size, FIRST_BATCH)


def ceiling(cap: SpendCap | None, model: str, max_tokens: int | None) -> int:
    """The reply length a request of `model` reserves: max_tokens, or the longest
    reply of the model seen in this run when that is longer."""
    asked = max_tokens or DEFAULT_MAX_TOKENS
    if cap is None:
        return asked
    return sizes(cap, model).ceiling(asked) or asked


def learn(cap: SpendCap | None, submission: ledger.Submission, usage: Any) -> None:
    """One answered request of the batch: its reply length against max_tokens."""
    if cap is None or not usage:
        return
    sizes(cap, submission.model).seen(
        usage.get("output_tokens"), submission.config.get("max_tokens")
    )


def held_usd(
    submission: ledger.Submission, prices: PriceTable, reply_tokens: int
) -> float | None:
    """The most the batch can cost with replies of `reply_tokens`, never less than
    its requests' recorded worst cases; None when its model is unpriced."""
    price = prices.lookup(submission.model)
    if price is None:
        return None
    total = 0.0
    for request in submission.requests.values():
        sent = request.sent_bytes + MESSAGE_OVERHEAD_TOKENS
        worst = submission.price_factor * price.cost(sent, reply_tokens)
        total += max(worst, request.worst_usd or 0.0)
    return total


def reprice(
    cap: SpendCap | None,
    prices: PriceTable,
    waiting: Sequence[ledger.Submission],
    reserved: dict[str, float],
) -> None:
    """Raise what the cap holds for each open batch to its worst case at its model's
    longest reply seen: a batch submitted before a reply showed the provider ignores
    max_tokens is billed for replies as long (never lowered: a count is no refund)."""
    if cap is None:
        return
    for submission in waiting:
        if submission.id not in reserved:
            continue  # an unpriced model's batch: the cap holds nothing for it
        reply = ceiling(cap, submission.model, submission.config.get("max_tokens"))
        worst = held_usd(submission, prices, reply)
        if worst is not None and worst > reserved[submission.id]:
            cap.spent += worst - reserved[submission.id]
            reserved[submission.id] = worst
