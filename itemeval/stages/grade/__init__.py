"""Stage 2 and its kinds: verifiable scorers, judges and model-graded scorers, cascades
and pairwise judges."""
