"""Bootstrap intervals for how two graders agree: exact agreement, quadratic kappa,
Krippendorff's alpha (interval), Spearman, and the mean difference (bias) of a - b.

Percentile intervals from 2,000 resamples (seeded) of the solutions both graded. Every
figure depends only on how often each distinct (a, b) pair of scores occurs, so a
resample is a multinomial draw of those counts: exact in distribution, and as cheap for
a million solutions as for a hundred. Scores with very many distinct pairs (continuous
ones) are resampled index by index instead, in bounded chunks. Kappa uses the closed
form of quadratic-weighted Cohen's kappa over the label indices,
1 - E[(a-b)^2] / (var a + var b + (mean a - mean b)^2), which is
`agreement.quadratic_kappa` whenever every label appears."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
MAX_DISTINCT = 4000  # distinct (a, b) pairs up to which resamples are drawn as counts
_CHUNK_CELLS = 4_000_000  # resamples x pairs held at once
FIGURES = ("bias", "exact", "kappa", "alpha", "spearman")


@dataclass(frozen=True)
class AgreementInterval:
    bias: float
    bias_ci_low: float
    bias_ci_high: float
    kappa_ci_low: float
    kappa_ci_high: float
    exact_ci_low: float
    exact_ci_high: float
    alpha_ci_low: float
    alpha_ci_high: float
    spearman_ci_low: float
    spearman_ci_high: float


def agreement_interval(
    a: np.ndarray, b: np.ndarray, *, seed: int = 0, resamples: int = RESAMPLES
) -> AgreementInterval:
    """The bias (mean a - b) and the intervals of every agreement figure, over the
    solutions both scored."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    a, b = a[both], b[both]
    nan = float("nan")
    bias = float((a - b).mean()) if len(a) else nan
    if len(a) < 2:
        return AgreementInterval(bias, *([nan] * 10))
    pairs, counts = _distinct_pairs(a, b)
    rng = np.random.default_rng(seed)
    if len(pairs) <= MAX_DISTINCT:
        weights = rng.multinomial(len(a), counts / len(a), size=resamples)
        figures = weighted_figures(pairs[:, 0], pairs[:, 1], weights.astype(float))
    else:
        figures = _by_index(a, b, rng, resamples)
    tails = [(1 - LEVEL) / 2 * 100, (1 + LEVEL) / 2 * 100]
    bounds = []
    for name in ("bias", "kappa", "exact", "alpha", "spearman"):
        values = figures[name]
        finite = values[np.isfinite(values)]
        bounds += list(np.percentile(finite, tails)) if len(finite) else [nan, nan]
    return AgreementInterval(bias, *(float(x) for x in bounds))


def _distinct_pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (a, b) pairs (rows) and how often each occurs."""
    values_a, code_a = np.unique(a, return_inverse=True)
    values_b, code_b = np.unique(b, return_inverse=True)
    keys, counts = np.unique(code_a * len(values_b) + code_b, return_counts=True)
    pairs = np.stack([values_a[keys // len(values_b)], values_b[keys % len(values_b)]])
    return pairs.T, counts


def weighted_figures(xa: np.ndarray, xb: np.ndarray, w: np.ndarray) -> dict:
    """Each figure for every row of `w` (resamples x pairs: how often each (xa, xb)
    pair occurs in that resample)."""
    n = w.sum(axis=1)
    labels = np.unique(np.concatenate([np.rint(xa), np.rint(xb)]))
    ia = np.searchsorted(labels, np.rint(xa)).astype(float)
    ib = np.searchsorted(labels, np.rint(xb)).astype(float)

    def mean(values: np.ndarray) -> np.ndarray:
        return w @ values / n

    with np.errstate(invalid="ignore", divide="ignore"):
        expected = (mean(ia**2) - mean(ia) ** 2 + mean(ib**2) - mean(ib) ** 2) + (
            mean(ia) - mean(ib)
        ) ** 2
        kappa = np.where(expected > 0, 1 - mean((ia - ib) ** 2) / expected, np.nan)
        total = 2 * n
        centre = (w @ xa + w @ xb) / total
        spread = w @ xa**2 + w @ xb**2 - total * centre**2
        observed = 2 * (w @ (xa - xb) ** 2) / total
        alpha = np.where(spread > 0, 1 - observed / (2 * spread / (total - 1)), np.nan)
        spearman = _weighted_spearman(xa, xb, w, n)
    return {
        "bias": mean(xa - xb),
        "exact": mean((xa == xb).astype(float)),
        "kappa": kappa,
        "alpha": alpha,
        "spearman": spearman,
    }


def _weighted_spearman(xa, xb, w, n) -> np.ndarray:
    """Pearson of the midranks, the ranks computed from each resample's counts."""
    ranks = []
    for x in (xa, xb):
        values, index = np.unique(x, return_inverse=True)
        onehot = np.zeros((len(x), len(values)))
        onehot[np.arange(len(x)), index] = 1
        counts = w @ onehot
        midrank = np.cumsum(counts, axis=1) - counts + (counts + 1) / 2
        ranks.append(midrank[:, index])
    ra, rb = ranks
    ma, mb = (w * ra).sum(1) / n, (w * rb).sum(1) / n
    cov = (w * (ra - ma[:, None]) * (rb - mb[:, None])).sum(1)
    va = (w * (ra - ma[:, None]) ** 2).sum(1)
    vb = (w * (rb - mb[:, None]) ** 2).sum(1)
    return np.where((va > 0) & (vb > 0), cov / np.sqrt(va * vb), np.nan)


def _by_index(a, b, rng, resamples) -> dict:
    """Resample solution by solution (scores with very many distinct pairs)."""
    from scipy.stats import rankdata

    n = len(a)
    labels = np.unique(np.concatenate([np.rint(a), np.rint(b)]))
    ia = np.searchsorted(labels, np.rint(a)).astype(float)
    ib = np.searchsorted(labels, np.rint(b)).astype(float)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in FIGURES}
    chunk = max(1, _CHUNK_CELLS // n)
    for start in range(0, resamples, chunk):
        draw = rng.integers(0, n, size=(min(chunk, resamples - start), n))
        x, y = a[draw], b[draw]
        values = np.concatenate([x, y], axis=1)
        spread = values.var(axis=1) * 2 * n
        observed = 2 * ((x - y) ** 2).sum(axis=1) / (2 * n)
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha = np.where(
                spread > 0, 1 - observed / (2 * spread / (2 * n - 1)), np.nan
            )
        rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
        parts["bias"].append((x - y).mean(axis=1))
        parts["exact"].append((x == y).mean(axis=1))
        parts["kappa"].append(closed_form_kappa(ia[draw], ib[draw]))
        parts["alpha"].append(alpha)
        parts["spearman"].append(_pearson_rows(rx, ry))
    return {name: np.concatenate(values) for name, values in parts.items()}


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = x - x.mean(axis=1, keepdims=True)
    y = y - y.mean(axis=1, keepdims=True)
    scale = np.sqrt((x**2).sum(axis=1) * (y**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(scale > 0, (x * y).sum(axis=1) / scale, np.nan)


def closed_form_kappa(ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Quadratic kappa over the last axis of label-index arrays; NaN where it is
    undefined."""
    mean_a, mean_b = ia.mean(axis=-1), ib.mean(axis=-1)
    expected = ia.var(axis=-1) + ib.var(axis=-1) + (mean_a - mean_b) ** 2
    observed = ((ia - ib) ** 2).mean(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1 - observed / expected, np.nan)
