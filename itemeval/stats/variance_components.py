"""Variance components of a score over fully crossed random facets, by the ANOVA
(expected mean squares) estimators of a balanced design, with parametric-bootstrap
intervals.

A G-study in the sense of generalizability theory (Cronbach, Gleser, Nanda &
Rajaratnam 1972; Brennan 2001, *Generalizability Theory*, ch. 3): every subset S of the
facets is an effect with a variance sigma2_S; the subset of all facets is confounded
with the residual (one score per cell). In a balanced crossed design the sums of
squares and their expectations are closed forms:

- SS_S = sum over T ⊆ S of (-1)^(|S|-|T|) U_T, where U_T = c_T · sum of the squared
  marginal means over the facets in T, and c_T = prod of n_f over the facets not in T;
- E[MS_S] = sum over T ⊇ S of c_T sigma2_T, solved from the full interaction down.

Negative estimates are kept while solving (so the others stay unbiased) and shown as
0 (Brennan 2001, §3.4). Intervals: the mean squares of a balanced normal design are
independent scaled chi-squares, MS_S ~ E[MS_S] chi2(df_S) / df_S, which gives each
expected mean square a pivot; drawing the pivots (a parametric bootstrap of the mean
squares) and solving gives every component's and share's distribution. An item
bootstrap alone would miss the uncertainty of having sampled, say, three models.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from .intervals import NAN

RESAMPLES = 2_000
LEVEL = 0.95


@dataclass(frozen=True)
class Components:
    """The ANOVA of a balanced crossed design: one entry per effect (a subset of
    `facets`), the full interaction last."""

    facets: tuple[str, ...]
    sizes: tuple[int, ...]
    effects: tuple[tuple[str, ...], ...]
    mean_squares: np.ndarray
    df: np.ndarray
    sigma2: np.ndarray
    """The unbiased estimates (negative ones kept)."""

    def solver(self) -> np.ndarray:
        """The matrix P with sigma2 = P @ mean squares."""
        sizes = dict(zip(self.facets, self.sizes))
        return np.linalg.inv(ems_matrix(self.effects, sizes))


def effect_name(effect: tuple[str, ...]) -> str:
    return ":".join(effect)


def all_effects(facets: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Every non-empty subset of the facets, main effects first, in facet order."""
    return tuple(
        subset for r in range(1, len(facets) + 1) for subset in combinations(facets, r)
    )


def ems_matrix(effects, sizes: dict[str, int]) -> np.ndarray:
    """A[S, T] = c_T when T ⊇ S: E[MS] = A @ sigma2 (Brennan 2001, eq. 3.21)."""
    matrix = np.zeros((len(effects), len(effects)))
    for row, s in enumerate(effects):
        for col, t in enumerate(effects):
            if set(s) <= set(t):
                matrix[row, col] = np.prod([n for f, n in sizes.items() if f not in t])
    return matrix


def anova_components(scores: np.ndarray, facets: tuple[str, ...]) -> Components:
    """The mean squares and variance components of a complete array of scores, one
    axis per facet (every facet with at least two levels)."""
    x = np.asarray(scores, dtype=float)
    sizes = dict(zip(facets, x.shape))
    effects = all_effects(facets)
    uncorrected = {(): x.size * x.mean() ** 2}
    for effect in effects:
        axes = tuple(i for i, f in enumerate(facets) if f not in effect)
        marginal = x.mean(axis=axes) if axes else x
        uncorrected[effect] = x.size / marginal.size * (marginal**2).sum()
    squares, df = [], []
    for effect in effects:
        subsets = [t for r in range(len(effect) + 1) for t in combinations(effect, r)]
        squares.append(
            sum((-1) ** (len(effect) - len(t)) * uncorrected[t] for t in subsets)
        )
        df.append(np.prod([sizes[f] - 1 for f in effect]))
    mean_squares = np.array(squares) / np.array(df, dtype=float)
    matrix = ems_matrix(effects, sizes)
    sigma2 = np.linalg.solve(matrix, mean_squares)
    return Components(
        tuple(facets), x.shape, effects, mean_squares, np.array(df, float), sigma2
    )


def crossed_array(
    frame: pd.DataFrame, facets: tuple[str, ...], value: str = "score"
) -> np.ndarray:
    """The scores of a long frame as an array with one axis per facet.

    The design must be crossed: items lacking any cell of the others are dropped
    (so what remains is balanced); a duplicate cell is an error."""
    if frame.duplicated(list(facets)).any():
        raise ValueError(f"more than one score for some cell of {', '.join(facets)}")
    levels = [sorted(frame[f].unique()) for f in facets]
    index = pd.MultiIndex.from_product(levels, names=facets)
    full = frame.set_index(list(facets))[value].reindex(index)
    complete = full.groupby(level=facets[0]).transform(lambda s: s.notna().all())
    full = full[complete.astype(bool)]
    kept = full.index.get_level_values(facets[0]).unique()
    shape = (len(kept), *(len(level) for level in levels[1:]))
    return full.to_numpy(dtype=float).reshape(shape)


@dataclass(frozen=True)
class Share:
    """One row of the G-study table: a component (or several pooled) with its share
    of the total variance, and intervals of both."""

    component: str
    variance: float
    variance_ci: tuple[float, float]
    share: float
    share_ci: tuple[float, float]


def simulated_components(
    fit: Components, *, seed: int, resamples: int = RESAMPLES
) -> np.ndarray:
    """(resamples × effects) draws of the components' generalized pivotal
    quantities: each expected mean square replaced by MS_S · df_S / chi2(df_S), and
    the components solved from them (Weerahandi 1993, "Generalized confidence
    intervals", JASA 88; Burdick, Borror & Montgomery 2005, *Design and Analysis of
    Gauge R&R Studies*, §3). For one mean square this is the exact chi-square
    interval; for differences of mean squares it holds its level better than
    Satterthwaite's approximation."""
    rng = np.random.default_rng(seed)
    chi2 = rng.chisquare(fit.df, size=(resamples, len(fit.df)))
    return (fit.mean_squares * fit.df / chi2) @ fit.solver().T


def percentiles(drawn: np.ndarray) -> tuple[float, float]:
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(drawn, [tail, 1 - tail])
    return float(low), float(high)


def shares(
    fit: Components, groups: dict[str, list[int]], *, seed: int = 0, resamples=RESAMPLES
) -> list[Share]:
    """The table of `groups` (name -> indices of the effects pooled under it), each
    with its variance, its share of the total, and their 95 % intervals (the
    percentiles of the pivotal draws, each truncated at 0 as the estimates are).
    Shares are of the non-negative components."""
    sigma = np.clip(fit.sigma2, 0, None)
    drawn = np.clip(simulated_components(fit, seed=seed, resamples=resamples), 0, None)
    total, drawn_total = sigma.sum(), drawn.sum(axis=1, keepdims=True)
    drawn_shares = drawn / np.where(drawn_total > 0, drawn_total, np.inf)
    rows = []
    for name, indices in groups.items():
        variance = sigma[indices].sum()
        rows.append(
            Share(
                name,
                float(variance),
                percentiles(drawn[:, indices].sum(axis=1)),
                float(variance / total) if total > 0 else NAN,
                percentiles(drawn_shares[:, indices].sum(axis=1)),
            )
        )
    return rows
