"""Simulated labelling studies (pure numpy, vectorised over studies): cells of 0/1
answers, a judge of known error, and a queue that draws the answers to label as
itemeval's active queue does (stats/active_ppi.py), or uniformly (share 1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from itemeval.stats.active_ppi import (
    ActiveCorrected,
    Drawn,
    answer_probabilities,
    ipw_ppi_mean,
    stratum_moments,
)

PRIOR = 0.25
"""(range / 2)^2 of 0/1 scores: the design's guess before any label."""


@dataclass(frozen=True)
class Scenario:
    """Per cell: the true mean of the human's 0/1 verdict, and how often the judge
    passes an answer the human fails (a lenient judge: its errors concentrate in the
    cells and the verdict where it is lenient)."""

    truth: tuple[float, ...] = (0.7, 0.5, 0.6, 0.4)
    lenient: tuple[float, ...] = (0.03, 0.03, 0.3, 0.3)
    cell: int = 300
    """Answers per cell."""


@dataclass(frozen=True)
class Simulated:
    cells: tuple[ActiveCorrected, ...]
    labels: np.ndarray
    """Distinct answers labelled per study (a draw of one already labelled is free)."""


def simulate(
    scenario: Scenario, *, studies: int, draws: int, share: float, seed: int
) -> Simulated:
    """`studies` studies of `draws` draws each; share 1 is the uniform queue."""
    rng = np.random.default_rng(seed)
    count = len(scenario.truth)
    cells = np.repeat(np.arange(count), scenario.cell)
    truth = np.asarray(scenario.truth)[cells]
    human = (rng.random((studies, cells.size)) < truth).astype(float)
    passes = rng.random(human.shape) < np.asarray(scenario.lenient)[cells]
    judge = np.where(human == 1, 1.0, passes.astype(float))
    picked, probability, labels = _draw(rng, cells, human, judge, draws, share)
    drawn_human = np.take_along_axis(human, picked, 1)
    drawn_judge = np.take_along_axis(judge, picked, 1)
    results = []
    for c in range(count):
        mine = slice(c * scenario.cell, (c + 1) * scenario.cell)
        results.append(
            ipw_ppi_mean(
                judge[:, mine],
                Drawn(
                    cells[picked] == c,
                    drawn_human,
                    drawn_judge,
                    1.0 / (scenario.cell * probability),
                ),
                pool=cells.size,
            )
        )
    return Simulated(tuple(results), labels)


def _draw(rng, cells, human, judge, draws, share):
    """Each step, per study: the strata's probabilities from the labels so far, a
    stratum by them, an answer of it uniformly."""
    studies, size_all = human.shape
    strata = cells * 2 + judge.astype(int)  # cell x the judge's verdict
    count = 2 * (cells.max() + 1)
    size = np.stack([(strata == h).sum(1) for h in range(count)], 1)
    cell_size = np.bincount(cells)[np.arange(count) // 2][None, :]
    order = np.argsort(strata, axis=1, kind="stable")
    offset = np.concatenate(
        [np.zeros((studies, 1), int), np.cumsum(size, 1)[:, :-1]], 1
    )
    labelled = np.zeros((studies, size_all), bool)
    squares, counts = np.zeros((studies, count)), np.zeros((studies, count))
    rows = np.arange(studies)
    picked = np.empty((studies, draws), int)
    probability = np.empty((studies, draws))
    for step in range(draws):
        moment = stratum_moments(squares, counts, PRIOR)
        p = answer_probabilities(size, cell_size, moment, share)
        cumulative = np.cumsum(size * p, 1)
        u = rng.random((studies, 1)) * cumulative[:, -1:]
        h = np.minimum((u > cumulative).sum(1), count - 1)
        within = (rng.random(studies) * size[rows, h]).astype(int)
        i = order[rows, offset[rows, h] + within]
        picked[:, step], probability[:, step] = i, p[rows, h]
        new = ~labelled[rows, i]
        labelled[rows, i] = True
        error = (human[rows, i] - judge[rows, i]) ** 2
        np.add.at(squares, (rows[new], h[new]), error[new])
        np.add.at(counts, (rows[new], h[new]), 1)
    return picked, probability, labelled.sum(1)


def covered(simulated: Simulated, scenario: Scenario) -> np.ndarray:
    """Per cell and study: whether the interval holds the cell's true mean."""
    return np.array(
        [
            (r.ci_low <= t) & (t <= r.ci_high)
            for r, t in zip(simulated.cells, scenario.truth)
        ]
    )


def widest(simulated: Simulated) -> np.ndarray:
    """Per study: the width of its widest cell's interval."""
    return np.array([r.ci_high - r.ci_low for r in simulated.cells]).max(0)
