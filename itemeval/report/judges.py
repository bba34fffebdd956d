"""The report's section on how far its judges can be trusted: the card `results
--judges` prints, where a judge has draws or judges of several families meet."""

from __future__ import annotations

from typing import Any

from ..records import GradeCondition
from ..results.cells import graded_frame
from ..results.judges import judge_cards, measurable
from ..study.load import Study
from .html import html_table, num

INTRO = (
    '<p class="muted">Each judge graded the same answers more than once (its draws): '
    "ICC and κ say how far it agrees with itself (1: always the same; an ICC under "
    "0.75 marks its leads in the headline), flips the share of answers whose verdict "
    "changed between draws; leniency is its mean score minus people's where they "
    "labelled; self-preference how much more it scores its own family's answers than "
    "other judges do. Intervals are 95 % over items.</p>"
)


def judges_section(study: Study, grade: list[GradeCondition]) -> str | None:
    families = study.config.families
    if not measurable(grade, families):
        return None
    frame = graded_frame(study, grade, all_draws=True)
    cards = judge_cards(study, frame, grade, families=families)
    headers = ["judge", "model", "answers", "draws", "ICC", "κ", "flips"]
    rows = [_row(card) for card in cards]
    return (
        "<h2>How far the judges can be trusted</h2>"
        + INTRO
        + html_table([*headers, "leniency", "self-preference"], rows, left=2)
    )


def _row(card: dict[str, Any]) -> list[Any]:
    preferred = card.get("self_preference") or {}
    return [
        card["slug"],
        card["judge"],
        card["n"],
        card["draws"],
        _with_interval(card, "icc"),
        _with_interval(card, "kappa"),
        _with_interval(card, "flip_rate"),
        _with_interval(card, "leniency") if "leniency" in card else "–",
        (
            f"{num(preferred.get('estimate'))} (Holm p {num(preferred.get('p_holm'))})"
            if preferred
            else "–"
        ),
    ]


def _with_interval(card: dict[str, Any], key: str) -> str:
    value = card.get(key)
    if value is None:
        return "–"
    low, high = card.get(f"{key}_ci_low"), card.get(f"{key}_ci_high")
    return f"{num(value)} [{num(low)}, {num(high)}]"
