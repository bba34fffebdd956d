"""Durable provider batches (README "Batch mode"): a ledger of every submitted batch
in the study directory, re-attached to by the next run."""

from .context import BatchContext, BatchOutcome
from .executor import execute, is_durable, split, without_held
from .ledger import open_submissions, submissions
from .reserve import hold_open

__all__ = [
    "BatchContext",
    "BatchOutcome",
    "execute",
    "hold_open",
    "is_durable",
    "open_submissions",
    "split",
    "submissions",
    "without_held",
]
