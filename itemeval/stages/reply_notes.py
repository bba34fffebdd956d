"""Warnings read off the replies a generate run stored."""

from __future__ import annotations

from ..paths import StudyPaths
from ..records import GenerateCondition
from ..store import read_store

SAME_REPLY_ITEMS = 2
"""A condition whose replies to this many items or more are all one text is said to
answer everything alike (two items answered in one text are already worth a look:
a new user's own word problems, 2 of them, all got the offline models' refusal)."""


def same_reply_notes(
    paths: StudyPaths, conditions: list[GenerateCondition]
) -> list[str]:
    """A warning per condition whose every stored reply is the same text: a prompt
    that never reaches the model, or a model that cannot read these items (the
    offline models answer "What is A op B?" items only)."""
    stored = read_store(
        paths,
        "solutions",
        ["condition_id", "item_id", "solution", "solution_hash"],
        where={"condition_id": [c.id for c in conditions]},
    ).to_pandas()
    stored = stored[stored["solution_hash"].notna()]
    slugs = {c.id: c.slug for c in conditions}
    alike: dict[str, list[str]] = {}
    for condition_id, rows in stored.groupby("condition_id", sort=True):
        one = rows["solution_hash"].nunique() == 1
        if one and rows["item_id"].nunique() >= SAME_REPLY_ITEMS:
            text = " ".join(str(rows["solution"].iloc[0]).split())
            alike.setdefault(text, []).append(slugs[condition_id])
    notes = []
    for text, names in alike.items():
        shown = text if len(text) <= 60 else text[:57] + "..."
        notes.append(
            f"{', '.join(names)}: every reply is the same text ({shown!r}): check "
            "that the prompt reaches the model and that the model can answer these "
            'items (the itemeval/* offline models answer only "What is A op B?" '
            "items)"
        )
    return notes
