"""The active labelling queue: which answer a rater labels next, drawn with a known
probability that favours the strata (cell x the judge's verdict) where the judge has
been wrong (stats/active_ppi.py), each draw kept with the label it asks for.

Draws are with replacement: a draw of an answer the rater has already labelled costs
no label and is recorded on that label at once. The estimate of `results`
(results/active_labels.py) reads the draws back; a draw shown and skipped, or never
labelled, is no draw (it never reached the store)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..records import GradeCondition
from ..stats.active_ppi import SHARE, answer_probabilities, stratum_moments
from ..store import read_store
from ..study.load import Study
from .label_queue import KEY, QueueOptions, label_queue
from .labels import HUMAN, Scale

ACTIVE = "active"
VERDICT_BINS = 6
"""A judge giving at most this many distinct scores has a stratum per score; one with
more (a judge's mean of several draws, a fine scale) has four, by its quartiles."""
FREE_DRAWS = 10_000
"""The most draws of answers already labelled made while looking for the next one: a
queue whose unlabelled answers are all in strata it rarely draws ends there."""


def pick_judge(study: Study, rater: GradeCondition, slug: str | None) -> GradeCondition:
    """The machine grade condition whose verdicts stratify the queue: `--active-judge`,
    else the study's first grading under the rater's rubric."""
    machines = [c for c in study.grade if c.kind != HUMAN]
    if slug is not None:
        found = [c for c in machines if slug in (c.slug, c.id)]
        if not found:
            known = ", ".join(c.slug for c in machines) or "none"
            raise ConfigError(
                f"--active-judge: {slug!r} is not a grade condition of the study "
                f"({known})"
            )
        return found[0]
    digest = rater.rubric.hash if rater.rubric else None
    same = [c for c in machines if c.rubric is not None and c.rubric.hash == digest]
    if not same:
        raise ConfigError(
            "--active: no judge grades under the rubric the rater labels against "
            f"({rater.rubric.ref if rater.rubric else 'none'}); name one with "
            "--active-judge SLUG, or label uniformly (leave out --active)"
        )
    return same[0]


def judge_pool(study: Study, judge: GradeCondition, seed: int) -> pd.DataFrame:
    """The queue's answers the judge has scored, with its score (the mean of its
    draws) and each answer's stratum and cell size: columns condition_id, item_id,
    epoch, solution_hash, judge, stratum, cell_size."""
    answers = label_queue(study, QueueOptions(seed=seed)).sort_values(KEY)
    grades = read_store(
        study.paths,
        "grades",
        ["gen_condition_id", "item_id", "epoch", "solution_hash", "score"],
        where={"grade_condition_id": [judge.id]},
    ).to_pandas()
    grades = grades.rename(columns={"gen_condition_id": "condition_id"})
    grades = grades[grades["score"].notna()]
    scores = grades.groupby([*KEY, "solution_hash"], as_index=False)["score"].mean()
    pool = answers.merge(scores, on=[*KEY, "solution_hash"], how="inner")
    pool = pool.rename(columns={"score": "judge"}).reset_index(drop=True)
    pool["stratum"] = strata_of(pool)
    pool["cell_size"] = pool.groupby("condition_id")["item_id"].transform("size")
    return pool


def strata_of(pool: pd.DataFrame) -> np.ndarray:
    """A number per (cell, verdict bin)."""
    scores = pool["judge"].to_numpy(float)
    if np.unique(scores).size <= VERDICT_BINS:
        verdict = pd.factorize(scores, sort=True)[0]
    else:
        edges = np.quantile(scores, [0.25, 0.5, 0.75])
        verdict = np.searchsorted(edges, scores, side="right")
    cell = pd.factorize(pool["condition_id"], sort=True)[0]
    return pd.factorize(cell * (VERDICT_BINS + 1) + verdict, sort=True)[0]


def label_draws(label: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The active draws recorded on a label row (none on a uniform queue's)."""
    if not label or not label.get("score_metadata"):
        return []
    try:
        meta = json.loads(label["score_metadata"])
    except (TypeError, ValueError):
        return []
    draws = meta.get("draws") if isinstance(meta, dict) else None
    return list(draws) if isinstance(draws, list) else []


@dataclass
class ActiveQueue:
    """The draws of one labelling session, in the order shown; `entries[k]["draw"]`
    is the k-th draw, written with its label (`recorded`) when the rater gives it."""

    pool: pd.DataFrame
    judge: GradeCondition
    scale: Scale
    share: float = SHARE
    seed: int = 0
    entries: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _rng: np.random.Generator | None = None

    def draw(self, labels: dict[tuple, dict[str, Any]], free: list[dict]) -> int | None:
        """Draw until an answer without a current label comes up; append it and
        return its position. Each draw of a labelled answer is appended to `free`
        as (key, draw) for the caller to record. None when every answer is
        labelled (or FREE_DRAWS came up labelled)."""
        with self.lock:
            rng = self._generator(labels)
            done = self.labelled(labels)
            if done.all():
                return None
            # the labels do not change while the draws are free: one set of p
            p = self._probabilities(labels, done)
            strata = self.pool["stratum"].to_numpy()
            size = np.bincount(strata, minlength=p.size)
            for _ in range(FREE_DRAWS):
                stratum = rng.choice(p.size, p=size * p / (size * p).sum())
                members = np.flatnonzero(strata == stratum)
                row = self.pool.iloc[members[rng.integers(members.size)]]
                record = self._record(row, float(p[stratum]))
                entry = {k: row[k] for k in [*KEY, "solution_hash"]}
                if done[row.name]:
                    free.append({"entry": entry, "draw": record})
                    continue
                self.entries.append({**entry, "draw": record, "recorded": False})
                return len(self.entries) - 1
            return None

    def _generator(self, labels: dict[tuple, dict[str, Any]]) -> np.random.Generator:
        """Seeded by the seed and the draws already on record, so a restarted view
        goes on with new draws, the same on any machine."""
        if self._rng is None:
            known = sum(len(label_draws(label)) for label in labels.values())
            self._rng = np.random.default_rng([self.seed, known])
        return self._rng

    def labelled(self, labels: dict[tuple, dict[str, Any]]) -> np.ndarray:
        """Per answer of the pool: whether the rater's label of it is current."""
        return np.array(
            [
                (label := labels.get((c, i, int(e)))) is not None
                and label["solution_hash"] == h
                for c, i, e, h in self.pool[[*KEY, "solution_hash"]].itertuples(
                    index=False
                )
            ],
            dtype=bool,
        )

    def _probabilities(self, labels: dict, done: np.ndarray) -> np.ndarray:
        """The probability of drawing each single answer, per stratum, from the
        labels so far (stats/active_ppi.py)."""
        pool = self.pool
        strata = pool["stratum"].to_numpy()
        count = strata.max() + 1
        human = np.array(
            [
                labels[(c, i, int(e))]["score"] if ok else np.nan
                for (c, i, e), ok in zip(pool[KEY].itertuples(index=False), done)
            ],
            dtype=float,
        )
        error = (human - pool["judge"].to_numpy(float)) ** 2
        squares = np.bincount(strata[done], error[done], minlength=count)
        counts = np.bincount(strata[done], minlength=count).astype(float)
        size = np.bincount(strata, minlength=count)
        cell_size = np.zeros(count)
        cell_size[strata] = pool["cell_size"].to_numpy(float)
        prior = ((self.scale.high - self.scale.low) / 2) ** 2
        moment = stratum_moments(squares, counts, prior)
        return answer_probabilities(size, cell_size, moment, self.share)

    def _record(self, row: pd.Series, p: float) -> dict[str, Any]:
        """What a draw stores with its label."""
        return {
            "p": p,
            "n_cell": int(row["cell_size"]),
            "pool": len(self.pool),
            "judge": self.judge.id,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
