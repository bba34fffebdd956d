"""Pure statistics over arrays: intervals, reducers, paired tests, agreement, power,
PPI, sequential tests, item analysis, the item bootstrap, a judge's reliability and
self-preference, variance components (G-study) and length control."""
