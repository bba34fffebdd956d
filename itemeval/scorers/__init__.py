"""Verifiable scorers: pure functions that grade a solution's text against what is
known about its item."""

from .answer import answer_region, find_answer
from .base import ScoreContext, ScoreResult
from .choice import multiple_choice, read_choice
from .numeric import numeric, read_final_number, read_target_number
from .registry import SCORERS, ScorerSpec, score_solution, validate_scorer_params
from .text import exact_match

__all__ = [
    "SCORERS",
    "ScoreContext",
    "ScoreResult",
    "ScorerSpec",
    "answer_region",
    "find_answer",
    "exact_match",
    "multiple_choice",
    "numeric",
    "read_choice",
    "read_final_number",
    "read_target_number",
    "score_solution",
    "validate_scorer_params",
]
