"""What `results --judges` and `results --variance` add to the results: read once
from the graded frame, over the items `results` chose."""

from __future__ import annotations

from typing import Any

from ..result_values import clean
from ..study.load import Study
from .cells import graded_frame
from .compute import grade_conditions
from .judges import judge_cards
from .options import ResultsOptions
from .variance import variance_report


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
    if variance:
        sections["variance"] = variance_report(study, frame, grade, seed=options.seed)
    return clean(sections)
