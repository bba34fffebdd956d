"""Everything that touches inspect-ai or a provider: tasks, evals, hooks, samples,
inspect's scorers, the response cache, the offline models and durable batches."""
