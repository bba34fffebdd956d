"""Everything that touches inspect-ai or a provider: tasks, evals, hooks, samples,
inspect's scorers, the response cache, the offline models and durable batches.

The installed inspect-ai is checked when the engine first loads (support.py): one
itemeval does not run on is refused here, before anything calls it."""

from . import support

support.require()
