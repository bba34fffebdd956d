"""Intervals that stay on the scale the scores live on (`results --ci auto`, the
default).

A t interval around 0.957 of 23 items scored 0/1 reaches 1.047, a share no condition
can have. So: 0/1 item scores get the Wilson score interval; other bounded scores (a
mean of 0/1 replications, a judge's 1–5, a fraction) get the Wilson interval of their
mean rescaled to [0, 1] with an effective sample size, n_eff = n p(1 - p) / s²
(Korn & Graubard 1998, "Confidence intervals for proportions with small expected
number of positive counts estimated from survey data", Survey Methodology 24:193-201).
A Wilson interval lies in [0, 1] whatever its n, so the rescaled one lies within the
scale; for 0/1 scores s² = p(1 - p) and n_eff = n, the plain Wilson interval; away from
the bounds it is the normal interval mean ± z s/√n, as wide as the t interval.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ..lazy import lazy_import
from .intervals import LEVEL, NAN, Interval, is_binary, observed

special = lazy_import("scipy.special")  # loaded at its first use

Bounds = tuple[float, float]


def scale_of(values: np.ndarray) -> Bounds | None:
    """The scale scores live on, as far as they show it: [0, 1] when every score lies
    in it (0/1 grades, shares, probabilities, overlap scores), else the lowest and
    highest score seen; None without scores."""
    x = observed(values)
    return None if x.size == 0 else _scale(float(x.min()), float(x.max()))


def bounded_interval(
    values: np.ndarray, bounds: Bounds | None = None, level: float = LEVEL
) -> Interval:
    """Wilson for 0/1 scores, the effective-n Wilson interval for other scores
    within `bounds` (default: `scale_of(values)`); SE is the usual s/√n."""
    x = observed(values)
    n = len(x)
    if n == 0:
        return Interval(0, NAN, NAN, NAN, NAN, "wilson")
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else NAN
    if is_binary(x) and bounds in (None, (0.0, 1.0)):
        # clipped: the textbook formula can miss 0 by 1e-17
        mean = float(x.mean())
        low, high = _wilson(mean, n, level)
        return Interval(n, mean, se, low, high, "wilson")
    low, high = bounds or scale_of(x)
    if x.min() < low or x.max() > high:
        raise ValueError(f"scores outside their scale [{low}, {high}]")
    mean = float(x.mean())
    width = high - low
    p = (mean - low) / width if width > 0 else 0.5
    variance = float(((x - low) / width).var()) if width > 0 else 0.0
    ci = _wilson(p, _effective_n(n, p, variance), level)
    return Interval(
        n, mean, se, low + ci[0] * width, low + ci[1] * width, "wilson_bounded"
    )


def _effective_n(n: int, p: float, variance: float) -> float:
    """n p(1-p)/s², the size of a 0/1 sample as variable as these scores. Identical
    scores show no spread to estimate: n itself, the interval of a 0/1 sample with
    that share (one item, or twelve all scored the scale's floor, is no certainty)."""
    if variance <= 0.0:
        return float(n)
    return n * p * (1.0 - p) / variance


def _wilson(p: float, n: float, level: float) -> tuple[float, float]:
    """The Wilson score interval of a share p out of n (n may be fractional)."""
    if math.isinf(n):
        return p, p
    z = float(special.ndtri(0.5 + level / 2))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # it contains p and lies in [0, 1]; clipped against rounding (1 - 1e-16 at p = 1)
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def grade_scales(grades: pd.DataFrame) -> dict[str, Bounds | None]:
    """Each grade condition's scale, from every score it gave anywhere in the study
    (its scored grade rows, not item means: a judge whose 0-6 scores average 2-5 per
    item still lives on 0-6; a cell whose answers all got 4 or 5 on the judge's
    seen range)."""
    if "status" in grades:
        grades = grades[grades["status"] == "scored"]
    return scales_by(grades, "grade_condition_id", "score")


def scales_by(
    frame: pd.DataFrame, keys: str | list[str], column: str
) -> dict[Any, Bounds | None]:
    """`scale_of` the `column` values of each group of `keys`."""
    values = pd.to_numeric(frame[column], errors="coerce")
    finite = values.where(np.isfinite(values))
    spans = finite.groupby([frame[k] for k in _listed(keys)], sort=False).agg(
        ["min", "max"]
    )
    return {
        key: _scale(low, high)
        for key, low, high in zip(spans.index, spans["min"], spans["max"])
    }


def _listed(keys: str | list[str]) -> list[str]:
    return [keys] if isinstance(keys, str) else list(keys)


def _scale(low: float, high: float) -> Bounds | None:
    """The scale of scores from their lowest and highest: [0, 1] when both lie in
    it, else that range; None when there is none (NaN)."""
    if math.isnan(low) or math.isnan(high):
        return None
    if low >= 0.0 and high <= 1.0:
        return 0.0, 1.0
    return float(low), float(high)
