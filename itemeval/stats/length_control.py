"""The length-controlled win rate of a pairwise comparison: a logistic model of the
verdict on which condition sits in slot A and on the answers' length difference,
read at a length difference of zero.

logit P(A wins) = b0 + b1 · c + b2 · (len A - len B), with c = +1 when the focal
condition X sits in slot A and -1 when it sits in slot B (the order swapped). b0 is
the judge's preference for a slot, b1 the conditions' contrast, b2 what a longer
answer buys. At zero length difference X wins with probability
sigmoid(b1 + b0) in slot A and sigmoid(b1 - b0) in slot B; their mean over the two
slots is the length-controlled win rate (the idea of AlpacaEval's LC win rate,
Dubois, Galambosi, Liang & Hashimoto 2024, "Length-controlled AlpacaEval", with
the length term linear). When every pair has X in slot A, c is dropped and the win
rate is sigmoid(b0). A tie counts as half a win (a fractional outcome, the same
quasi-likelihood statsmodels' Logit maximises). The interval is the delta method on
the logit of the win rate with the fit's inverse information as the covariance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .intervals import LEVEL, NAN, special

_ITERATIONS = 100
_TOLERANCE = 1e-12


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def logit_fit(design: np.ndarray, outcome: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The maximum-likelihood logistic regression by Newton-Raphson: coefficients
    and their covariance (the inverse of X' W X at the fit), as statsmodels'
    `Logit(outcome, design).fit()` gives them. NaN where there is no fit: a
    singular design (the length difference tied to the slot), or verdicts a line
    separates perfectly (the coefficients run off to infinity)."""
    x, y = np.asarray(design, dtype=float), np.asarray(outcome, dtype=float)
    beta = np.zeros(x.shape[1])
    missing = np.full(x.shape[1], NAN), np.full((x.shape[1],) * 2, NAN)
    try:
        for _ in range(_ITERATIONS):
            p = sigmoid(x @ beta)
            information = x.T @ (x * (p * (1 - p))[:, None])
            step = np.linalg.solve(information, x.T @ (y - p))
            beta = beta + step
            if np.max(np.abs(step)) < _TOLERANCE:
                break
        else:
            return missing
        p = sigmoid(x @ beta)
        return beta, np.linalg.inv(x.T @ (x * (p * (1 - p))[:, None]))
    except np.linalg.LinAlgError:
        return missing


@dataclass(frozen=True)
class LengthControlled:
    """X's win rate over Y at equal length, with its interval."""

    n: int
    win_rate: float
    ci_low: float
    ci_high: float
    length_coef: float
    """b2: the change in the log-odds of A winning per unit of length difference."""


def length_design(length_diff, contrast=None) -> np.ndarray:
    """The design: a constant, c (when it varies) and the length difference."""
    columns = [np.ones(len(length_diff))]
    if contrast is not None and np.ptp(contrast) > 0:
        columns.append(np.asarray(contrast, dtype=float))
    columns.append(np.asarray(length_diff, dtype=float))
    return np.column_stack(columns)


def length_controlled_win_rate(
    a_wins: np.ndarray,
    length_diff: np.ndarray,
    contrast: np.ndarray | None = None,
    *,
    level: float = LEVEL,
) -> LengthControlled:
    """X's length-controlled win rate. `a_wins`: 1, 0 or 0.5 (a tie) per judged
    pair; `length_diff`: len A - len B (any unit); `contrast`: +1 where X is in
    slot A, -1 where it is in slot B (None: always in A)."""
    y = np.asarray(a_wins, dtype=float)
    design = length_design(length_diff, contrast)
    if len(y) <= design.shape[1] or np.ptp(y) == 0:
        return LengthControlled(len(y), NAN, NAN, NAN, NAN)
    beta, cov = logit_fit(design, y)
    if design.shape[1] == 3:
        ends = sigmoid(np.array([beta[1] + beta[0], beta[1] - beta[0]]))
        slopes = ends * (1 - ends)
        rate = float(ends.mean())
        gradient = np.array([slopes[0] - slopes[1], slopes.sum(), 0.0]) / 2
    else:
        rate = float(sigmoid(beta[0]))
        gradient = np.array([rate * (1 - rate), 0.0])
    # the delta method on logit(rate): its gradient is rate's over rate (1 - rate)
    se = float(np.sqrt(gradient @ cov @ gradient)) / (rate * (1 - rate))
    z = float(special.ndtri(0.5 + level / 2))
    centre = np.log(rate / (1 - rate))
    low, high = sigmoid(centre - z * se), sigmoid(centre + z * se)
    return LengthControlled(len(y), rate, float(low), float(high), float(beta[-1]))


def pairwise_length_controlled(
    a_score: np.ndarray, length_a, length_b, order, *, level: float = LEVEL
) -> LengthControlled:
    """A's length-controlled win rate over B from a pairwise judge's verdicts:
    `a_score` 1/0.5/0 per verdict, the answers' lengths, and `order` (1: A shown
    first, 2: B first). The slot of the model is the position shown first."""
    c = np.where(np.asarray(order) == 1, 1.0, -1.0)
    a_score = np.asarray(a_score, dtype=float)
    first_wins = np.where(c > 0, a_score, 1 - a_score)
    diff = c * (np.asarray(length_a, float) - np.asarray(length_b, float))
    return length_controlled_win_rate(first_wins, diff, c, level=level)
