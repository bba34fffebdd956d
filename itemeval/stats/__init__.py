"""Pure statistics over arrays: intervals, reducers, paired tests, agreement, power,
PPI, sequential tests, item analysis and the item bootstrap."""
