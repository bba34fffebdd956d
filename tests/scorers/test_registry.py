"""Verifiable scorers: tables of realistic (solution, target) cases, the registry and
param validation."""

from __future__ import annotations

import pytest

from itemeval.errors import ConfigError
from itemeval.scorers import (
    SCORERS,
    ScoreResult,
    answer_region,
    score_solution,
    validate_scorer_params,
)

REASONING = (
    "Let me work through this step by step.\n"
    "First, 12 apples cost $3.60, so one apple costs $0.30.\n"
    "Then 7 apples cost 7 * 0.30 = 2.10, and with 15% tax that is 2.415.\n"
)

EXACT_MATCH_CASES = [
    ("Paris", "Paris", 1.0, None),
    ("paris", "Paris", 1.0, None),
    ("PARIS.", "Paris", 1.0, None),
    ("  Paris  ", "Paris", 1.0, None),
    ("Paris", "Paris.", 1.0, None),
    ("New   York\tCity", "new york city", 1.0, None),
    ("New\nYork", "New York", 1.0, None),
    ("NewYork", "New York", 0.0, None),
    ("Lyon", "Paris", 0.0, None),
    ("Paris, France", "Paris", 0.0, None),
    (
        "The capital is Paris.",
        "Paris",
        1.0,
        None,
    ),  # the last sentence states the answer
    ("The capital is Paris, I think, but it was Lyon once.", "Paris", 0.0, None),
    ("I think so.\nANSWER: Paris", "Paris", 1.0, None),
    ("I think so.\nanswer: paris.", "Paris", 1.0, None),
    ("Final Answer: Paris", "Paris", 1.0, None),
    ("ANSWER: Lyon\nWait, let me reconsider.\nANSWER: Paris", "Paris", 1.0, None),
    ("ANSWER: Paris\nHmm, no.\nANSWER: Lyon", "Paris", 0.0, None),
    ("**ANSWER:** Paris", "Paris", 1.0, None),
    ("**Answer**: Paris", "Paris", 1.0, None),
    ("ANSWER: **Paris**", "Paris", 1.0, None),
    ("Reasoning here.\n**Answer:**\n\nParis\n", "Paris", 1.0, None),
    ("ANSWER:", "Paris", 0.0, None),
    ("", "Paris", 0.0, None),
    ("Paris", "", None, "empty_target"),
    ("Paris", "   ", None, "empty_target"),
    ("anything", ".", None, "empty_target"),
    ("ANSWER: 3.14", "3.14", 1.0, None),
    ("ANSWER: 3.14", "3.140", 0.0, None),
    ("ANSWER: U.S.", "U.S", 1.0, None),
    ("ANSWER: Straße", "STRASSE", 1.0, None),  # casefold, not lower
]

MULTIPLE_CHOICE_CASES = [
    ("B", "B", 1.0, None),
    ("(b)", "B", 1.0, None),
    ("B) Paris", "B", 1.0, None),
    ("I think it's B", "B", 1.0, None),
    ("**B**", "B", 1.0, None),
    ("Answer: b.", "B", 1.0, None),
    ("b", "B", 1.0, None),
    ("[C]", "C", 1.0, None),
    ("B", "(b)", 1.0, None),
    ("B", "b", 1.0, None),
    ("B", "C", 0.0, None),
    ("(b) Paris is the capital of France.", "B", 1.0, None),
    ("C. 42", "C", 1.0, None),
    ("ANSWER: Option D", "D", 1.0, None),
    ("The options are A, B and C. I pick (C)\nANSWER: C", "C", 1.0, None),
    ("ANSWER: A\nOn reflection that is wrong.\nANSWER: D", "D", 1.0, None),
    ("answer: (a)", "A", 1.0, None),
    (
        "The correct answer is B. A quick check of the others confirms it.",
        "B",
        1.0,
        None,
    ),
    ("A careful reading of the passage gives (c)", "C", 1.0, None),
    ("I'm fairly sure the answer is E.", "E", 1.0, None),
    ("I choose A because the others contradict the text.", "A", 1.0, None),
    ("Option (A) is tempting but wrong; the correct one is B.", "B", 1.0, None),
    ("The U.S. figure matches choice B", "B", 1.0, None),
    ("Reasoning...\n**Answer:**\n\n**D**", "D", 1.0, None),
    ("ANSWER: `C`", "C", 1.0, None),
    ("I am not sure about this one.", "A", None, "no_letter_found"),
    ("the answer is a bit unclear", "A", None, "no_letter_found"),
    ("", "A", None, "no_letter_found"),
    ("ANSWER:", "A", None, "no_letter_found"),
    ("B", "Paris", None, "target_not_letter"),
    ("B", "", None, "target_not_letter"),
    ("B", "AB", None, "target_not_letter"),
    ("B", "B) Paris", None, "target_not_letter"),
]

NUMERIC_CASES = [
    ("42", "42", 1.0, None),
    ("42.", "42", 1.0, None),
    ("The answer is 42.", "42", 1.0, None),
    ("41", "42", 0.0, None),
    ("1,234,567", "1234567", 1.0, None),
    ("The total is $1,234.50.", "1234.5", 1.0, None),
    ("It costs 1,234, which is a lot", "1234", 1.0, None),
    ("-17", "-17", 1.0, None),
    ("\u221217", "-17", 1.0, None),  # unicode minus
    ("The balance is -$5.", "-5", 1.0, None),
    ("x = 3.50", "3.5", 1.0, None),
    ("0.1 + 0.2 = 0.30000000000000004", "0.3", 1.0, None),
    ("1.5e3", "1500", 1.0, None),
    ("1.5 \\times 10^{3}", "1500", 1.0, None),
    ("1.5 × 10^3", "1500", 1.0, None),
    ("3/4", "0.75", 1.0, None),
    ("\\frac{3}{4}", "0.75", 1.0, None),
    ("$\\dfrac{3}{4}$", "3/4", 1.0, None),
    ("-\\frac{1}{2}", "-0.5", 1.0, None),
    ("0.75", "\\frac{3}{4}", 1.0, None),
    ("About 50% of them.", "50", 1.0, None),
    ("50", "50%", 1.0, None),
    ("0.5", "50%", 0.0, None),  # % is dropped, not divided
    (REASONING + "So the answer is 2.415", "2.415", 1.0, None),
    (REASONING + "ANSWER: 2.42", "2.415", 0.0, None),
    (REASONING + "answer: 2.415\nHope that helps with step 3!", "2.415", 1.0, None),
    ("ANSWER: 7\nDouble-checking...\nANSWER: 8", "8", 1.0, None),
    ("So \\boxed{12} is my answer, checked against 13 other cases.", "12", 1.0, None),
    ("First \\boxed{5}, but actually \\boxed{6}.", "6", 1.0, None),
    ("The result is $\\boxed{\\frac{1}{2}}$ by symmetry.", "0.5", 1.0, None),
    ("\\boxed{x = 3, y = 4}", "4", 1.0, None),
    ("\\boxed{1{,}000}", "1000", 1.0, None),
    ("The years 2023-2024", "2024", None, "ambiguous_answer"),
    ("Water, H2O, has 3 atoms", "3", 1.0, None),
    ("1000002", "1000000", 0.0, None),
    (
        "1000001",
        "1000000",
        1.0,
        None,
    ),  # exactly rel 1e-6 apart: the default tolerance accepts it
    ("1e-10", "0", 1.0, None),  # within abs 1e-9
    ("No idea.", "42", None, "no_number_found"),
    ("", "42", None, "no_number_found"),
    ("\\boxed{\\text{none}} though 4 was close", "4", None, "no_number_found"),
    ("42", "forty-two", None, "target_not_numeric"),
    ("42", "", None, "target_not_numeric"),
    # a closed form is a number since issue 50: 42 is not it
    ("42", "\\sqrt{2}", 0.0, None),
    ("1.41421356", "\\sqrt{2}", 1.0, None),
    ("42", "5 cm", None, "target_not_numeric"),
]


def _check(
    result: ScoreResult, expected_score: float | None, expected_error: str | None
) -> None:
    assert (result.score, result.parse_error) == (expected_score, expected_error), (
        result
    )
    assert (result.score is None) == (result.parse_error is not None)


@pytest.mark.parametrize(
    ("solution", "target", "expected_score", "expected_error"), EXACT_MATCH_CASES
)
def test_exact_match(solution, target, expected_score, expected_error):
    _check(
        score_solution("exact_match", None, solution, target),
        expected_score,
        expected_error,
    )


@pytest.mark.parametrize(
    ("solution", "target", "expected_score", "expected_error"), MULTIPLE_CHOICE_CASES
)
def test_multiple_choice(solution, target, expected_score, expected_error):
    _check(
        score_solution("multiple_choice", {}, solution, target),
        expected_score,
        expected_error,
    )


@pytest.mark.parametrize(
    ("solution", "target", "expected_score", "expected_error"), NUMERIC_CASES
)
def test_numeric(solution, target, expected_score, expected_error):
    _check(
        score_solution("numeric", None, solution, target),
        expected_score,
        expected_error,
    )


def test_multiple_choice_stores_the_letter_read():
    assert (
        score_solution("multiple_choice", None, "I think it's (c)", "A").answer == "C"
    )


def test_numeric_stores_the_number_text_read():
    result = score_solution("numeric", None, "so \\boxed{1,234} dollars", "1234")
    assert (result.answer, result.score) == ("1,234", 1.0)


def test_numeric_tolerances_come_from_params():
    assert score_solution("numeric", {"rel_tol": 0.01}, "101", "100").score == 1.0
    assert score_solution("numeric", {"abs_tol": 0.5}, "3.4", "3").score == 1.0
    assert score_solution("numeric", {"abs_tol": 0}, "3.4", "3").score == 0.0


def test_answer_region_reads_the_last_label_line():
    assert answer_region("ANSWER: 1\nANSWER: 2\nthanks") == "2"
    assert answer_region("no label here\n") == "no label here"


def test_score_result_requires_exactly_one_of_score_and_error():
    with pytest.raises(ValueError):
        ScoreResult(score=None, answer=None)
    with pytest.raises(ValueError):
        ScoreResult(score=1.0, answer="x", parse_error="no_number_found")


def test_registry_entries_are_complete():
    assert {"exact_match", "multiple_choice", "numeric"} <= set(SCORERS)
    for spec in SCORERS.values():
        assert callable(spec.fn) and spec.rule_version
        assert spec.params_model.model_config.get("extra") == "forbid"


def test_validate_fills_defaults_so_spelled_out_defaults_are_the_same_condition():
    assert validate_scorer_params("numeric", None) == validate_scorer_params(
        "numeric", {"rel_tol": 1e-6}
    )
    assert validate_scorer_params("numeric", {"abs_tol": 0}) == {
        "rel_tol": 1e-6,
        "abs_tol": 0.0,
    }
    assert validate_scorer_params("exact_match", None) == {}


@pytest.mark.parametrize(
    ("name", "params", "message_parts"),
    [
        (
            "fuzzy",
            None,
            ["unknown scorer 'fuzzy'", "exact_match, multiple_choice, numeric"],
        ),
        (
            "numeric",
            {"tolerance": 0.1},
            ["unknown param 'tolerance'", "rel_tol, abs_tol"],
        ),
        ("numeric", {"rel_tol": -1}, ["param 'rel_tol'", "greater than or equal to 0"]),
        ("numeric", {"rel_tol": "0.1"}, ["param 'rel_tol'", "'0.1'"]),
        ("numeric", {"abs_tol": True}, ["param 'abs_tol'"]),
        ("numeric", {"rel_tol": float("inf")}, ["param 'rel_tol'", "finite"]),
        ("numeric", [0.1], ["params must be a mapping"]),
        (
            "exact_match",
            {"case_sensitive": True},
            ["unknown param 'case_sensitive'", "Allowed params: none"],
        ),
    ],
)
def test_bad_params_are_config_errors_naming_the_param(name, params, message_parts):
    with pytest.raises(ConfigError) as raised:
        validate_scorer_params(name, params)
    assert raised.value.exit_code == 2
    for part in message_parts:
        assert part in str(raised.value)


def test_score_solution_validates_params():
    with pytest.raises(ConfigError):
        score_solution("numeric", {"bogus": 1}, "1", "1")
