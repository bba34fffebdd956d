"""A cell's graded rows as the values its metrics compare: the answers the scorers
read (the reply itself where a scorer keeps it whole), their labels and numbers, and
the targets."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import numpy as np
import pandas as pd

from ..plan.state import grade_state
from ..records import GradeCondition, Item
from ..scorers.numeric import read_target_number
from ..scorers.reference import reference_targets
from ..scorers.registry import answer_holds
from ..scorers.text import normalise_text
from ..stats.metric_figures import Classification
from ..stats.resample import RESAMPLES
from ..store import read_store
from ..study.load import Study
from ..study.metrics import PlannedMetric

USED = {"done": "scored", "parse_failed": "parse_failure"}
"""Grades a metric reads: scored ones and parse failures (whose answer is a miss)."""


@dataclass(frozen=True)
class MetricOptions:
    seed: int = 0
    by: tuple[str, ...] = ()
    items: frozenset[str] | None = None
    """Only these items (results --sample), None for all."""
    resamples: int = RESAMPLES


@dataclass(frozen=True)
class CellContext:
    """What the metrics of every cell share: the study's items, the grade conditions
    by id, each item's reduced score and the metrics' options."""

    items: dict[str, Item]
    conditions: dict[str, GradeCondition]
    item_scores: pd.Series
    """The reduced score by (gen condition, grade condition, item)."""
    options: MetricOptions

    @classmethod
    def of(
        cls,
        study: Study,
        grade: list[GradeCondition],
        item_scores: pd.DataFrame,
        options: MetricOptions,
    ) -> CellContext:
        return cls(
            items={item.id: item for item in study.items},
            conditions={c.id: c for c in grade},
            item_scores=item_scores.set_index(
                ["gen_condition_id", "grade_condition_id", "item_id"]
            )["score"],
            options=options,
        )


def answers(
    study: Study,
    grade: list[GradeCondition],
    planned: list[PlannedMetric],
    items: frozenset[str] | None,
) -> pd.DataFrame:
    """One row per graded replication the metrics read: ids, score, answer."""
    wanted = {gid for metric in planned for gid in metric.grade_condition_ids}
    conditions = [c for c in grade if c.id in wanted]
    # every grade condition's, as results joined them (state.shared_states), then
    # those the metrics read
    state = grade_state(study, grade, extra=("score", "answer"))
    state = state[
        state["state"].isin(list(USED)) & state["grade_condition_id"].isin(wanted)
    ]
    if items is not None:
        state = state[state["item_id"].isin(items)]
    columns = ["gen_condition_id", "grade_condition_id", "item_id", "epoch"]
    frame = state[[*columns, "score", "answer"]].reset_index(drop=True)
    whole = _keeping_the_reply(conditions, planned)
    return _with_replies(study, frame, whole) if whole else frame


def _keeping_the_reply(
    conditions: list[GradeCondition], planned: list[PlannedMetric]
) -> set[str]:
    """Grade conditions a text metric reads whose scorer stores no answer when its
    answer is the whole reply (inspect's match, includes, f1, exact; user scorers)."""
    texts = {
        gid for m in planned if m.kind == "corpus" for gid in m.grade_condition_ids
    }
    return {
        c.id
        for c in conditions
        if c.id in texts and "label" not in (answer_holds(c.scorer) or ())
    }


def _with_replies(study: Study, frame: pd.DataFrame, whole: set[str]) -> pd.DataFrame:
    """A missing answer of a `whole` condition filled with the reply it graded."""
    missing = frame["grade_condition_id"].isin(whole) & frame["answer"].isna()
    if not missing.any():
        return frame
    gens = sorted(set(frame.loc[missing, "gen_condition_id"]))
    replies = read_store(
        study.paths,
        "solutions",
        ["condition_id", "item_id", "epoch", "solution"],
        where={"condition_id": gens},
    ).to_pandas()
    replies = replies.rename(columns={"condition_id": "gen_condition_id"})
    keys = ["gen_condition_id", "item_id", "epoch"]
    text = frame[keys].merge(replies, on=keys, how="left")["solution"]
    frame = frame.copy()
    frame.loc[missing, "answer"] = text[missing.to_numpy()].to_numpy()
    return frame


class Columns:
    """A cell's rows as the values metrics compare: labels, numbers, texts, targets."""

    def __init__(self, context: CellContext, cell, item_ids, grade_id) -> None:
        reference = context.conditions[grade_id].reference
        targets = {
            item_id: reference_targets(context.items[item_id], reference)
            for item_id in item_ids
            if item_id in context.items
        }
        # plain lists first: iterating an arrow-backed column is ~10x slower
        row_items = cell["item_id"].tolist()
        self.targets = [targets.get(i, ()) for i in row_items]
        answers = cell["answer"].tolist()
        self.answers = [a if isinstance(a, str) else "" for a in answers]
        self.scores = cell["score"].to_numpy(dtype=float)
        self.row_items = row_items
        self.cell, self.item_ids, self.context = cell, item_ids, context
        self._classes: Classification | None = None

    @cached_property
    def metadata(self) -> list[dict]:
        """Each row's item metadata (a user metric that asks for it)."""
        items = self.context.items
        return [items[i].metadata if i in items else {} for i in self.row_items]

    @cached_property
    def _has_target(self) -> np.ndarray:
        return np.array([bool(t) for t in self.targets])

    def has_target(self) -> np.ndarray:
        return self._has_target

    def classification(self, item_of_row, n_items: int, metric: str) -> Classification:
        """The metric over the cell's labels; its class sums prepared once per cell,
        so every classification metric of the cell shares one resampled product."""
        if self._classes is None:
            predicted, true = self.labels()
            pick = np.flatnonzero(self.has_target())
            self._classes = Classification.prepare(
                item_of_row[pick],
                n_items,
                [predicted[i] for i in pick],
                [true[i] for i in pick],
                metric,
            )
        return replace(self._classes, metric=metric)

    def labels(self) -> tuple[list[str], list[str]]:
        return _labels(self.answers), _labels([t[0] if t else "" for t in self.targets])

    def numbers(self) -> tuple[np.ndarray, np.ndarray]:
        return _numbers(self.answers), _numbers(
            [t[0] if t else "" for t in self.targets]
        )

    def item_means(self, gen_id: str | None) -> np.ndarray:
        """The cell's reduced item scores (mean over conditions at a --by level)."""
        scores = self.context.item_scores
        grade_id = self.cell["grade_condition_id"].iloc[0]
        gens = self.cell["gen_condition_id"].unique()
        keys = pd.MultiIndex.from_tuples(
            [(g, grade_id, i) for g in gens for i in self.item_ids]
        )
        found = scores.reindex(keys).to_numpy(dtype=float).reshape(len(gens), -1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an item with no score
            return np.nanmean(found, axis=0)


def _labels(texts: list[str]) -> list[str]:
    """Answers and targets as class labels: a number by its value ("$1,234" is 1234),
    anything else as exact_match normalises it ("**Paris**." is "paris")."""
    codes, uniques = pd.factorize(pd.Series(texts, dtype=object))
    labels = np.array([_label(u) for u in uniques], dtype=object)
    return list(labels[codes]) if len(uniques) else []


@lru_cache(maxsize=100_000)
def _label(text: str) -> str:
    # memoised: every cell and --by level reads the same answers and targets again
    number = read_target_number(text) if text.strip() else None
    return repr(float(number)) if number is not None else normalise_text(text)


def _numbers(texts: list[str]) -> np.ndarray:
    codes, uniques = pd.factorize(pd.Series(texts, dtype=object))
    values = np.array(
        [_number(u) for u in uniques] if len(uniques) else [], dtype=float
    )
    return values[codes] if len(uniques) else np.array([], dtype=float)


@lru_cache(maxsize=100_000)
def _number(text: str) -> float:
    value = read_target_number(text) if text.strip() else None
    return float("nan") if value is None else float(value)
