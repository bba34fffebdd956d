"""Each grade's verdict is the score of its sample in the grade run's `.eval` log
(what `inspect view` shows), equal to grades.parquet."""

from __future__ import annotations

import math

import pandas as pd
from inspect_ai.log import read_eval_log

from itemeval.cli import main
from tests.helpers import base_config, write_study


def _log_scores(study_dir, log_files) -> dict[str, object]:
    """sample id -> its `verdict` score value (None: the sample has none); a row's
    log_file is relative to its study's folder."""
    scores = {}
    for log_file in sorted(set(log_files)):
        for sample in read_eval_log(str(study_dir / log_file)).samples or []:
            score = (sample.scores or {}).get("verdict")
            scores[str(sample.id)] = None if score is None else score.value
    return scores


def test_a_judges_verdicts_are_the_scores_of_its_grade_log(tmp_path, monkeypatch):
    config = base_config(
        **{
            "cache": False,
            "facets__replications": 2,
            "facets__grader": ["k"],
            "facets__rubric": ["r"],
            "facets__scorer": None,
            "graders": {"k": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(tmp_path, config)
    assert main(["generate", str(path), "--yes"]) == 0
    # some replies give no verdict: their samples carry no score
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0.4")
    assert main(["grade", str(path), "--yes"]) == 0
    study_dir = tmp_path / "studies" / "t"
    grades = pd.read_parquet(study_dir / "grades.parquet")
    judged = grades[grades["grader_name"] == "k"]
    assert len(judged) == 8 and judged["parse_ok"].any()
    assert not judged["parse_ok"].all()  # both kinds are compared below
    scores = _log_scores(study_dir, judged["log_file"])
    for row in judged.itertuples():
        sample_id = f"{row.gen_condition_id}/{row.item_id}#{row.epoch}"
        assert sample_id in scores, sample_id
        if row.parse_ok:
            assert scores[sample_id] == row.score, row
        else:
            assert scores[sample_id] is None, row
            assert row.score is None or math.isnan(row.score)


def test_a_generate_log_has_no_verdict_scores(tmp_path):
    path = write_study(tmp_path, base_config(**{"cache": False}))
    assert main(["generate", str(path), "--yes"]) == 0
    study_dir = tmp_path / "studies" / "t"
    solutions = pd.read_parquet(study_dir / "solutions.parquet")
    assert set(_log_scores(study_dir, solutions["log_file"]).values()) == {None}


def test_a_model_graded_scorers_verdicts_are_the_scores_of_its_grade_log(tmp_path):
    qa = {"name": "model_graded_qa", "params": {"model": "itemeval/judge"}}
    config = base_config(**{"cache": False, "facets__scorer": ["numeric", qa]})
    path = write_study(tmp_path, config)
    assert main(["generate", str(path), "--yes"]) == 0
    assert main(["grade", str(path), "--yes"]) == 0
    study_dir = tmp_path / "studies" / "t"
    grades = pd.read_parquet(study_dir / "grades.parquet")
    graded = grades[grades["grade_kind"] == "model_graded"]
    assert len(graded) == 4 and graded["score"].notna().all()
    scores = _log_scores(study_dir, graded["log_file"])
    for row in graded.itertuples():
        sample_id = f"{row.gen_condition_id}/{row.item_id}#{row.epoch}"
        assert scores[sample_id] == row.score, row
    # a verifiable scorer makes no call: no log
    assert grades[grades["grade_kind"] == "verifiable"]["log_file"].isna().all()
