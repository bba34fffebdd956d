"""Correlation metrics (Pearson, Spearman, Kendall's tau-b) as functions of
item-weighted sufficient statistics: one matrix product gives the metric on every
bootstrap resample (see metric_figures)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lazy import lazy_import
from .item_sums import item_sums, weighted

stats = lazy_import("scipy.stats")


@dataclass
class Pearson:
    """Pearson's r of (prediction, target) pairs; a resample repeats an item's pairs."""

    item_sums: np.ndarray
    n: int

    @classmethod
    def prepare(cls, item_of_row, n_items, x, y) -> Pearson:
        x, y = np.asarray(x, float), np.asarray(y, float)
        # centred first: the moments stay exact for large or offset values
        x, y = x - x.mean(), y - y.mean()
        row_stats = np.column_stack([np.ones_like(x), x, y, x * x, y * y, x * y])
        return cls(item_sums(item_of_row, n_items, row_stats), len(x))

    def values(self, counts: np.ndarray, shared=None) -> np.ndarray:
        return _pearson_from_sums(weighted(counts, self.item_sums))


def _pearson_from_sums(s: np.ndarray) -> np.ndarray:
    n, sx, sy, sxx, syy, sxy = s.T
    with np.errstate(all="ignore"):
        cov = sxy - sx * sy / n
        var_x, var_y = sxx - sx * sx / n, syy - sy * sy / n
        r = cov / np.sqrt(var_x * var_y)
    return np.where((var_x > 0) & (var_y > 0), np.clip(r, -1, 1), np.nan)


@dataclass
class Spearman:
    """Spearman's rho: Pearson's r of average ranks, ranks taken within each resample
    (an item drawn twice counts twice, ties share their average rank)."""

    item_of_row: np.ndarray
    x: np.ndarray
    y: np.ndarray
    n: int

    @classmethod
    def prepare(cls, item_of_row, n_items, x, y) -> Spearman:
        return cls(
            np.asarray(item_of_row), np.asarray(x, float), np.asarray(y, float), len(x)
        )

    def values(self, counts: np.ndarray, shared=None) -> np.ndarray:
        weights = counts[:, self.item_of_row]
        rx, ry = _weighted_ranks(self.x, weights), _weighted_ranks(self.y, weights)
        return _weighted_pearson(rx, ry, weights)


def _weighted_ranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average ranks of `values` repeated `weights` times, per row of weights."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    tie_group = np.cumsum(np.r_[True, ordered[1:] != ordered[:-1]]) - 1
    per_group = np.add.reduceat(weights[:, order], starts, axis=1)
    before = np.cumsum(per_group, axis=1) - per_group
    average = before + (per_group + 1) / 2
    ranks = np.empty_like(weights)
    ranks[:, order] = average[:, tie_group]
    return ranks


def _weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    n = w.sum(axis=1)
    with np.errstate(all="ignore"):
        mx, my = (w * x).sum(1) / n, (w * y).sum(1) / n
        dx, dy = x - mx[:, None], y - my[:, None]
        cov = (w * dx * dy).sum(1)
        var_x, var_y = (w * dx * dx).sum(1), (w * dy * dy).sum(1)
        r = cov / np.sqrt(var_x * var_y)
    return np.where((var_x > 0) & (var_y > 0), np.clip(r, -1, 1), np.nan)


@dataclass
class Kendall:
    """Kendall's tau-b (scipy's) of (prediction, target) pairs; a resample repeats an
    item's pairs.

    With a row drawn w times, tau-b's concordant minus discordant pairs are
    ½·wᵀSw (S the pairs' sign products, 0 for a tie or a row with itself) and its
    tied pairs Σ T(T−1)/2 over each value's drawn count T, so every resample of a
    cell of up to `_PAIRWISE_ROWS` rows is one matrix product; larger cells call
    scipy per resample."""

    item_of_row: np.ndarray
    x: np.ndarray
    y: np.ndarray
    n: int

    @classmethod
    def prepare(cls, item_of_row, n_items, x, y) -> Kendall:
        return cls(
            np.asarray(item_of_row), np.asarray(x, float), np.asarray(y, float), len(x)
        )

    def values(self, counts: np.ndarray, shared=None) -> np.ndarray:
        weights = counts[:, self.item_of_row]
        if self.n <= _PAIRWISE_ROWS:
            return _weighted_tau_b(self.x, self.y, weights)
        out = np.empty(len(counts))
        for b, times in enumerate(weights.astype(int)):
            x, y = np.repeat(self.x, times), np.repeat(self.y, times)
            out[b] = stats.kendalltau(x, y).statistic if len(x) > 1 else np.nan
        return out


_PAIRWISE_ROWS = 1_500
"""Up to this many rows a cell's tau-b is an (n × n) product over all resamples."""


def _weighted_tau_b(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """tau-b of the rows repeated `w` times, per row of `w` (resamples × rows)."""
    signs = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    net = 0.5 * np.einsum("bi,bi->b", w @ signs, w)
    total = w.sum(axis=1)
    pairs = total * (total - 1) / 2
    tied_x, tied_y = _tied_pairs(x, w), _tied_pairs(y, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = net / np.sqrt((pairs - tied_x) * (pairs - tied_y))
    defined = (total > 1) & (pairs > tied_x) & (pairs > tied_y)
    return np.where(defined, np.clip(tau, -1.0, 1.0), np.nan)


def _tied_pairs(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pairs of drawn rows that share a value, per resample."""
    _, group = np.unique(values, return_inverse=True)
    per_value = np.zeros((len(w), group.max() + 1 if len(group) else 0))
    np.add.at(per_value.T, group, w.T)
    return (per_value * (per_value - 1) / 2).sum(axis=1)
