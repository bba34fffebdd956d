"""Pure planning of a stage: which cells run, what they cost, the spend gate and the
cap."""
