"""What a run lends its provider batches, and what they hand back: the batch package
never sees the run itself (README "Batch mode")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import write_failure_message
from ...paths import StudyPaths
from ...plan.budget import SpendCap
from ...plan.pricing import PriceTable
from ...records import Cell, Shard, TaskSpec
from . import ledger
from .client import BatchClient, Status

if TYPE_CHECKING:
    from ..runner import RowSink

DEFAULT_SIZE = 5000
"""Requests per batch when `budget.batch` is `true` (OpenAI takes up to 50,000)."""


@dataclass(frozen=True)
class BatchContext:
    """A run as its batches see it, fixed for the run."""

    paths: StudyPaths
    study: str
    """The study's name, recorded in each batch's metadata at the provider."""
    stage: str
    run_id: str
    shard: Shard | None
    display: str
    prices: PriceTable
    cap: SpendCap | None
    """The run's hard cap: a live counter its calls and its batches share (a batch
    holds its worst case there before it is submitted)."""
    approved_usd: float
    """The ceiling of the estimate the run was approved on."""
    confirm_above_usd: float | None
    yes: bool
    size: int = DEFAULT_SIZE
    """Requests per batch (`budget.batch`)."""
    logprob_tokens: int = 0

    @staticmethod
    def batch_size(setting: bool | int) -> int:
        """Requests per batch of a `budget.batch` setting (`true`: the default)."""
        return DEFAULT_SIZE if setting is True else max(1, int(setting))


@dataclass
class BatchOutcome:
    """What the batches of one run did to it: notes to show, conditions that failed,
    cells still held open, and the manifest's `batch` record."""

    paths: StudyPaths
    notes: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    """Condition id -> why it failed (the first reason given)."""
    held_open: int = 0
    """Planned cells still in batches open at the provider."""
    interrupted: bool = False
    """The run stopped while batches were open."""
    record: dict[str, Any] | None = None
    """The manifest's `batch` entry."""
    failure_reason: str | None = None
    """Why a write failed (the run then ends `failed`)."""

    def fail(self, condition_id: str, reason: str) -> None:
        self.failures.setdefault(condition_id, reason)

    def write_failed(self, error: OSError, path: object = None) -> None:
        """A store write that failed: the run ends `failed`, the message naming the
        path and what to do (the journal keeps the rows)."""
        message = write_failure_message(
            path or error.filename or self.paths.root, error
        )
        self.failure_reason = self.failure_reason or message
        if message not in self.notes:
            self.notes.append(message)


@dataclass
class BatchRun:
    """The batches this run waits on, and what they brought in."""

    context: BatchContext
    outcome: BatchOutcome
    sink: RowSink
    journaled: Callable[[dict[str, Any]], None]
    waiting: list[ledger.Submission] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)
    statuses: dict[str, Status] = field(default_factory=dict)
    saving_usd: float = 0.0
    submitted: int = 0
    collected: int = 0
    stopped: bool = False
    sent: set[str] = field(default_factory=set)
    """Custom ids submitted in this run: none goes twice in one run."""
    reserved: dict[str, float] = field(default_factory=dict)
    """The worst case the spend cap holds for each open batch, by submission id."""
    clients: dict[str, BatchClient] = field(default_factory=dict)
    cells: dict[str, tuple[TaskSpec, Cell]] = field(default_factory=dict)
    """The cells this run planned, by custom id: what a reply is cached under."""
    priced: frozenset[str] = frozenset()
    """The planned cells its estimate priced: those no open batch held then."""
    unanswered: dict[str, str] = field(default_factory=dict)
    """Requests of batches that ended without answering them, with how each ended."""
    unapproved: set[str] = field(default_factory=set)
    """Of those, the ones not submitted again: the approved estimate left them out."""
    extra_usd: float = 0.0
    """The worst case of unpriced cells submitted again within the approval."""
    approved: set[str] = field(default_factory=set)
    """Those cells, counted in `extra_usd` once however often they wait (pace.py)."""

    @property
    def paths(self) -> StudyPaths:
        return self.context.paths

    def client(self, model: str) -> BatchClient:
        if model not in self.clients:
            self.clients[model] = BatchClient(model)
        return self.clients[model]
