"""The careful scorers' tables graded end to end: stored replies through `itemeval
grade` read as the scorers read them one by one (issue 50)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.paths import StudyPaths
from itemeval.scorers import ScoreContext, score_solution
from itemeval.store import read_store, upsert
from tests.helpers import base_config, write_study
from tests.scorers.cases_held_out_50 import HELD_OUT
from tests.scorers.cases_json_and_option_text import MULTIPLE_CHOICE
from tests.scorers.cases_locales_and_latex import NUMERIC
from tests.scorers.cases_sentences_and_folding import EXACT_MATCH


def _sample(cases: list, every: int) -> list[tuple[str, str, object, list | None]]:
    """Every `every`-th case as (reply, target, verdict, choices)."""
    return [
        (reply, target, human, rest[0] if rest else None)
        for _, reply, target, human, *rest in cases[::every]
    ]


def _held_out(scorer: str, every: int) -> list[tuple[str, str, object, list | None]]:
    rows = [row for row in HELD_OUT if row["scorer"] == scorer][::every]
    return [(r["reply"], r["target"], r["verdict"], r.get("choices")) for r in rows]


TABLES = {
    "numeric": _sample(NUMERIC, 7) + _held_out("numeric", 9),
    "multiple_choice": [c for c in _sample(MULTIPLE_CHOICE, 1) if c[3]][::2]
    + [c for c in _held_out("multiple_choice", 5) if c[3]],
    "exact_match": _sample(EXACT_MATCH, 6) + _held_out("exact_match", 7),
}


def _study(root: Path, scorer: str, cases: list) -> Path:
    rows = [
        {
            "qid": f"q{index}",
            "question": f"Question {index}",
            "answer": target,
            **({"options": choices} if scorer == "multiple_choice" else {}),
        }
        for index, (_, target, _, choices) in enumerate(cases)
    ]
    mapping = {"input": "question", "target": "answer", "id": "qid"}
    if scorer == "multiple_choice":
        mapping["choices"] = "options"
    config = base_config(
        solvers__models=["itemeval/echo"],
        facets__scorer=[scorer],
        benchmark__mapping=mapping,
    )
    return write_study(root, config, rows=rows, prompt="{input}")


def _store_replies(root: Path, replies: dict[str, str]) -> None:
    """Replace the stored solutions' texts, as if the model had written these."""
    paths = StudyPaths(root / "studies" / "t")
    stored = read_store(paths, "solutions").to_pylist()
    upsert(
        paths,
        "solutions",
        [{**row, "solution": replies[row["item_id"]]} for row in stored],
    )


@pytest.mark.parametrize("scorer", sorted(TABLES))
def test_grade_reads_stored_replies_as_the_scorer_does(tmp_path, capsys, scorer):
    cases = TABLES[scorer]
    assert len(cases) >= 30
    path = _study(tmp_path, scorer, cases)
    assert main(["generate", str(path), "--yes", "--display", "none"]) == 0
    _store_replies(tmp_path, {f"q{i}": case[0] for i, case in enumerate(cases)})
    assert main(["grade", str(path), "--yes", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["rows"] == len(cases)
    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    by_item = grades.set_index("item_id")
    for index, (reply, target, _, choices) in enumerate(cases):
        context = ScoreContext.of(
            target, choices=tuple(choices or ()), input=f"Question {index}"
        )
        alone = score_solution(scorer, None, reply, context)
        row = by_item.loc[f"q{index}"]
        score = None if pd.isna(row["score"]) else row["score"]
        error = None if pd.isna(row["parse_error"]) else row["parse_error"]
        assert (score, error) == (
            alone.score,
            alone.parse_error,
        ), reply
