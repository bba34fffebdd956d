"""An estimate as a value: one line per condition and stage (calls, tokens, USD
expected and at most), their totals, and the summary a run shows before its gate."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .pricing import format_usd, total_usd

NO_REPLIES_YET = (
    "no reply seen yet: the expected cost is the ceiling until some are; --pilot N "
    "projects it from N items' replies"
)

CHARS_PER_TOKEN = 4
"""The token heuristic: ceil(characters / 4); tokenizers are not available offline."""
MESSAGE_OVERHEAD_TOKENS = 8
"""Chat-format tokens around one user message."""


DEFAULT_MAX_TOKENS = 4096
"""Output ceiling assumed for a call whose config sets no max_tokens."""


def worst_case_input_tokens(text: str) -> int:
    """An upper bound on the tokens of a prompt: no tokenizer makes a token of less
    than one byte."""
    return len(text.encode("utf-8")) + MESSAGE_OVERHEAD_TOKENS


@dataclass
class EstimateLine:
    """Projected work of one condition in one stage."""

    stage: str
    condition_id: str
    slug: str
    model: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens_ceiling: int = 0
    output_tokens_expected: int = 0
    usd_ceiling: float | None = 0.0
    usd_expected: float | None = 0.0
    # where the expected output length came from: condition, model or ceiling
    basis: str = "ceiling"
    priced: bool = True
    usd_low: float | None = None
    """A 95% interval around usd_expected, when the condition's own replies were
    observed (a pilot run); otherwise both bounds are None."""
    usd_high: float | None = None
    cached: int = 0
    """Of `calls`, those inspect's response cache already answers: priced at $0."""
    usd_live_expected: float | None = None
    """In batch mode, what the calls would cost live (the usd figures are then at the
    batch price); None when the stage runs live."""
    usd_uncached_expected: float | None = None
    """What the calls would cost drawn anew (`--fresh`), none answered by the cache;
    None when no call is cached (then it is usd_expected)."""


@dataclass
class Estimate:
    lines: list[EstimateLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    open_batches: dict[str, Any] | None = None
    """What batches earlier runs left open hold (batches, requests, usd_worst): billed
    when they end, not counted in the lines."""

    def total(self, attribute: str, stage: str | None = None) -> float | None:
        return total_usd(
            getattr(line, attribute)
            for line in self.lines
            if stage in (None, line.stage)
        )

    def bound(self, attribute: str) -> float | None:
        """The total of an interval bound; a line without an interval contributes its
        expected figure. None when no line has an interval."""
        if all(getattr(line, attribute) is None for line in self.lines):
            return None
        return total_usd(
            line.usd_expected
            if getattr(line, attribute) is None
            else getattr(line, attribute)
            for line in self.lines
        )

    @property
    def calls(self) -> int:
        return sum(line.calls for line in self.lines)

    @property
    def cached(self) -> int:
        return sum(line.cached for line in self.lines)

    def projected(self, stage: str | None = None) -> bool:
        """Whether any paid call's expected cost comes from replies seen (its
        condition's or its model's); before any, expected is the ceiling."""
        return any(
            line.basis in ("condition", "model")
            for line in self.lines
            if stage in (None, line.stage) and line.calls > line.cached
        ) or not any(
            line.calls > line.cached and line.basis != "free"
            for line in self.lines
            if stage in (None, line.stage)
        )

    def unpriced_models(self) -> list[str]:
        return sorted(
            {
                line.model
                for line in self.lines
                if not line.priced and line.calls > line.cached
            }
        )

    def summary(self) -> str:
        high = self.bound("usd_high")
        interval = (
            f" (95%: {format_usd(self.bound('usd_low'))} to {format_usd(high)})"
            if high is not None
            else ""
        )
        cached = f" ({self.cached:,} in the response cache, $0)" if self.cached else ""
        live = self.live_expected()
        batch = f" at batch prices (live: {format_usd(live)})" if live else ""
        if not self.projected():
            return (
                f"estimate: {self.calls:,} calls{cached}, at most "
                f"{format_usd(self.total('usd_ceiling'))}{batch} ({NO_REPLIES_YET})"
            )
        return (
            f"estimate: {self.calls:,} calls{cached}, "
            f"expected {format_usd(self.total('usd_expected'))}{batch}{interval}, "
            f"at most {format_usd(self.total('usd_ceiling'))}"
        )

    def _live(self) -> dict[str, float | None]:
        """`usd_live_expected` beside the batch price, only in batch mode."""
        if all(line.usd_live_expected is None for line in self.lines):
            return {}
        return {"usd_live_expected": self.live_expected()}

    def live_expected(self) -> float | None:
        """What the batch-mode lines and the rest would cost all live; None when no
        line is in batch mode."""
        if all(line.usd_live_expected is None for line in self.lines):
            return None
        return total_usd(
            line.usd_expected
            if line.usd_live_expected is None
            else line.usd_live_expected
            for line in self.lines
        )

    def as_dict(self) -> dict[str, Any]:
        stages = sorted({line.stage for line in self.lines})
        return {
            "conditions": [asdict(line) for line in self.lines],
            "stages": {
                s: {
                    "calls": sum(line.calls for line in self.lines if line.stage == s),
                    "cached": sum(x.cached for x in self.lines if x.stage == s),
                    "usd_ceiling": self.total("usd_ceiling", s),
                    "usd_expected": self.total("usd_expected", s),
                    "projected": self.projected(s),
                }
                for s in stages
            },
            "total": {
                "calls": self.calls,
                "cached": self.cached,
                "usd_ceiling": self.total("usd_ceiling"),
                "usd_expected": self.total("usd_expected"),
                "usd_low": self.bound("usd_low"),
                "usd_high": self.bound("usd_high"),
                "projected": self.projected(),
                **self._live(),
            },
            "token_heuristic": f"ceil(characters / {CHARS_PER_TOKEN}) "
            f"+ {MESSAGE_OVERHEAD_TOKENS} "
            "per call",
            "notes": list(self.notes),
            **({"open_batches": self.open_batches} if self.open_batches else {}),
        }
