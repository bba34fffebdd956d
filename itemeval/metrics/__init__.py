"""Global metrics beyond the mean: classification, correlation, corpus and user
metrics over a cell's answers, each with an item-bootstrap interval."""

from .cells import MetricOptions, study_metrics
from .registry import KINDS, PlannedMetric, plan_metrics

__all__ = ["KINDS", "MetricOptions", "PlannedMetric", "plan_metrics", "study_metrics"]
