"""`itemeval commit`: finished shards' journal parts merged into the stores."""

from __future__ import annotations

from ..store import dataset_locks
from ..store.items import write_items
from ..store.recovery import locked
from ..study.load import Study
from .manifest import command_line


def commit(study: Study) -> dict[str, int]:
    """Merge every finished shard's journal parts into the stores (idempotent), and
    pin and store the items."""
    paths = study.paths
    with locked(study.paths, " ".join(command_line())) as recovered:
        dataset_locks.pin(
            paths.dataset_locks,
            dataset_locks.read_locks(paths.dataset_locks),
            {d.key: (d.adapter, d.revision) for d in study.datasets},
        )
        write_items(study.paths, study.items)
    return recovered
