"""itemeval.stats.racing: who leaves a race, by table; and 1,000 simulated races of 8
conditions with known means, offline (the error and the saving the guide reports)."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from itemeval.stats import bernstein, racing

ALPHA = 0.05
RACES = 1000
ROUND = 20


def _lower(k: int, shown: dict[tuple[int, int], float]) -> np.ndarray:
    """A lower-bound matrix: L[i, j] = shown[(i, j)], else -0.5 (nothing shown)."""
    lower = np.full((k, k), -0.5)
    for (i, j), value in shown.items():
        lower[i, j] = value
    return lower


@pytest.mark.parametrize(
    "shown, alive, top, out",
    [
        ({}, [1, 1, 1], 1, [0, 0, 0]),  # nothing shown: nobody leaves
        ({(0, 1): 0.1}, [1, 1, 1], 1, [0, 1, 0]),  # 0 beats 1: 1 cannot be top 1
        ({(0, 1): 0.1}, [1, 1, 1], 2, [0, 0, 0]),  # ... but it may still be top 2
        ({(0, 2): 0.1, (1, 2): 0.2}, [1, 1, 1], 2, [0, 0, 1]),  # two beat 2
        ({(0, 1): 0.0}, [1, 1, 1], 1, [0, 0, 0]),  # a bound at 0 shows nothing
        ({(0, 1): 0.1}, [1, 0, 1], 1, [0, 0, 0]),  # 1 already left: not again
        # a sequence that missed (a cycle): leaving would empty the field, so none do
        ({(0, 1): 0.1, (1, 0): 0.1}, [1, 1, 0], 1, [0, 0, 0]),
        # evidence from a condition that left still counts (its bound was valid then)
        ({(2, 1): 0.1}, [1, 1, 0], 1, [0, 1, 0]),
    ],
)
def test_who_leaves(shown, alive, top, out):
    lower = _lower(3, shown)
    got = racing.out_of_top(lower, np.array(alive, dtype=bool), top)
    assert got.tolist() == [bool(v) for v in out]


@pytest.mark.parametrize(
    "shown, settled, ranks",
    [
        ({}, [0, 0, 0], [1, 1, 1]),
        ({(0, 1): 0.1, (0, 2): 0.1}, [1, 0, 0], [1, 2, 2]),  # 0 first; 1, 2 open
        ({(0, 1): 0.1, (0, 2): 0.1, (1, 2): 0.1}, [1, 1, 1], [1, 2, 3]),
        ({(2, 1): 0.1, (0, 2): 0.1, (0, 1): 0.1}, [1, 1, 1], [1, 3, 2]),
    ],
)
def test_a_full_ranking_settles_a_place_once_every_pair_of_it_is_shown(
    shown, settled, ranks
):
    lower = _lower(3, shown)
    assert racing.settled(lower).tolist() == [bool(v) for v in settled]
    assert [racing.rank(lower, j) for j in range(3)] == ranks


def test_pairs_use_the_items_both_have_at_alpha_over_the_pairs():
    assert racing.pair_alpha(0.05, 8) == pytest.approx(0.05 / 28)
    scores = np.array([[1, 0, np.nan], [1, 0, 1], [0, np.nan, 1], [1, 1, 0]], float)
    bounds = {(b.a, b.b): b for b in racing.pair_bounds(scores, 0.05)}
    assert bounds[(0, 1)].items == 3 and bounds[(0, 1)].mean == pytest.approx(2 / 3)
    assert bounds[(0, 2)].items == 3 and bounds[(1, 2)].items == 2
    low, high = bernstein.paired_sequence(np.array([1.0, 1.0, 0.0]), 0.05 / 3)
    assert (bounds[(0, 1)].low, bounds[(0, 1)].high) == (low[-1], high[-1])
    lower = racing.lower_matrix(list(bounds.values()), 3)
    assert lower[1, 0] == -bounds[(0, 1)].high and lower[0, 1] == bounds[(0, 1)].low
    empty = racing.pair_bounds(np.full((2, 2), np.nan), 0.05)[0]
    assert (empty.items, empty.low, empty.high) == (0, -1.0, 1.0)


# --- the simulation: the race of adaptive/racing.py on numpy arrays -----------------


def simulate(means, items: int, seed: int, sequences=None) -> tuple[np.ndarray, ...]:
    """RACES races of conditions with these means over `items` items, in chunks (the
    arrays of all pairs' sequences at once would not fit in a small machine): who is
    still in, the items each ran, whether it named its top."""
    rng, found = np.random.default_rng(seed), []
    for _ in range(RACES // CHUNK):
        # 0/1 scores, independent given the means: paired differences as variable
        # as 0/1 scores allow
        scores = rng.random((CHUNK, items, len(means))) < np.asarray(means)
        found.append(
            race(
                (sequences or _sequences)(scores.astype(float), ALPHA),
                items,
                len(means),
            )
        )
    return tuple(np.concatenate(parts) for parts in zip(*found))


CHUNK = 100


def _sequences(scores: np.ndarray, alpha: float) -> tuple[np.ndarray, ...]:
    """Each pair's confidence sequence after every item: races x pairs x items."""
    k = scores.shape[-1]
    a, b = np.array(list(combinations(range(k), 2))).T
    d = np.moveaxis(scores[..., a] - scores[..., b], 1, 2)
    low, high = bernstein.paired_sequence(d, racing.pair_alpha(alpha, k))
    return a, b, low, high


def _naive(scores: np.ndarray, alpha: float) -> tuple[np.ndarray, ...]:
    """The mistake racing guards against: a fixed-n normal interval per pair at alpha,
    uncorrected, looked at after every round as if each look were the only one."""
    k = scores.shape[-1]
    a, b = np.array(list(combinations(range(k), 2))).T
    d = np.moveaxis(scores[..., a] - scores[..., b], 1, 2)
    n = np.arange(1, d.shape[-1] + 1)
    mean = np.cumsum(d, axis=-1) / n
    var = np.maximum(np.cumsum(d**2, axis=-1) / n - mean**2, 1e-12)
    half = 1.959963984540054 * np.sqrt(var / n)
    return a, b, mean - half, mean + half


def race(sequences, items: int, k: int, top: int = 1) -> tuple[np.ndarray, ...]:
    """Every race at once, a look after every ROUND items: who is still in, the
    items each condition ran, and whether the race named its top."""
    a, b, low, high = sequences
    alive = np.ones((low.shape[0], k), dtype=bool)
    ran = np.full((low.shape[0], k), items)
    done = np.zeros(low.shape[0], dtype=bool)
    for t in range(ROUND, items + 1, ROUND):
        # a pair stops being observed when one of its two leaves
        at = np.minimum(t, np.minimum(ran[:, a], ran[:, b])) - 1
        lower = np.full(alive.shape + (k,), -1.0)
        lower[:, a, b] = np.take_along_axis(low, at[..., None], -1)[..., 0]
        lower[:, b, a] = -np.take_along_axis(high, at[..., None], -1)[..., 0]
        out = racing.out_of_top(lower, alive & ~done[:, None], top)
        ran[out] = t
        alive &= ~out
        now = ~done & (alive.sum(axis=1) <= top)
        ran[now[:, None] & alive] = t
        done |= now
    return alive, ran, done


def _wrong(alive, done, means) -> np.ndarray:
    """A named winner whose mean is below the best mean (a tie for best is right)."""
    means = np.asarray(means)
    return done & (alive & (means < means.max())).any(axis=1)


LEAST_FAVOURABLE = {
    # one rival a hair below the best, the rest far below: they leave early, and the
    # race then turns on one near-tied pair, where a single sequence that misses is
    # enough to name the rival. Every other wrong answer needs two or more to miss.
    "rival": [0.60, 0.59, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30],
    # the best a hair above seven equals: naming any of them is wrong
    "tight": [0.60, 0.59, 0.59, 0.59, 0.59, 0.59, 0.59, 0.59],
    # the rival further off, so that four races in ten end: a wrong name is then
    # possible in the races that end, not only in principle
    "rival, deciding": [0.60, 0.50, 0.30, 0.30, 0.30, 0.30, 0.30, 0.30],
}


@pytest.mark.parametrize("name", sorted(LEAST_FAVOURABLE))
def test_a_wrong_top_1_is_at_most_alpha_where_it_is_likeliest(name):
    means = LEAST_FAVOURABLE[name]
    alive, _, done = simulate(means, 1000, seed=54)
    assert _wrong(alive, done, means).mean() <= ALPHA


def test_the_simulation_can_catch_an_invalid_race():
    """The same races with uncorrected fixed-n intervals re-read every round name the
    rival far more often than alpha: the check above can fail."""
    means = LEAST_FAVOURABLE["rival"]
    alive, _, done = simulate(means, 1000, seed=54, sequences=_naive)
    assert _wrong(alive, done, means).mean() > 2 * ALPHA


def test_among_equals_no_race_ever_names_a_winner():
    alive, ran, done = simulate([0.5] * 8, 400, seed=8)
    assert not done.any() and alive.all() and (ran == 400).all()


CLEAR = [0.85, 0.60, 0.60, 0.55, 0.50, 0.50, 0.45, 0.40]
"""One clearly best condition (0.25 above the next) among seven."""


def test_with_one_clearly_best_the_race_uses_under_40_percent_of_the_grid():
    items = 500
    alive, ran, done = simulate(CLEAR, items, seed=11)
    share = ran.sum(axis=1) / (len(CLEAR) * items)
    assert done.mean() >= 0.99 and not _wrong(alive, done, CLEAR).any()
    assert share.mean() <= 0.40
    assert math.isclose(share.mean(), 0.27, abs_tol=0.03)  # the guide's figure


def _one_race_as_the_command_runs_it(scores: np.ndarray, top: int) -> tuple:
    """adaptive/racing.py's look on one race: after each round, the stored scores so
    far (NaN past where a condition left) through pair_bounds and out_of_top."""
    items, k = scores.shape
    alive, ran = np.ones(k, dtype=bool), np.full(k, items)
    for t in range(ROUND, items + 1, ROUND):
        seen = scores[:t].copy()
        for j in np.flatnonzero(~alive):
            seen[ran[j] :, j] = np.nan
        lower = racing.lower_matrix(racing.pair_bounds(seen, ALPHA), k)
        out = racing.out_of_top(lower, alive, top)
        ran[out] = t
        alive &= ~out
        if alive.sum() <= top:
            ran[alive] = t
            return alive, ran, True
    return alive, ran, False


def test_the_simulation_is_the_race_the_command_runs():
    """The vectorised races above decide exactly as the command's own look does."""
    rng = np.random.default_rng(3)
    means = [0.8, 0.6, 0.5, 0.4]
    scores = (rng.random((CHUNK, 300, 4)) < np.asarray(means)).astype(float)
    alive, ran, done = race(_sequences(scores, ALPHA), 300, 4)
    for r in range(0, CHUNK, 10):
        one = _one_race_as_the_command_runs_it(scores[r], 1)
        assert one[0].tolist() == alive[r].tolist() and one[2] == done[r]
        assert one[1].tolist() == ran[r].tolist()
    assert done.mean() > 0.5  # the check covers races that ended, not just ties
