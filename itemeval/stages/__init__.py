"""The stages that run and write: a run's lifecycle, generate, grade and its kinds,
estimate, launch and commit."""
