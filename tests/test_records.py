"""The nouns: a grade condition's kind and models are asked, not parsed."""

import pytest

from itemeval.records import GradeCondition
from itemeval.scorers.registry import SCORERS, is_probability


@pytest.mark.parametrize(
    ("kind", "grader_model", "asked", "models"),
    [
        ("verifiable", None, "is_verifiable", ()),
        ("judge", "openai/gpt-4o-mini", "is_judge", ("openai/gpt-4o-mini",)),
        (
            "model_graded",
            "openai/a,anthropic/b",
            "is_model_graded",
            ("openai/a", "anthropic/b"),
        ),  # noqa: E501
        ("pairwise", "itemeval/judge", "is_pairwise", ("itemeval/judge",)),
        ("cascade", "itemeval/judge", "is_cascade", ("itemeval/judge",)),
    ],
)
def test_a_condition_says_what_kind_it_is_and_which_models_it_calls(
    kind, grader_model, asked, models
):
    condition = GradeCondition("id", "slug", kind, {}, grader_model=grader_model)
    flags = (
        "is_verifiable",
        "is_judge",
        "is_model_graded",
        "is_pairwise",
        "is_cascade",
    )
    assert {flag: getattr(condition, flag) for flag in flags} == {
        flag: flag == asked for flag in flags
    }
    assert condition.models == models


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("risk", True),
        ("numeric_risk", True),
        ("risk_scorer", True),  # cruijff_kit's alias is the same scorer
        ("numeric", False),
        ("exact_match", False),
        ("match", False),  # inspect's
        ("mymod:score", False),  # a user scorer
        (None, False),
    ],
)
def test_the_registry_alone_says_which_scorers_report_a_probability(name, expected):
    assert is_probability(name) is expected


def test_every_probability_family_scorer_is_a_probability_scorer():
    family = {n for n, spec in SCORERS.items() if spec.family == "probability"}
    assert (
        family
        == {n for n in SCORERS if is_probability(n)}
        == {
            "risk",
            "numeric_risk",
        }
    )
