"""Advice a stage gives before it runs, where the obvious command would not do what a
person meant."""

from __future__ import annotations

from collections.abc import Sequence

from .estimates import EstimateLine
from .pricing import format_usd, total_usd


def replayed_parse_failures(
    lines: Sequence[EstimateLine], *, only: Sequence[str], fresh: bool, cache: bool
) -> str | None:
    """`grade --only parse-failures` without --fresh asks the judges again through the
    response cache, which hands back the same malformed replies: say so, and what new
    draws would cost."""
    if "parse-failures" not in only or fresh or not cache:
        return None
    judged = [line for line in lines if line.calls and line.stage == "grade"]
    calls = sum(line.calls for line in judged if line.model and "/" in line.model)
    if not calls:
        return None
    # drawn anew, the cached calls are paid too
    usd = format_usd(
        total_usd(
            line.usd_expected
            if line.usd_uncached_expected is None
            else line.usd_uncached_expected
            for line in judged
        )
    )
    return (
        f"--only parse-failures re-asks {calls} judge calls through the response "
        "cache, which returns the same replies; add --fresh to draw new ones "
        f"({calls} calls, about {usd})"
    )
