"""The statistics of pairwise verdicts: win rates, position and length bias,
Bradley–Terry strengths.

Pure functions over a frame of one pairwise condition's valid verdicts (columns
condition_a, condition_b, item_id, epoch, order, winner, length_a, length_b), no I/O.
Intervals resample items (every verdict on an item goes with it), like every interval of
`itemeval results`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..lazy import lazy_import
from .intervals import BOOTSTRAP_RESAMPLES, LEVEL, NAN, resample_weights

sps = lazy_import("scipy.stats")  # loaded at its first use

ELO_BASE = 1000.0
ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of log-strength: a 400-point gap is 10:1 odds, as in chess and
model arenas."""
POSITION_FLIP_FLAG = 0.25
"""A pair whose verdict flips in at least this share of its both-order cells (and whose
first position wins more often than chance) is flagged `position_bias`."""
LENGTH_CORR_FLAG = 0.3
"""|length_corr| at least this (and p < 0.05) flags `length_bias`."""
_NEWTON_STEPS = 100


def a_scores(verdicts: pd.DataFrame) -> np.ndarray:
    """Each verdict as A's score: 1 when A won, 0.5 for a tie, 0 when B won."""
    won_a = (verdicts["winner"] == verdicts["condition_a"]).to_numpy(float)
    tie = (verdicts["winner"] == "tie").to_numpy(float)
    return won_a + 0.5 * tie


# ---- one pair of conditions ----------------------------------------------------------


@dataclass(frozen=True)
class PairStats:
    """What one judge said about A against B."""

    n: int
    wins_a: int
    wins_b: int
    ties: int
    win_rate: float
    ci_low: float
    ci_high: float
    flip_rate: float
    both_orders: int
    """(item, epoch) cells with a valid verdict in both orders (what flip_rate is
    over)."""
    first_position_rate: float
    length_corr: float
    length_p: float
    flags: tuple[str, ...]


def pair_stats(
    verdicts: pd.DataFrame, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> PairStats:
    """Win rate of A (ties half) with its item-bootstrap interval, flips, first-position
    share, length bias."""
    y = a_scores(verdicts)
    n = len(y)
    wins_a, ties = int((y == 1).sum()), int((y == 0.5).sum())
    low, high = win_rate_interval(verdicts, y, resamples=resamples, seed=seed)
    flips, both = flip_rate(verdicts)
    corr, p = length_correlation(verdicts, y)
    flags = tuple(
        name
        for name, on in (
            ("position_bias", _position_biased(verdicts, flips)),
            ("length_bias", abs(corr) >= LENGTH_CORR_FLAG and p < 0.05),
        )
        if on
    )
    return PairStats(
        n=n,
        wins_a=wins_a,
        wins_b=n - wins_a - ties,
        ties=ties,
        win_rate=float(y.mean()) if n else NAN,
        ci_low=low,
        ci_high=high,
        flip_rate=flips,
        both_orders=both,
        first_position_rate=first_position_rate(verdicts),
        length_corr=corr,
        length_p=p,
        flags=flags,
    )


def win_rate_interval(
    verdicts: pd.DataFrame,
    y: np.ndarray,
    *,
    level: float = LEVEL,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap of A's win rate, resampling items with all their
    verdicts."""
    if len(y) == 0:
        return NAN, NAN
    codes, _ = pd.factorize(verdicts["item_id"])
    score = np.bincount(codes, weights=y)
    count = np.bincount(codes).astype(float)
    weights = resample_weights(len(score), resamples, seed)
    rates = (weights @ score) / (weights @ count)
    low, high = np.quantile(rates, [0.5 - level / 2, 0.5 + level / 2])
    return float(low), float(high)


def flip_rate(verdicts: pd.DataFrame) -> tuple[float, int]:
    """(share of both-order cells whose two verdicts differ, how many such cells there
    are)."""
    keys = ["item_id", "epoch"]
    first = verdicts[verdicts["order"] == 1][[*keys, "winner"]]
    second = verdicts[verdicts["order"] == 2][[*keys, "winner"]]
    both = first.merge(second, on=keys, suffixes=("_1", "_2"))
    if both.empty:
        return NAN, 0
    return float((both["winner_1"] != both["winner_2"]).mean()), len(both)


def _position_biased(verdicts: pd.DataFrame, flips: float) -> bool:
    """Flips in at least POSITION_FLIP_FLAG of the both-order cells, and the first
    position wins more (or less) often than a fair coin would (exact binomial test, p
    < 0.05): a noisy judge flips too, but favours no position."""
    if not flips >= POSITION_FLIP_FLAG:
        return False
    decided = verdicts[verdicts["winner"] != "tie"]
    first = round(first_position_rate(verdicts) * len(decided))
    return bool(sps.binomtest(first, len(decided), 0.5).pvalue < 0.05)


def first_position_rate(verdicts: pd.DataFrame) -> float:
    """Of the verdicts that named a winner, the share won by the answer shown first."""
    decided = verdicts[verdicts["winner"] != "tie"]
    if decided.empty:
        return NAN
    shown_first = np.where(
        decided["order"] == 1, decided["condition_a"], decided["condition_b"]
    )
    return float((decided["winner"].to_numpy() == shown_first).mean())


def length_correlation(verdicts: pd.DataFrame, y: np.ndarray) -> tuple[float, float]:
    """(Pearson r, two-sided p) of A's score with A's length minus B's, over (item,
    epoch) cells: the two orders of a cell are one observation (their mean score),
    not two, so the p-value is not halved by counting each answer twice. NaN when
    either side is constant or there are fewer than 3 cells."""
    cells = (
        verdicts.assign(score=y, diff=verdicts["length_a"] - verdicts["length_b"])
        .groupby(["item_id", "epoch"], sort=False)[["score", "diff"]]
        .mean()
    )
    score, diff = cells["score"].to_numpy(float), cells["diff"].to_numpy(float)
    if len(cells) < 3 or np.ptp(diff) == 0 or np.ptp(score) == 0:
        return NAN, NAN
    result = sps.pearsonr(diff, score)
    return float(result.statistic), float(result.pvalue)


# ---- Bradley–Terry over every verdict ----------------------------------------------


@dataclass(frozen=True)
class Strengths:
    """Bradley–Terry log-strengths, the first condition (by id) fixed at 0, with
    bootstrap intervals."""

    conditions: list[str]
    strength: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray

    @property
    def elo(self) -> np.ndarray:
        return ELO_BASE + ELO_SCALE * self.strength


def item_tables(
    verdicts: pd.DataFrame, conditions: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item codes, per item the score matrix W[k, i, j] = i's score against j, the
    count matrix N[k])."""
    index = {c: k for k, c in enumerate(conditions)}
    codes, _ = pd.factorize(verdicts["item_id"])
    items, m = int(codes.max()) + 1 if len(codes) else 0, len(conditions)
    a = verdicts["condition_a"].map(index).to_numpy()
    b = verdicts["condition_b"].map(index).to_numpy()
    y = a_scores(verdicts)
    wins = np.zeros((items, m, m))
    counts = np.zeros((items, m, m))
    np.add.at(wins, (codes, a, b), y)
    np.add.at(wins, (codes, b, a), 1.0 - y)
    np.add.at(counts, (codes, a, b), 1.0)
    np.add.at(counts, (codes, b, a), 1.0)
    return codes, wins, counts


def bradley_terry(wins: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Maximum-likelihood log-strengths (the first fixed at 0) from W (i's score against
    j; a tie gives each half) and N (comparisons of i and j), by Newton's method on
    the concave log-likelihood.

    All NaN when no maximum exists: when the conditions split into two groups one of
    which never scored against the other, its strengths run off to infinity (the graph
    of "scored against" is not strongly connected)."""
    return bradley_terry_many(wins[None], counts[None])[0]


def bradley_terry_many(wins: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """`bradley_terry` of R tables at once (W and N of shape R × m × m): Newton steps
    of all in one solve."""
    fits, m = len(wins), wins.shape[-1]
    s = np.zeros((fits, m))
    ok = _estimable(wins) if m >= 2 else np.zeros(fits, dtype=bool)
    if not ok.any():
        return np.full((fits, m), NAN)
    w, n, x = wins[ok], counts[ok], s[ok]
    for _ in range(_NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(x[:, :, None] - x[:, None, :])))
        gradient = (w - n * p).sum(axis=2)
        curvature = n * p * (1.0 - p)
        hessian = curvature - curvature.sum(axis=2)[:, :, None] * np.eye(m)
        step = np.linalg.solve(hessian[:, 1:, 1:], gradient[:, 1:, None])[..., 0]
        x[:, 1:] -= step
        if np.abs(step).max() < 1e-12:
            break
    s[ok] = x
    s[~ok] = NAN
    return s


def _estimable(wins: np.ndarray) -> np.ndarray:
    """Per table: whether every condition reaches every other along "scored against"
    edges (strongly connected), by squaring the reachability matrix until paths of
    every length are in it."""
    m = wins.shape[-1]
    reach = ((wins > 0) | np.eye(m, dtype=bool)).astype(float)
    for _ in range(max(1, math.ceil(math.log2(m)))):
        reach = (reach @ reach > 0).astype(float)
    return (reach > 0).all(axis=(1, 2))


def strengths(
    verdicts: pd.DataFrame,
    conditions: list[str],
    *,
    level: float = LEVEL,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> Strengths:
    """Bradley–Terry strengths of `conditions` (sorted by id) from all verdicts, with
    percentile intervals from resampled items; a resample where no maximum exists is
    left out of the interval."""
    conditions = sorted(conditions)
    _, wins, counts = item_tables(verdicts, conditions)
    point = bradley_terry(wins.sum(axis=0), counts.sum(axis=0))
    if np.isnan(point).all() or len(wins) == 0:
        empty = np.full(len(conditions), NAN)
        return Strengths(conditions, point, empty, empty.copy())
    weights = resample_weights(len(wins), resamples, seed) * len(wins)
    resampled_wins = np.tensordot(weights, wins, axes=1)
    resampled_counts = np.tensordot(weights, counts, axes=1)
    fits = bradley_terry_many(resampled_wins, resampled_counts)
    fits = fits[~np.isnan(fits).any(axis=1)]
    if len(fits) == 0:
        empty = np.full(len(conditions), NAN)
        return Strengths(conditions, point, empty, empty.copy())
    low, high = np.quantile(fits, [0.5 - level / 2, 0.5 + level / 2], axis=0)
    return Strengths(conditions, point, low, high)
