"""What `itemeval results` was asked: the reducer, the interval, the comparisons, the
items (`--sample`, `--items`) and the seed."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..plan.draws import DRAW_REDUCERS
from ..stats import intervals as stats
from ..stats import reducers


@dataclass(frozen=True)
class ResultsOptions:
    reducer: str = "mean"
    draws: str = "mean"
    """A judge's draws of one answer to its one score, before anything else reads
    it: mean, majority or median (plan.draws)."""
    ci: str = "auto"
    """auto: Wilson for 0/1 item scores, else the bounded Wilson interval
    (stats/scale_intervals.py); or t, wilson, bootstrap."""
    seed: int = 0
    by: tuple[str, ...] = ()
    compare: tuple[str, ...] = ()
    """Two generate conditions (id, id prefix or slug), or ("all",); with
    `compare_by`, two levels of that facet."""
    compare_by: str | None = None
    """A generate facet (model, prompt, model_config) whose levels `compare` names:
    level A against level B over the items, averaged over the other facets."""
    threshold: float | None = None
    sample: int | None = None
    """Only a random subset of this many items (drawn with `seed`, stratified by
    `stratify`)."""
    stratify: str | None = None
    ids: tuple[str, ...] = ()
    """Only the items with these ids (`--items`)."""
    metric_differences: bool = True
    """metric(A) − metric(B) per compared pair (a paired bootstrap each); the report,
    which compares all pairs for the means, leaves them out."""


def check_options(options: ResultsOptions) -> None:
    try:
        reducers.parse_reducer(options.reducer)
    except ValueError as exc:
        raise ConfigError(f"--reducer: {exc}") from None
    if options.draws not in DRAW_REDUCERS:
        raise ConfigError(
            f"--draws: unknown reducer {options.draws!r}; use "
            f"{', '.join(DRAW_REDUCERS)}"
        )
    if options.ci not in ("auto", *stats.INTERVALS):
        raise ConfigError(
            f"--ci: unknown method {options.ci!r}; use auto, t, wilson or bootstrap"
        )
    if options.compare and options.compare != ("all",) and len(options.compare) != 2:
        what = (
            f"two levels of --by {options.compare_by}"
            if options.compare_by
            else "two generate conditions (id, id prefix or slug)"
        )
        raise ConfigError(f"--compare: name {what}, or `all`")
    if options.compare_by not in (None, "model", "prompt", "model_config"):
        raise ConfigError(
            f"--compare by {options.compare_by!r}: levels of model, prompt or "
            "model_config are compared (each is paired by item)"
        )
