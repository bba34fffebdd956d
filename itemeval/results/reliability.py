"""What `results --judges` and `results --variance` add to the results: read once
from the graded frame, over the items `results` chose."""

from __future__ import annotations

from typing import Any

from ..result_values import clean
from ..study.load import Study
from .cells import graded_frame
from .compute import grade_conditions
from .declared import exploratory
from .judges import judge_cards
from .options import ResultsOptions
from .pairwise import pairwise_conditions, results_lists
from .variance import variance_report


def _pairwise_cards(study: Study, seed: int) -> list[dict[str, Any]]:
    """A pairwise judge's card: how often its verdict flipped when the two answers
    swapped places (measured by every pairwise grade run), over its pairs."""
    conditions = {c.id: c for c in pairwise_conditions(study)}
    if not conditions:
        return []
    pairs, _ = results_lists(study, seed=seed)
    cards = []
    for grade_id, condition in conditions.items():
        mine = [row for row in pairs if row["grade_condition_id"] == grade_id]
        swapped = sum(row["both_orders"] or 0 for row in mine)
        flips = sum((row["flip_rate"] or 0) * (row["both_orders"] or 0) for row in mine)
        cards.append(
            {
                "grade_condition_id": grade_id,
                "slug": condition.slug,
                "judge": condition.grader_model,
                "kind": "pairwise",
                "both_orders": swapped,
                "position_flip_rate": flips / swapped if swapped else None,
            }
        )
    return cards


def reliability_sections(
    study: Study, options: ResultsOptions, *, judges: bool, variance: bool
) -> dict[str, Any]:
    """`judges` (a card per judge) and `variance` (the G-study), those asked for."""
    if not (judges or variance):
        return {}
    grade = grade_conditions(study)
    frame = graded_frame(study, grade, all_draws=True)
    if options.ids:
        frame = frame[frame["item_id"].isin(options.ids)]
    sections: dict[str, Any] = {}
    if judges:
        sections["judges"] = judge_cards(
            study,
            frame,
            grade,
            threshold=options.threshold,
            seed=options.seed,
            families=study.config.families,
        )
        sections["judges"] += _pairwise_cards(study, options.seed)
    if variance:
        sections["variance"] = variance_report(study, frame, grade, seed=options.seed)
    return exploratory(clean(sections))
