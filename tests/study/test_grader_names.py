"""A `--grader` name that is neither under `graders:` nor a model id."""

import pytest

from itemeval.errors import ConfigError
from itemeval.study.config import Grader
from itemeval.study.judges import resolve_grader


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("secnd", "did you mean second?"),
        ("markr", "did you mean marker?"),
        ("zzz", None),
    ],
)
def test_an_unknown_grader_is_named_with_the_nearest_one(name, hint):
    graders = {"marker": Grader(model="itemeval/judge"), "second": Grader(model="a/b")}
    with pytest.raises(ConfigError) as raised:
        resolve_grader(name, graders)
    message = str(raised.value)
    assert f"grader {name!r} is not defined under `graders:`" in message
    assert (hint in message) if hint else ("did you mean" not in message)
