"""ScoreContext: building one from targets, and that scorers read a context as they
read a target string."""

from __future__ import annotations

import pytest

from itemeval.scorers import (
    SCORERS,
    ScoreContext,
    score_solution,
    validate_scorer_params,
)


@pytest.mark.parametrize(
    ("target", "expected_targets"),
    [
        ("Paris", ("Paris",)),
        ("", ("",)),
        (["Paris", "paris, France"], ("Paris", "paris, France")),
        (("B",), ("B",)),
        ([], ()),
    ],
)
def test_of_takes_one_target_string_or_a_sequence(target, expected_targets):
    assert ScoreContext.of(target).targets == expected_targets


@pytest.mark.parametrize(
    ("context", "expected_target"),
    [
        (ScoreContext(), ""),
        (ScoreContext.of([]), ""),
        (ScoreContext.of("42"), "42"),
        (ScoreContext.of(["42", "42.0"]), "42"),
    ],
)
def test_target_is_the_first_target_or_empty(context, expected_target):
    assert context.target == expected_target


def test_of_passes_the_other_fields_through():
    context = ScoreContext.of(
        "B",
        choices=("Paris", "Lyon"),
        metadata={"subject": "geography"},
        logprobs=[-0.1],
    )
    assert (context.choices, context.metadata["subject"], context.logprobs) == (
        ("Paris", "Lyon"),
        "geography",
        [-0.1],
    )


def test_defaults_are_empty_and_read_only():
    context = ScoreContext()
    assert (
        context.targets,
        context.choices,
        dict(context.metadata),
        context.logprobs,
    ) == ((), (), {}, None)
    with pytest.raises(TypeError):
        context.metadata["subject"] = "x"  # type: ignore[index]


def test_a_context_with_unhashable_metadata_still_hashes():
    assert hash(ScoreContext.of("A", metadata={"tags": ["a"]})) == hash(
        ScoreContext.of("A")
    )


REPLIES = [
    ("exact_match", None, "I think so.\nANSWER: Paris", "Paris"),
    ("exact_match", None, "**Answer**: new  york city.", "New York City"),
    ("exact_match", None, "The capital is Lyon.", "Paris"),
    ("exact_match", None, "Paris", ""),
    ("multiple_choice", None, "Let me compare the options.\nANSWER: (b)", "B"),
    ("multiple_choice", None, "I think it's C, not A.", "A"),
    ("multiple_choice", None, "**Answer:**\n\nB) Paris", "(b)"),
    ("multiple_choice", None, "the answer is a bit unclear", "A"),
    ("multiple_choice", None, "B", "Paris"),
    ("numeric", None, "7 apples cost 7 * 0.30 = 2.10.\nANSWER: $2.10", "2.1"),
    ("numeric", None, "So the total is \\boxed{1,234} dollars.", "1234"),
    ("numeric", {"rel_tol": 0.01}, "roughly 101", "100"),
    ("numeric", None, "It is 50%.", "\\frac{1}{2}"),
    ("numeric", None, "I cannot tell.", "4"),
    ("numeric", None, "42", "forty-two"),
]


@pytest.mark.parametrize(("name", "params", "solution", "target"), REPLIES)
def test_a_scorer_called_with_a_context_agrees_with_score_solution(
    name, params, solution, target
):
    spec = SCORERS[name]
    context = ScoreContext(targets=(target,), metadata={"subject": "any"})
    by_context = spec.fn(solution, context, **validate_scorer_params(name, params))
    assert by_context == score_solution(name, params, solution, target)
    assert by_context == score_solution(name, params, solution, context)
