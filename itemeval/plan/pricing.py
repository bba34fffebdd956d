"""The price table: packaged USD-per-million-token prices, merged with a study's
override file (README "Cost").

Lookup is by exact inspect model id after `normalise_model_id` (surrounding whitespace
dropped, lower-cased). Nothing else is folded together, on purpose:
- `openai-api/<service>/<model>` is never mapped to `openai/<model>`: another host sets
  its own prices.
- Dated snapshots are not mapped to their alias (`openai/gpt-4o-2024-05-13` costs twice
  `openai/gpt-4o`), so the table lists the dated ids it prices.
An unpriced model gives `None`, never a price of 0.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError
from ..textfiles import read_utf8

PER_TOKENS = 1_000_000


@dataclass(frozen=True)
class Price:
    """USD per million tokens for one model."""

    input: float
    output: float
    cache_read: float | None = None
    """Rate for tokens read from the provider's prompt cache; the input rate when
    unknown."""
    cache_write: float | None = None
    """Rate for tokens written to the provider's prompt cache; the input rate when
    unknown."""
    demo: bool = False
    """A made-up price for a built-in offline model, so the demo shows real
    arithmetic."""
    batch: float | None = None
    """The share of these rates a batch call is billed at (0.5: half price); None: the
    provider's share in the table's `batch`, else no discount known."""

    def cost(
        self,
        input_tokens: int,
        output_tokens: int,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
    ) -> float:
        """USD for one call. Inspect's `input_tokens` already excludes cached tokens,
        so nothing is counted twice."""
        cache_read = self.input if self.cache_read is None else self.cache_read
        cache_write = self.input if self.cache_write is None else self.cache_write
        total = (
            input_tokens * self.input
            + output_tokens * self.output
            + cache_read_tokens * cache_read
            + cache_write_tokens * cache_write
        )
        return total / PER_TOKENS


def call_usd(
    price: Price | None, usage: Mapping[str, int | None] | None, *, cache_hit: bool
) -> float | None:
    """USD of one finished call: 0 for a local cache hit or a call without usage,
    None when unpriced."""
    if cache_hit:
        return 0.0
    if price is None:
        return None
    if usage is None:
        return 0.0
    return price.cost(
        usage.get("input_tokens") or 0,
        usage.get("output_tokens") or 0,
        usage.get("cache_read_tokens") or 0,
        usage.get("cache_write_tokens") or 0,
    )


def panel_price(prices: list[Price | None]) -> Price | None:
    """One price whose rates are the sum of several models' rates: what a call to
    each of them costs at most."""
    if not prices or any(price is None for price in prices):
        return None
    known = [price for price in prices if price is not None]
    return Price(
        input=sum(p.input for p in known),
        output=sum(p.output for p in known),
        cache_read=sum(
            p.input if p.cache_read is None else p.cache_read for p in known
        ),
        cache_write=sum(
            p.input if p.cache_write is None else p.cache_write for p in known
        ),
    )


def total_usd(values: Iterable[float | None]) -> float | None:
    """A sum that is unknown when any part is (an unpriced model), never a fake $0."""
    total = 0.0
    for value in values:
        if value is None:
            return None
        total += value
    return total


def format_usd(value: float | None) -> str:
    """Dollars as people read them: cents for big sums, more digits for the small
    sums of a pilot run."""
    if value is None:
        return "unknown"
    return f"${value:,.2f}" if value >= 1 else f"${value:,.4f}"


_OFFLINE_RATE = re.compile(r"itemeval/arith-\d{1,3}")


def normalise_model_id(model_id: str) -> str:
    """The form table keys are stored and looked up in."""
    return model_id.strip().lower()


@dataclass(frozen=True)
class PriceTable:
    """Prices by normalised model id, with where they came from."""

    prices: Mapping[str, Price] = field(default_factory=lambda: MappingProxyType({}))
    date: str | None = None
    source: str | None = None
    batch: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    """Per provider (`openai`, `anthropic`...), the share of the live price its batch
    API bills."""

    def lookup(self, model_id: str) -> Price | None:
        """The price of `model_id`, or None when the table does not know it. The
        offline `itemeval/arith-NN` models (any base rate) have arith-fair's demo
        price unless the table names them."""
        key = normalise_model_id(model_id)
        price = self.prices.get(key)
        if price is None and _OFFLINE_RATE.fullmatch(key):
            return self.prices.get("itemeval/arith-fair")
        return price

    def batch_factor(self, model_id: str) -> float:
        """What a batch call costs as a share of a live one: the model's own `batch`,
        else its provider's, else 1 (no discount known: never too low a price)."""
        price = self.lookup(model_id)
        if price is not None and price.batch is not None:
            return price.batch
        provider = normalise_model_id(model_id).split("/")[0]
        return self.batch.get(provider, 1.0)

    def __contains__(self, model_id: object) -> bool:
        return isinstance(model_id, str) and self.lookup(model_id) is not None


class _PriceEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0, allow_inf_nan=False)
    output: float = Field(ge=0, allow_inf_nan=False)
    cache_read: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    cache_write: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    demo: bool = False
    batch: float | None = Field(default=None, gt=0, le=1, allow_inf_nan=False)
    note: str | None = None


class _PriceFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    models: dict[str, _PriceEntry]
    date: str | None = None
    source: str | None = None
    batch: dict[str, float] = Field(default_factory=dict)


def _parse(text: str, origin: str) -> _PriceFile:
    try:
        return _PriceFile.model_validate(json.loads(text))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"Pricing file {origin} is not valid JSON (line {exc.lineno}, "
            f"column {exc.colno}: {exc.msg})."
        ) from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ConfigError(
            f"Pricing file {origin}: {where}: {first['msg']}. Expected "
            '{"models": {"<provider>/<model>": {"input": <USD/1M>, "output": '
            '<USD/1M>, "cache_read": ..., "cache_write": ...}}}.'
        ) from exc


def _prices(parsed: _PriceFile) -> dict[str, Price]:
    return {
        normalise_model_id(model_id): Price(
            input=e.input,
            output=e.output,
            cache_read=e.cache_read,
            cache_write=e.cache_write,
            demo=e.demo,
            batch=e.batch,
        )
        for model_id, e in parsed.models.items()
    }


def packaged_prices() -> PriceTable:
    """The table shipped in `itemeval/_builtin/pricing.json`."""
    text = (
        resources.files("itemeval")
        .joinpath("_builtin/pricing.json")
        .read_text(encoding="utf-8")
    )
    parsed = _parse(text, "itemeval/_builtin/pricing.json")
    return PriceTable(
        prices=MappingProxyType(_prices(parsed)),
        date=parsed.date,
        source=parsed.source,
        batch=MappingProxyType(dict(parsed.batch)),
    )


def load_prices(override_path: Path | None = None) -> PriceTable:
    """The packaged table with `override_path`'s entries replacing or adding models."""
    table = packaged_prices()
    if override_path is None:
        return table
    try:
        text = read_utf8(Path(override_path), "pricing file")
    except FileNotFoundError as exc:
        raise ConfigError(
            f"Pricing file {override_path} does not exist (budget.pricing_path)."
        ) from exc
    except OSError as exc:  # not UTF-8 is read_utf8's own ConfigError
        raise ConfigError(
            f"Pricing file {override_path} cannot be read: {exc}."
        ) from exc
    parsed = _parse(text, str(override_path))
    merged = {**table.prices, **_prices(parsed)}
    dated = f" (dated {parsed.date})" if parsed.date else ""
    source = f"{table.source} Overridden by {override_path}{dated}."
    batch = MappingProxyType({**table.batch, **parsed.batch})
    return PriceTable(
        prices=MappingProxyType(merged), date=table.date, source=source, batch=batch
    )
