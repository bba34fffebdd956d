"""inspect-ai's scorers by name over stored solutions give exactly inspect's own
verdict.

The reference is a real inspect `eval()` in which a mock model replies with each stored
text and inspect scores it (with its `multiple_choice` solver for `choice`); itemeval's
verdict on the same text, targets and choices must be identical: value, answer and the
float it maps to.
"""

from __future__ import annotations

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import value_to_float
from inspect_ai.solver import generate, multiple_choice

from itemeval.engine.scorers import CATALOGUE
from itemeval.errors import ConfigError
from itemeval.scorers import ScoreContext
from itemeval.scorers.registry import score_many, validate_scorer_params
from tests.helpers import base_config, write_study

REPLIES: list[tuple[str, str | list[str]]] = [
    ("Paris", "Paris"),
    ("paris", "Paris"),
    ("The capital of France is Paris.", "Paris"),
    ("The capital of France is Paris", "Paris"),
    ("PARIS!", "paris"),
    ("I believe the answer is Lyon, not Paris.", "Paris"),
    (
        "Let me think step by step.\nFrance's capital city is Paris.\nANSWER: Paris",
        "Paris",
    ),
    ("ANSWER: 42", "42"),
    ("The result is 42.0", "42"),
    ("It costs $1,234 in total.", "1234"),
    ("The answer is 1,234", "1,234"),
    ("There are 3 apples and 4 pears, so 7 fruit.", "7"),
    ("Seven", "7"),
    ("", "Paris"),
    ("   ", "anything"),
    ("The Eiffel Tower is in the city of Paris, France.", ["Paris", "Paris, France"]),
    ("New York City", ["NYC", "New York City", "New York"]),
    (
        "The theory of relativity was proposed by Albert Einstein in 1905.",
        "Albert Einstein",
    ),
    ("An apple a day keeps the doctor away", "the apple"),
    ("Answer: mitochondria", "Mitochondria"),
    ("**Answer:** 3.14", "3.14"),
    ("x = 5\ny = 10\nx + y = 15", "15"),
    ("60%", "60"),
    ("The word is 'cat'.", "cat"),
    ("yes", "Yes"),
    ("No, that is not correct.", "no"),
]

PARAMS: list[tuple[str, dict]] = [
    ("match", {}),
    ("match", {"location": "exact"}),
    ("match", {"location": "begin", "ignore_case": False}),
    ("match", {"location": "any", "numeric": True}),
    ("match", {"location": "end", "numeric": True}),
    ("includes", {}),
    ("includes", {"ignore_case": False}),
    ("pattern", {"pattern": r"ANSWER:\s*(\w+)"}),
    ("pattern", {"pattern": r"(\d+)", "match_all": True}),
    ("answer", {"pattern": "line"}),
    ("answer", {"pattern": "word"}),
    ("f1", {}),
    ("f1", {"stop_words": ["the", "is"]}),
    ("exact", {}),
]


def _mock(texts: dict[str, str]):
    def reply(input, tools, tool_choice, config):  # noqa: A002 - inspect's callback signature
        prompt = input[-1].text
        key = next(k for k in texts if f"[{k}]" in prompt)
        output = ModelOutput.from_content(model="mockllm/model", content=texts[key])
        output.usage = ModelUsage(
            input_tokens=1, output_tokens=1, total_tokens=2
        )  # no tiktoken offline
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def inspect_verdicts(
    scorer, solver, samples: list[tuple[str, str, str | list[str], list[str] | None]]
) -> dict:
    """{id: Score} from a real eval whose mock model replies with each sample's text."""
    texts = {sample_id: text for sample_id, text, _, _ in samples}
    dataset = MemoryDataset(
        [
            Sample(
                id=sample_id,
                input=f"[{sample_id}] question",
                target=target,
                choices=choices,
            )
            for sample_id, _, target, choices in samples
        ]
    )
    log = eval(
        Task(dataset=dataset, solver=solver, scorer=scorer),
        model=_mock(texts),
        display="none",
        log_dir="logs",
    )[0]
    assert log.status == "success", log.error
    return {sample.id: next(iter(sample.scores.values())) for sample in log.samples}


def stored_answer(answer: str | None, solution: str) -> str | None:
    """itemeval stores inspect's answer, except when it is the whole solution
    (already in the solutions store)."""
    return None if answer == solution else answer


def targets_of(target: str | list[str]) -> tuple[str, ...]:
    return (target,) if isinstance(target, str) else tuple(target)


@pytest.mark.parametrize(
    ("name", "params"), PARAMS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(PARAMS)]
)
def test_text_scorers_give_inspects_own_verdict(name, params):
    samples = [
        (f"r{i}", text, target, None) for i, (text, target) in enumerate(REPLIES)
    ]
    expected = inspect_verdicts(CATALOGUE[name](**params), generate(), samples)
    validated = validate_scorer_params(name, params)
    rows = [
        (text, ScoreContext(targets=targets_of(target), input="question"), sample_id, 1)
        for sample_id, text, target, _ in samples
    ]
    ours = score_many(name, validated, rows)
    to_float = value_to_float()
    for (sample_id, text, target, _), result in zip(samples, ours):
        score = expected[sample_id]
        assert result.score == to_float(score.value), (sample_id, text, target, score)
        assert result.answer == stored_answer(score.answer, text), (sample_id, text)
        assert result.parse_error is None


CHOICES = ["Paris", "Rome", "Madrid", "Berlin"]
CHOICE_REPLIES: list[tuple[str, str | list[str]]] = [
    ("ANSWER: A", "A"),
    ("ANSWER: B", "A"),
    ("Let me think. Paris is the capital of France.\n\nANSWER: A", "A"),
    ("ANSWER: a", "A"),
    ("The answer is A.", "A"),
    ("ANSWER: (C)", "C"),
    ("**ANSWER: D**", "D"),
    ("ANSWER: $B$", "B"),
    ("I am not sure.", "A"),
    ("", "B"),
    ("ANSWER: E", "A"),
    ("ANSWER: A, C", ["A", "C"]),
    ("ANSWER: AC", "AC"),
    ("answer: c.", "C"),
]


@pytest.mark.parametrize("multiple_correct", [False, True])
def test_choice_gives_inspects_own_verdict_after_the_multiple_choice_solver(
    multiple_correct,
):
    samples = [
        (f"c{i}", text, target, CHOICES)
        for i, (text, target) in enumerate(CHOICE_REPLIES)
    ]
    expected = inspect_verdicts(
        CATALOGUE["choice"](),
        multiple_choice(multiple_correct=multiple_correct),
        samples,
    )
    validated = validate_scorer_params("choice", {"multiple_correct": multiple_correct})
    rows = [
        (
            text,
            ScoreContext(
                targets=targets_of(target), choices=tuple(CHOICES), input="question"
            ),
            sample_id,
            1,
        )
        for sample_id, text, target, _ in samples
    ]
    ours = score_many("choice", validated, rows)
    for (sample_id, text, _, _), result in zip(samples, ours):
        score = expected[sample_id]
        expected_triple = (
            value_to_float()(score.value),
            score.value,
            stored_answer(score.answer, text),
        )
        assert (result.score, result.raw, result.answer) == expected_triple, text


def test_multi_scorer_reduces_as_inspect_does():
    from inspect_ai.scorer import includes, match, multi_scorer

    samples = [
        (f"m{i}", text, target, None) for i, (text, target) in enumerate(REPLIES)
    ]
    expected = inspect_verdicts(
        multi_scorer([match(location="exact"), includes(), match()], "mode"),
        generate(),
        samples,
    )
    params = validate_scorer_params(
        "multi_scorer",
        {
            "scorers": [
                {"name": "match", "params": {"location": "exact"}},
                "includes",
                "match",
            ],
            "reducer": "mode",
        },
    )
    ours = score_many(
        "multi_scorer",
        params,
        [
            (text, ScoreContext(targets=targets_of(target)), sid, 1)
            for sid, text, target, _ in samples
        ],
    )
    assert [r.score for r in ours] == [
        value_to_float()(expected[sid].value) for sid, *_ in samples
    ]


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("match", {"location": "middle"}, "'begin', 'end', 'any' or 'exact'"),
        ("match", {"ignorecase": True}, "unknown param 'ignorecase'"),
        ("match", {"ignore_case": "yes"}, "param 'ignore_case'"),
        ("pattern", {}, "param 'pattern' is required"),
        ("answer", {"pattern": "sentence"}, "'letter', 'word' or 'line'"),
        ("f1", {"answer_fn": "str.strip"}, "unknown param 'answer_fn'"),
        ("multi_scorer", {"scorers": []}, "at least one entry"),
        ("multi_scorer", {"scorers": ["numeric"]}, "combines inspect scorers"),
        (
            "multi_scorer",
            {"scorers": ["match"], "reducer": "nonsense"},
            "unknown reducer 'nonsense'",
        ),
        ("multi_scorer", {"reducer": "mode"}, "param 'scorers' is required"),
    ],
)
def test_bad_params_name_the_param_and_the_valid_ones(name, params, message):
    with pytest.raises(ConfigError) as raised:
        validate_scorer_params(name, params)
    assert message in str(raised.value)


def test_defaults_spelled_out_give_the_same_params():
    assert validate_scorer_params("match", {}) == validate_scorer_params(
        "match", {"location": "end", "ignore_case": True}
    )
    assert validate_scorer_params("match", {}) == {
        "location": "end",
        "ignore_case": True,
        "numeric": False,
    }


def test_cached_normalisers_give_inspects_uncached_results():
    """f1 and exact run inspect's normalisers behind caches; every token and text
    must normalise as uncached."""
    from inspect_ai.scorer import _classification

    cached = _classification._normalize_token
    assert hasattr(cached, "cache_info"), (
        "the normaliser is not cached: f1 at 100,000 grades is ~15x slower"
    )
    tokens = [token for text, _ in REPLIES for token in _classification._tokenize(text)]
    tokens += [
        "The",
        "(3.14)",
        "3.14.",
        "1e3",
        "-5",
        "nan",
        "inf",
        "an",
        "A",
        "'cat'.",
        "$1,234",
        "",
        " ",
        "É",
        "ß",
    ]
    for token in tokens + tokens:  # twice: the second pass reads the cache
        assert cached(token) == cached.__wrapped__(token), token
    text = _classification._normalize
    texts = [t for reply, target in REPLIES for t in [reply, *targets_of(target)]]
    for stop_words in (None, ["the", "is"], []):
        for sample in texts + texts:
            assert text(sample, stop_words) == text.__wrapped__(sample, stop_words), (
                sample,
                stop_words,
            )
    assert text("The cat") == text.__wrapped__("The cat")


def test_a_grade_rebuilds_each_items_state_once_across_its_scorer_calls(monkeypatch):
    """The catalogue's scorers share one rebuilt TaskState per item for the calls of
    one grade (the `cache` the grade keeps); without it each call rebuilds its own.
    Verdicts are the same either way."""
    from itemeval.engine import scorers as inspect_scorers

    built: list[str] = []
    real = inspect_scorers._state

    def counting(solution, context, item_id, epoch, *, light_output):
        built.append(item_id)
        return real(solution, context, item_id, epoch, light_output=light_output)

    monkeypatch.setattr(inspect_scorers, "_state", counting)
    rows = [
        (
            text,
            ScoreContext(targets=targets_of(target), input=f"question {i % 5}"),
            f"item{i % 5}",
            1 + i // 5,
        )
        for i, (text, target) in enumerate(REPLIES)
    ]
    names = ["match", "includes", "f1", "exact"]
    alone = {
        name: score_many(name, validate_scorer_params(name, {}), rows) for name in names
    }
    assert len(built) == 5 * len(names)
    built.clear()
    cache: dict = {}
    shared = {
        name: score_many(name, validate_scorer_params(name, {}), rows, cache=cache)
        for name in names
    }
    assert sorted(built) == [f"item{i}" for i in range(5)]
    assert shared == alone


def test_plain_verdicts_share_one_result_per_value_and_keep_any_other_answer(
    monkeypatch,
):
    from inspect_ai.scorer import Score

    from itemeval.engine import verdicts as inspect_verdicts
    from itemeval.engine.verdicts import to_result

    correct = to_result(
        Score(value="C", answer="the reply", explanation="the reply"), "the reply"
    )
    assert correct is to_result(
        Score(value="C", answer="another", explanation="another"), "another"
    )
    assert (correct.score, correct.raw, correct.answer, correct.explanation) == (
        1.0,
        "C",
        None,
        None,
    )
    extracted = to_result(
        Score(value="C", answer="42", explanation="the reply"), "the reply"
    )
    assert extracted is not correct and (
        extracted.score,
        extracted.answer,
        extracted.explanation,
    ) == (1.0, "42", None)
    explained = to_result(Score(value="I", answer="x", explanation="why"), "x")
    assert (
        explained.score,
        explained.answer,
        explained.explanation,
        explained.raw,
    ) == (0.0, None, "why", "I")
    half = to_result(Score(value=0.5, answer="x"), "x")
    assert half is to_result(Score(value=0.5, answer="y"), "y") and (
        half.score,
        half.raw,
    ) == (0.5, "0.5")

    monkeypatch.setattr(inspect_verdicts, "_SHARED_RESULTS", {})
    monkeypatch.setattr(
        inspect_verdicts, "_SHARED_RESULTS_LIMIT", 3
    )  # a user scorer's floats may be any value
    values = [i / 7 for i in range(10)]
    results = [to_result(Score(value=v, answer="x"), "x") for v in values]
    assert [r.score for r in results] == values and [r.raw for r in results] == [
        repr(v) for v in values
    ]
    assert len(inspect_verdicts._SHARED_RESULTS) == 3


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_the_declared_params_are_inspects_own(name):
    """scorers.inspect_params declares each scorer's params so a study loads without
    importing inspect-ai; they must be the ones its signature gives (a new inspect-ai
    that changes one fails here)."""
    from itemeval.scorers.inspect_params import inspect_params
    from itemeval.scorers.signature import params_model

    extra = {"multiple_correct": (bool, False)} if name == "choice" else {}
    built = params_model(name, CATALOGUE[name], extra=extra).model_fields
    declared = inspect_params(name).model_fields
    assert {k: (f.annotation, f.default) for k, f in declared.items()} == {
        k: (f.annotation, f.default) for k, f in built.items()
    }


def test_a_study_naming_inspects_scorers_loads_without_inspect(tmp_path):
    """status, results and export of such a study start without inspect-ai."""
    import subprocess
    import sys

    config = base_config(**{"facets__scorer": ["match", "includes", "f1"]})
    path = write_study(tmp_path, config)
    code = (
        "import sys; from itemeval.study import load_study; "
        f"study = load_study({str(path)!r}, {str(tmp_path)!r}); "
        "print(len(study.grade), 'inspect_ai' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["3", "False"]
