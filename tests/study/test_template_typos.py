"""A template missing a required placeholder is told the misspelt one it holds."""

import pytest

from itemeval.errors import ConfigError
from itemeval.records import Template
from itemeval.study.prompts import RUBRIC_FIELDS, check_template


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("Q: {input}\nA: {solutoin}", "it has {solutoin}: a misspelling?"),
        ("Q: {input}\nA: {answer}", None),  # nothing close: no guess
    ],
)
def test_a_missing_placeholder_names_the_misspelling(text, hint):
    rubric = Template("bad", "rubric", text, "h", "local", "rubrics/bad.md")
    with pytest.raises(ConfigError) as raised:
        check_template(rubric, RUBRIC_FIELDS, field="facets.rubric[0]")
    message = str(raised.value)
    assert "must contain {solution}" in message
    assert (hint in message) if hint else ("misspelling" not in message)
