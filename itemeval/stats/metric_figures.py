"""Global metrics as functions of item-weighted sufficient statistics, so one matrix
product gives a metric on every bootstrap resample at once.

Each `Figure` is prepared from a cell's rows (one per graded replication) and the
item each row belongs to; `values(counts)` takes a (resamples × items) matrix of how
often each item was drawn and returns the metric per resample. A row of ones is the
data as observed, and that is how the point estimate is computed: the same arithmetic
as the interval."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..lazy import lazy_import
from .correlations import Kendall, Pearson, Spearman
from .item_sums import item_sums, weighted

# loaded at their first use: the metrics registry is imported by commands that never
# compute a metric (status, a no-op generate)
sparse = lazy_import("scipy.sparse")
stats = lazy_import("scipy.stats")


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """top / bottom, 0 where bottom is 0 (scikit-learn's zero_division=0)."""
    out = np.zeros(np.broadcast(top, bottom).shape)
    np.divide(top, bottom, out=out, where=bottom != 0)
    return out


@dataclass
class Classification:
    """Labels compared as classes: the classes are the targets' labels; a prediction
    that is none of them (an unreadable answer) is a miss for its item's class, never
    a class of its own — scikit-learn's figures with `labels=` the target classes."""

    item_sums: Any
    """(items × 3k): per item, [true | predicted | true positive] counts per class."""
    macro_sums: Any
    """(items × k+2h): [true, the h classes with a right answer first | their
    predicted | their true positives]; a class no row got right adds 0 to a macro
    sum, so with hundreds of classes a resample's macro figure divides only h."""
    n_classes: int
    n_hit: int
    n: int
    metric: str
    classes: tuple[str, ...] = ()
    """The target labels, in the order of a per-class metric's columns."""
    item_class: np.ndarray | None = None
    """Each item's target class (-1: no target): the strata its resamples keep."""

    @classmethod
    def prepare(
        cls,
        item_of_row: np.ndarray,
        n_items: int,
        predicted: Sequence[str],
        true: Sequence[str],
        metric: str,
    ) -> Classification:
        classes = sorted(set(true))
        index = {label: k for k, label in enumerate(classes)}
        k = len(classes)
        t = np.array([index[label] for label in true], dtype=int)
        p = np.array([index.get(label, -1) for label in predicted], dtype=int)
        rows = np.arange(len(t))
        hit = p == t
        # per row: [true one-hot | predicted one-hot | true positive one-hot]
        cols = np.concatenate([t, p[p >= 0] + k, t[hit] + 2 * k])
        where = np.concatenate([rows, rows[p >= 0], rows[hit]])
        row_stats = sparse.csr_matrix(
            (np.ones(len(cols)), (where, cols)), shape=(len(t), 3 * k)
        )
        sums = item_sums(item_of_row, n_items, row_stats).tocsc()
        hits = np.unique(t[hit])
        missed = np.setdiff1d(np.arange(k), hits)
        layout = np.concatenate([hits, missed, hits + k, hits + 2 * k])
        item_class = np.full(n_items, -1)
        item_class[np.asarray(item_of_row, dtype=int)] = t
        return cls(
            sums,
            sums[:, layout],
            k,
            len(hits),
            len(t),
            metric,
            tuple(classes),
            item_class,
        )

    def values(self, counts: np.ndarray, shared=None) -> np.ndarray:
        if self.metric in _MACRO:
            return self._macro(counts, shared)
        k = self.n_classes
        totals = weighted(counts, self.item_sums, shared)
        true, pred, tp = totals[:, :k], totals[:, k : 2 * k], totals[:, 2 * k :]
        if self.metric in PER_CLASS:  # (resamples × classes)
            return PER_CLASS[self.metric](true, pred, tp)
        # f1_micro over the classes the (resampled) targets hold, as macro: a
        # prediction of a class the resample did not draw is no class of its own
        drawn = np.where(true > 0, pred, 0.0).sum(1)
        return _ratio(2 * tp.sum(1), true.sum(1) + drawn)

    def _macro(self, counts: np.ndarray, shared) -> np.ndarray:
        """A per-class ratio averaged over the classes present in the (resampled)
        targets; only the h classes with a right answer are divided."""
        k, h = self.n_classes, self.n_hit
        totals = weighted(counts, self.macro_sums, shared)
        true, pred, tp = totals[:, :h], totals[:, k : k + h], totals[:, k + h :]
        bottom = _MACRO[self.metric](true, pred)
        # the counts are whole numbers and tp <= bottom: where bottom is 0 so is tp,
        # and tp / max(bottom, 1) is 0 there (zero_division=0) and tp / bottom elsewhere
        np.maximum(bottom, 1.0, out=bottom)
        np.divide(tp, bottom, out=bottom)
        present = np.count_nonzero(totals[:, :k], axis=1)
        scale = 2.0 if self.metric == "f1_macro" else 1.0
        with np.errstate(invalid="ignore", divide="ignore"):
            return scale * bottom.sum(axis=1) / present


_MACRO: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    # the denominator of a per-class ratio (a new array: it is divided in place),
    # averaged over the classes present in the (resampled) targets: a class a resample
    # never drew is left out, as scikit-learn leaves out a class it never sees, rather
    # than counted as a zero that drags every resampled macro figure down; a present
    # class with denominator 0 counts 0 (zero_division=0)
    "f1_macro": lambda true, pred: true + pred,
    "precision_macro": lambda true, pred: pred.copy(),
    "recall_macro": lambda true, pred: true.copy(),
    "balanced_accuracy": lambda true, pred: true.copy(),
}
PER_CLASS: dict[str, Callable[..., np.ndarray]] = {
    # scikit-learn's average=None with zero_division=nan: a class nothing was
    # predicted as has no precision, a class the targets lack no recall, so a resample
    # that draws none is left out of the interval rather than counted as a 0
    "precision": lambda true, pred, tp: np.where(pred > 0, _ratio(tp, pred), np.nan),
    "recall": lambda true, pred, tp: np.where(true > 0, _ratio(tp, true), np.nan),
}
"""Metrics with one value per class: a row per target label in `results`."""
CLASSIFICATION = (
    "f1_macro",
    "f1_micro",
    "precision_macro",
    "recall_macro",
    "balanced_accuracy",
    *PER_CLASS,
)


@dataclass
class Corpus:
    """A corpus-level sacrebleu metric (BLEU, chrF): per-segment statistics added up
    over the resampled items, then scored as sacrebleu scores a corpus — the way
    sacrebleu's own paired bootstrap resamples. On sacrebleu's 0-100 scale divided by
    100."""

    item_sums: np.ndarray
    score: Callable[[list], Any]
    n: int

    @classmethod
    def prepare(cls, item_of_row, n_items, metric, hypotheses, references) -> Corpus:
        width = max((len(refs) for refs in references), default=1)
        streams = [
            [refs[i] if i < len(refs) else None for refs in references]
            for i in range(width)
        ]
        segment = np.asarray(
            metric._extract_corpus_statistics(list(hypotheses), streams), dtype=float
        )
        return cls(
            item_sums(item_of_row, n_items, segment),
            metric._compute_score_from_stats,
            len(hypotheses),
        )

    def values(self, counts: np.ndarray, shared=None) -> np.ndarray:
        totals = weighted(counts, self.item_sums)
        return np.array(
            [
                self.score(np.rint(row).astype(int).tolist()).score / 100
                for row in totals
            ]
        )


@dataclass
class Mean:
    """The mean item score (`accuracy`): each item's replications already reduced."""

    item_scores: np.ndarray
    n: int

    @classmethod
    def prepare(cls, item_scores: np.ndarray) -> Mean:
        scores = np.asarray(item_scores, float)
        return cls(scores, int(np.count_nonzero(~np.isnan(scores))))

    def values(self, counts: np.ndarray, shared=None) -> np.ndarray:
        used = ~np.isnan(self.item_scores)
        with np.errstate(all="ignore"):
            return (counts[:, used] @ self.item_scores[used]) / counts[:, used].sum(1)


@dataclass
class UserFigure:
    """A user's `function(scores, answers, targets, metadata) -> float`, called on each
    resample with the drawn items' rows (as many of the arguments as it accepts).

    A resample the function raises on is left out of the interval, as an undefined
    built-in figure is; raising on the data as observed is an error naming it."""

    function: Callable[..., float]
    arity: int
    item_of_row: np.ndarray
    columns: tuple[np.ndarray, ...]
    n: int
    name: str = "user metric"

    def values(self, counts: np.ndarray, shared=None) -> np.ndarray:
        out = np.empty(len(counts))
        for b, row in enumerate(counts):
            try:
                value = _as_float(self.function(*self._arguments(row)))
            except Exception:  # noqa: BLE001 - the user's code: any failure is theirs
                value = None
            out[b] = np.nan if value is None else value
        return out

    def point(self) -> float:
        """The figure on the rows as observed."""
        try:
            value = self.function(*self._arguments(np.ones(self._items())))
        except Exception as exc:  # noqa: BLE001 - reported, naming the metric
            raise ConfigError(
                f"metric {self.name!r} raised {type(exc).__name__}: {exc} on "
                f"{self.n} graded answers; fix the function (a figure it cannot "
                "compute is better returned as nan)"
            ) from exc
        number = _as_float(value)
        if number is None:
            raise ConfigError(
                f"metric {self.name!r} returned {_clipped(value)} "
                f"({type(value).__name__}) on {self.n} graded answers; it must "
                "return a number (nan for a figure it cannot compute)"
            )
        return number

    def _items(self) -> int:
        return int(self.item_of_row.max()) + 1 if len(self.item_of_row) else 0

    def _arguments(self, row: np.ndarray) -> list[list[Any]]:
        take = np.repeat(
            np.arange(len(self.item_of_row)), row[self.item_of_row].astype(int)
        )
        return [column[take].tolist() for column in self.columns[: self.arity]]


def _as_float(value: Any) -> float | None:
    """A number the function returned as a float (numpy's too); None for anything
    else: a string is not a figure, even one that reads as a number."""
    if isinstance(value, (str, bytes)) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _clipped(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


Figure = Classification | Pearson | Spearman | Kendall | Corpus | Mean | UserFigure
