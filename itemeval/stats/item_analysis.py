"""Item analysis over the conditions that answered each item: difficulty,
discrimination, a 2PL IRT fit and the flags that point at items worth a look.

Arrays in, small values out, no I/O. `scores` is items x respondents: a respondent is
one generate condition (its item score, replications reduced) for the classical
statistics, or one (condition, replication) for the IRT fit, whose 0/1 responses need
no reducing. NaN marks a missing score.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

FLAGS = ("suspect_target", "no_signal", "negative_discrimination")
SUSPECT_SHARE = 0.5
"""suspect_target: more than this share of the answering conditions give one answer."""
MIN_CONDITIONS = 3
"""Fewer answering conditions flag nothing: agreement of two proves little."""
NEGATIVE_BELOW = -0.1
"""negative_discrimination: the item-rest correlation is below this (not 0 +- noise)."""
IRT_OPTIONS: tuple[tuple[str, object], ...] = ()
"""girth's options: its defaults (41 quadrature points, a lookup table), so our figures
are the fit a researcher gets from girth itself. 21 points without the table was twice
as fast on 300 items but moved discriminations by up to 1.5-1.75 against a 61-point
fit (the defaults: 0.08 on 26 items x 10 respondents)."""
MIN_IRT_RESPONDENTS = 10
"""A 2PL fit needs at least this many respondents (conditions x replications)."""


@dataclass(frozen=True)
class Consensus:
    """The answer most conditions gave to one item, and whether it was graded right."""

    answer: str | None
    share: float
    answered: int
    correct: bool


def difficulty(scores: np.ndarray) -> np.ndarray:
    """Mean item score over the conditions (classical test theory's p: high = easy)."""
    scores = np.asarray(scores, dtype=float)
    counts = (~np.isnan(scores)).sum(axis=1)
    sums = np.nansum(scores, axis=1)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def discrimination(scores: np.ndarray) -> np.ndarray:
    """Corrected item-total correlation: each item's scores against the conditions' mean
    score on the other items (so the item does not correlate with itself). NaN where the
    item, or the rest, does not vary over at least three conditions.

    Every item at once, as masked moments over the (items × conditions) matrix: a
    report computes it for thousands of items under each grader."""
    scores = np.asarray(scores, dtype=float)
    if scores.shape[0] < 2:
        return np.full(len(scores), np.nan)
    present = ~np.isnan(scores)
    totals, counts = np.nansum(scores, axis=0), present.sum(axis=0)
    rest_n = counts[None, :] - present
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = (totals[None, :] - np.nan_to_num(scores)) / np.where(
            rest_n > 0, rest_n, np.nan
        )
        both = present & ~np.isnan(rest)
        n = both.sum(axis=1)
        dx = _centred(scores, both, n)
        dr = _centred(rest, both, n)
        var_x, var_r = (dx * dx).sum(axis=1), (dr * dr).sum(axis=1)
        found = (dx * dr).sum(axis=1) / np.sqrt(var_x * var_r)
    defined = (n >= 3) & (var_x > 0) & (var_r > 0)
    return np.where(defined, np.clip(found, -1.0, 1.0), np.nan)


def _centred(values: np.ndarray, mask: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Each row minus its mean over `mask`, 0 outside it."""
    kept = np.where(mask, values, 0.0)
    mean = kept.sum(axis=1) / np.maximum(n, 1)
    return np.where(mask, values - mean[:, None], 0.0)


def no_signal(scores: np.ndarray) -> np.ndarray:
    """Every condition that has a score scores the same (at least two conditions)."""
    scores = np.asarray(scores, dtype=float)
    present = (~np.isnan(scores)).sum(axis=1)
    spread = np.nanmax(scores, axis=1, initial=-np.inf) - np.nanmin(
        scores, axis=1, initial=np.inf
    )
    return (present >= 2) & (spread == 0)


def consensus(answers: list[str | None], correct: list[bool]) -> Consensus:
    """The most common answer of one item's conditions (one answer per condition)."""
    given = [
        (a.strip(), ok)
        for a, ok in zip(answers, correct)
        if a is not None and a.strip()
    ]
    if not given:
        return Consensus(None, math.nan, 0, False)
    answer, count = Counter(a for a, _ in given).most_common(1)[0]
    right = [ok for a, ok in given if a == answer]
    return Consensus(
        answer, count / len(given), len(given), sum(right) * 2 > len(right)
    )


def suspect_target(found: Consensus) -> bool:
    """Most conditions agree on one answer, and the grade says it is not the target."""
    return (
        found.answered >= MIN_CONDITIONS
        and found.share > SUSPECT_SHARE
        and not found.correct
    )


def flags(*, suspect: bool, silent: bool, discriminates: float) -> tuple[str, ...]:
    """The item's flags in FLAGS order."""
    raised = (suspect, silent, discriminates < NEGATIVE_BELOW)
    return tuple(name for name, up in zip(FLAGS, raised) if up)


def irt_2pl(responses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of a two-parameter logistic IRT model by girth's marginal maximum
    likelihood (`girth.twopl_mml` with IRT_OPTIONS), for items x respondents 0/1
    responses with NaN for missing.

    Items everyone got right or wrong (and items with fewer than two responses) carry
    no information for the fit: they are left out and get NaN, as do all items when
    fewer than MIN_IRT_RESPONDENTS respondents answered or the responses are not 0/1.
    """
    responses = np.asarray(responses, dtype=float)
    a = np.full(len(responses), np.nan)
    b = np.full(len(responses), np.nan)
    observed = responses[~np.isnan(responses)]
    if responses.shape[1] < MIN_IRT_RESPONDENTS or not np.isin(observed, (0, 1)).all():
        return a, b
    informative = ~no_signal(responses) & ((~np.isnan(responses)).sum(axis=1) >= 2)
    if informative.sum() < 2:
        return a, b
    fitted_a, fitted_b = _girth_fit(responses[informative])
    a[informative], b[informative] = fitted_a, fitted_b
    return a, b


def _girth_fit(responses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from girth import tag_missing_data, twopl_mml  # the optional extra itemeval[irt]

    data = np.where(np.isnan(responses), -1, responses).astype(int)
    if (data < 0).any():
        data = tag_missing_data(data, [0, 1])
    fit = twopl_mml(data, dict(IRT_OPTIONS))
    return np.asarray(fit["Discrimination"]), np.asarray(fit["Difficulty"])
