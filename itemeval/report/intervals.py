"""Interval charts as HTML tables: a row per estimate with its label, a track on which
the 95% CI is a whisker and the mean a marker, and the numbers written out.

The report's forest and facet plots were matplotlib SVG, whose text is drawn as
paths: ~160 labels took ~2 s of a million-grade report (issue 27). A table is drawn
by the browser, keeps its labels as text a reader can search and copy, and needs no
script or font."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .html import esc, num

TICKS = 5
"""About how many labelled values the axis shows."""


@dataclass(frozen=True)
class Interval:
    label: str
    mean: float
    low: float | None
    high: float | None
    note: str = ""
    """What the hover adds after the interval, e.g. "on 500 items"."""


@dataclass(frozen=True)
class Axis:
    start: float
    stop: float
    ticks: tuple[float, ...]

    def at(self, value: float) -> float:
        """Where `value` sits on the track, in percent of its width."""
        return 100.0 * (value - self.start) / (self.stop - self.start)


def axis(values: Sequence[float]) -> Axis:
    """An axis holding every value, from and to round numbers (matplotlib's tick
    choice), with a little room when all values are equal."""
    from matplotlib.ticker import MaxNLocator

    finite = [v for v in values if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if high - low < 1e-12:
        pad = 0.5 if low == 0 else abs(low) * 0.1
        low, high = low - pad, high + pad
    locator = MaxNLocator(nbins=TICKS, steps=[1, 2, 2.5, 5, 10])
    ticks = [float(t) for t in locator.tick_values(low, high)]
    start, stop = min(ticks[0], low), max(ticks[-1], high)
    return Axis(start, stop, tuple(t for t in ticks if start <= t <= stop))


def interval_chart(
    rows: Sequence[Interval], caption: str, marker: str = "dot", heading: str = ""
) -> str:
    """One table: `heading` over the labels, the axis over the track (`marker`: "dot"
    or "square"), the numbers at the right."""
    scale = axis(
        [r.mean for r in rows]
        + [v for r in rows for v in (r.low, r.high) if v is not None]
    )
    grid = "".join(f'<i style="left:{scale.at(t):.2f}%"></i>' for t in scale.ticks)
    labels = "".join(
        f'<span style="left:{scale.at(t):.2f}%">{_tick(t)}</span>' for t in scale.ticks
    )
    head = (
        f'<tr><th class="l">{esc(heading)}</th><td class="track axis">{labels}</td>'
        "<td>mean [95% CI]</td></tr>"
    )
    body = "".join(_row(r, scale, grid) for r in rows)
    return (
        f'<div class="ivl {marker}"><table><caption>{esc(caption)}</caption>'
        f"<thead>{head}</thead><tbody>{body}</tbody></table></div>"
    )


def _row(row: Interval, scale: Axis, grid: str) -> str:
    whisker = ""
    if row.low is not None and row.high is not None:
        left, right = scale.at(row.low), scale.at(row.high)
        whisker = (
            f'<b class="ci" style="left:{left:.2f}%;width:{right - left:.2f}%"></b>'
        )
    interval = f" [{num(row.low)}, {num(row.high)}]" if whisker else ""
    tip = f"{row.label}: {num(row.mean)}{interval}" + (
        f" {row.note}" if row.note else ""
    )
    return (
        f'<tr title="{esc(tip)}"><th class="l">{esc(row.label)}</th>'
        f'<td class="track">{grid}{whisker}'
        f'<b class="pt" style="left:{scale.at(row.mean):.2f}%"></b></td>'
        f"<td>{num(row.mean)}{interval}</td></tr>"
    )


def _tick(value: float) -> str:
    return f"{value:g}" if value != 0 else "0"


STYLE = (  # the charts' part of the report's stylesheet
    ".ivl{overflow-x:auto}.ivl table{font-size:.75rem;margin:.3rem 0 1rem}"
    ".ivl caption{text-align:left;font-weight:600;padding:.3rem 0}"
    ".ivl th,.ivl td{padding:.1rem .5rem;border:0;white-space:nowrap}"
    ".ivl td:last-child{padding-left:1.4rem}"
    ".ivl th{font-weight:400}.ivl td.track{position:relative;width:22rem;"
    "min-width:12rem;padding:0}.ivl td.axis{height:1.1rem}"
    ".ivl td.axis span{position:absolute;bottom:0;transform:translateX(-50%)}"
    ".ivl td.track i{position:absolute;top:0;bottom:0;border-left:1px solid #e6e6e6}"
    ".ivl b{position:absolute;top:50%;box-sizing:border-box}"
    ".ivl b.ci{height:.5rem;margin-top:-.25rem;border:solid currentColor;"
    "border-width:0 1px;background:linear-gradient(currentColor,currentColor)"
    " center/100% 2px no-repeat}"
    ".ivl b.pt{width:.5rem;height:.5rem;margin:-.25rem 0 0 -.25rem;"
    "border-radius:50%;background:currentColor}.ivl.square b.pt{border-radius:0}"
    ".ivl.dot td.track{color:#1f5fa8}.ivl.square td.track{color:#2e7d32}"
    ".ivl td.track.axis{color:#666}\n"
)
