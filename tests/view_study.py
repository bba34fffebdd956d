"""A study whose stores are written directly (no model calls): any text, any scores, any
size, for the view and label tests and the view benchmark."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from itemeval.hashing import text_hash
from itemeval.store import upsert
from itemeval.store.items import write_items
from itemeval.study.load import Study, load_study
from tests.helpers import base_config, write_study

RUBRIC = (
    "Problem: {input}\nReference answer: {target}\nAnswer: {solution}\n"
    "Score 1 if right, else 0."
)


def config(**overrides: Any) -> dict[str, Any]:
    return base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge"}},
            **overrides,
        }
    )


def rows(
    count: int, text: Callable[[int], str] = lambda i: f"What is {i} + 1?"
) -> list[dict]:
    return [
        {
            "qid": f"q{i:05d}",
            "question": text(i),
            "answer": str(i + 1),
            "difficulty": "hard" if i % 3 == 0 else "easy",
        }
        for i in range(count)
    ]


def solution_row(
    study: Study, condition: int, item: str, epoch: int, text: str | None, error=None
) -> dict:
    gen = study.generate[condition]
    return {
        "condition_id": gen.id,
        "condition_slug": gen.slug,
        "item_id": item,
        "epoch": epoch,
        "model": gen.model,
        "solution": text,
        "solution_hash": text_hash(text),
        "error": error,
        "blank": False if text is not None else None,
    }


def grade_row(
    study: Study, grade: int, solution: dict, score: float | None, **extra: Any
) -> dict:
    condition = study.grade[grade]
    return {
        "grade_condition_id": condition.id,
        "grade_condition_slug": condition.slug,
        "gen_condition_id": solution["condition_id"],
        "item_id": solution["item_id"],
        "epoch": solution["epoch"],
        "grade_kind": condition.kind,
        "solution_hash": solution["solution_hash"],
        "score": score,
        "parse_ok": score is not None or extra.get("error") is not None,
        **extra,
    }


def build(
    root: Path,
    items: list[dict],
    answer: Callable[[int, dict], str | None],
    scores: Callable[[int, int, dict, str | None], float | None],
    rubric: str = RUBRIC,
    **overrides: Any,
) -> tuple[Path, Study]:
    """Write the study; `answer(condition, item_row)` is each solution's text (None: an
    error row); `scores(grade, condition, item_row, text)` each grade's score (None:
    a parse failure)."""
    path = write_study(root, config(**overrides), rows=items, rubric=rubric)
    study = load_study(path)
    write_items(study.paths, study.items)
    solutions, grades = [], []
    for condition in range(len(study.generate)):
        for row in items:
            text = answer(condition, row)
            solution = solution_row(
                study,
                condition,
                row["qid"],
                1,
                text,
                error=None if text is not None else "boom",
            )
            solutions.append(solution)
            if text is None:
                continue
            for grade in range(len(study.grade)):
                score = scores(grade, condition, row, text)
                extra = {} if score is not None else {"parse_error": "no_json_object"}
                grades.append(
                    grade_row(
                        study,
                        grade,
                        solution,
                        score,
                        reasoning=f"because {text}"[:200],
                        **extra,
                    )
                )
    upsert(study.paths, "solutions", solutions)
    upsert(study.paths, "grades", grades)
    return path, study
