"""Text-overlap scorers and `reference:`: the libraries' own figures, wired right."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from rapidfuzz.distance import Levenshtein
from rouge_score.rouge_scorer import RougeScorer
from sacrebleu.metrics import BLEU, CHRF

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.scorers import (
    ScoreContext,
    overlap,
    score_solution,
    validate_scorer_params,
)
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study

REPLY = "Let me translate.\nANSWER: The cat is sitting on the mat."
REFERENCES = ["The cat sits on the mat.", "A cat is sitting on the mat."]
ANSWER = "The cat is sitting on the mat."


def _context(targets):
    return ScoreContext.of(targets)


def test_bleu_is_sacrebleus_sentence_bleu_over_every_reference():
    result = score_solution("bleu", None, REPLY, _context(REFERENCES))
    expected = BLEU(effective_order=True).sentence_score(ANSWER, REFERENCES).score
    assert result.score == pytest.approx(expected / 100, abs=1e-12)
    assert result.answer == ANSWER and result.parse_error is None


def test_chrf_and_chrf_plus_plus():
    plain = score_solution("chrf", None, REPLY, _context(REFERENCES))
    plus = score_solution("chrf", {"word_order": 2}, REPLY, _context(REFERENCES))
    assert plain.score == pytest.approx(
        CHRF().sentence_score(ANSWER, REFERENCES).score / 100, abs=1e-12
    )
    assert plus.score == pytest.approx(
        CHRF(word_order=2).sentence_score(ANSWER, REFERENCES).score / 100, abs=1e-12
    )
    assert plain.score != plus.score


@pytest.mark.parametrize("kind", ["rouge1", "rouge2", "rougeL"])
def test_rouge_is_the_best_f_measure_over_references(kind):
    result = score_solution(kind, {"use_stemmer": True}, REPLY, _context(REFERENCES))
    scorer = RougeScorer([kind], use_stemmer=True)
    best = max(scorer.score(ref, ANSWER)[kind].fmeasure for ref in REFERENCES)
    assert result.score == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize(
    "reply, targets, params, expected",
    [
        ("ANSWER: kitten", ["sitting"], None, 1 - 3 / 7),
        ("ANSWER: Kitten", ["kitten", "mitten"], None, 5 / 6),
        ("ANSWER: Kitten", ["kitten"], {"ignore_case": True}, 1.0),
        ("", ["abc"], None, 0.0),
    ],
)
def test_edit_similarity(reply, targets, params, expected):
    result = score_solution("edit_similarity", params, reply, _context(targets))
    assert result.score == pytest.approx(expected, abs=1e-12)
    answer = result.answer
    assert result.score == pytest.approx(
        max(
            Levenshtein.normalized_similarity(
                answer, t, processor=str.casefold if params else None
            )
            for t in targets
        )
    )


def test_read_whole_scores_the_entire_reply():
    whole = score_solution("rouge1", {"read": "whole"}, REPLY, _context(REFERENCES))
    assert whole.answer == REPLY
    answer = score_solution("rouge1", None, REPLY, _context(REFERENCES))
    assert whole.score < answer.score


@pytest.mark.parametrize("name", overlap.TEXT_NAMES)
def test_an_empty_reference_is_a_failure_and_an_empty_answer_scores_zero(name):
    assert score_solution(name, None, "ANSWER: x", _context([""])).parse_error == (
        "empty_target"
    )
    empty = score_solution(name, None, "", _context(["the reference"]))
    assert empty.score == 0.0 and empty.parse_error is None


def test_rule_version_is_the_librarys_version_and_the_answer_readings():
    from importlib.metadata import version

    assert overlap.spec("bleu").rule_version == (
        f"sacrebleu {version('sacrebleu')}, answer 3"
    )
    assert overlap.spec("rougeL").rule_version == (
        f"rouge-score {version('rouge-score')}, answer 3"
    )
    assert overlap.spec("edit_similarity").rule_version.startswith("rapidfuzz ")


def test_bad_params_name_the_allowed_ones():
    with pytest.raises(ConfigError, match="tokenize"):
        validate_scorer_params("bleu", {"tokenizer": "13a"})
    with pytest.raises(ConfigError, match="read"):
        validate_scorer_params("chrf", {"read": "everything"})


def test_a_missing_library_is_a_config_error_with_the_install_hint(monkeypatch):
    from importlib import import_module

    def no_sacrebleu(name):
        if name.startswith("sacrebleu"):
            raise ImportError(name)
        return import_module(name)

    monkeypatch.setattr(overlap, "import_module", no_sacrebleu)
    overlap.spec.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"pip install 'itemeval\[text\]'"):
            overlap.spec("bleu")
    finally:
        overlap.spec.cache_clear()


# ---- reference: another item column as what the scorer compares with -----------

ROWS = [
    {
        "qid": "q1",
        "question": "What is 2 + 3?",
        "answer": "5",
        "alt": "6",
        "difficulty": 1,
    },
    {
        "qid": "q2",
        "question": "What is 4 + 4?",
        "answer": "8",
        "alt": "8",
        "difficulty": 1,
    },
    {
        "qid": "q3",
        "question": "What is 9 + 1?",
        "answer": "10",
        "alt": None,
        "difficulty": 2,
    },
]


def _reference_study(tmp_path, scorer):
    config = base_config(
        facets__scorer=scorer,
        benchmark__mapping={
            "input": "question",
            "target": "answer",
            "id": "qid",
            "metadata": ["difficulty", "alt"],
        },
    )
    return write_study(tmp_path, config, rows=ROWS)


def test_reference_is_part_of_identity_and_absent_reference_keeps_golden_id(tmp_path):
    path = _reference_study(
        tmp_path, ["numeric", {"name": "numeric", "reference": "alt"}]
    )
    plain, referenced = load_study(path).grade
    # the id numeric has without a reference: its payload carries no reference key
    # (rule version 3 since issue 50; version 2 was scorer_numeric--e9b3cba89806)
    assert plain.id == "scorer_numeric--1459e751e1fc"
    assert plain.reference is None and "reference" not in plain.payload
    assert referenced.slug == "scorer_numeric-ref-alt"
    assert referenced.payload["reference"] == "alt" and referenced.id != plain.id


def test_reference_must_be_a_mapped_item_column(tmp_path):
    path = _reference_study(tmp_path, [{"name": "numeric", "reference": "answer2"}])
    with pytest.raises(ConfigError, match=r"facets.scorer\[0\].*'answer2'.*alt"):
        load_study(path)


def test_grading_against_a_reference_column(tmp_path, capsys):
    path = _reference_study(
        tmp_path, ["numeric", {"name": "numeric", "reference": "alt"}]
    )
    assert main(["generate", str(path), "--display", "none"]) == 0
    assert main(["grade", str(path), "--display", "none"]) == 0
    grades = pd.read_parquet(tmp_path / "studies" / "t" / "grades.parquet")
    solutions = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    assert (solutions["solution"].str.contains("ANSWER")).all()
    by = {(row.grade_condition_slug, row.item_id): row for row in grades.itertuples()}
    # arith-good answers correctly: right against the target, wrong against `alt` on q1
    assert by[("scorer_numeric", "q1")].score == 1.0
    assert by[("scorer_numeric-ref-alt", "q1")].score == 0.0
    assert by[("scorer_numeric-ref-alt", "q2")].score == 1.0
    # no reference on q3: the failure numeric reports for an empty target
    assert by[("scorer_numeric-ref-alt", "q3")].parse_error == "target_not_numeric"
    capsys.readouterr()
    assert main(["status", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)
