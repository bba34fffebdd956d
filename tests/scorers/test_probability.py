"""Logprobs requested at generate, stored per solution, and read by the probability
scorers (risk, numeric_risk)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.scorers import ScoreContext
from itemeval.scorers.probability import option_probs, read_probability
from itemeval.scorers.registry import score_many, validate_scorer_params
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer

CLAIMS = [
    {"qid": "c1", "question": "Is 17 * 23 greater than 400?", "label": "0"},
    {"qid": "c2", "question": "Is 12 + 30 equal to 42?", "label": "1"},
    {"qid": "c3", "question": "Is 81 / 9 less than 10?", "label": "1"},
    {"qid": "c4", "question": "Is 100 - 58 at least 50?", "label": "0"},
]
PROMPT = "{input} Reply with 1 if yes and 0 if no, nothing else."


def claims_study(
    root: Path, *, model: str = "itemeval/arith-good", scorer=None, **solvers
) -> Path:
    config = base_config(
        solvers__models=[model],
        solvers__temperature=0.0,
        solvers__max_tokens=16,
        facets__scorer=scorer
        if scorer is not None
        else [
            "risk",
            "numeric_risk",
            {"name": "match", "params": {"location": "exact"}},
        ],
        benchmark__mapping={"input": "question", "target": "label", "id": "qid"},
        **{f"solvers__{key}": value for key, value in solvers.items()},
    )
    return write_study(root, config, rows=CLAIMS, prompt=PROMPT)


def run(capsys, *args: str) -> dict:
    code = main([*args, "--json", "--yes"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def stored(root: Path, store: str) -> pd.DataFrame:
    return pd.read_parquet(root / "studies" / "t" / f"{store}.parquet")


def test_offline_logprobs_are_stored_and_risk_reads_them(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ITEMEVAL_LOGPROB_TOKENS", "3")
    path = claims_study(tmp_path, logprobs=True, top_logprobs=5)
    run(capsys, "generate", str(path))
    solutions = stored(tmp_path, "solutions").set_index("item_id")
    assert (
        solutions["logprobs_requested"].all() and (solutions["top_logprobs"] == 5).all()
    )
    assert (
        solutions["effective_logprobs_requested"].all()
        and (solutions["effective_top_logprobs"] == 5).all()
    )
    for item_id, row in solutions.iterrows():
        tokens = list(row["logprobs"])
        assert 1 <= len(tokens) <= 3 and tokens[0]["token"] == row["solution"] in (
            "0",
            "1",
        )
        top = list(tokens[0]["top"])
        assert len(top) == 5 and {t["token"] for t in top[:2]} == {"0", "1"}
        assert math.isclose(top[0]["logprob"], tokens[0]["logprob"])
    run(capsys, "grade", str(path))
    grades = stored(tmp_path, "grades")
    risk = grades[grades["scorer"] == "risk"].set_index("item_id")
    assert risk["parse_ok"].all()
    for item_id, row in risk.iterrows():
        meta = json.loads(row["score_metadata"])
        assert set(meta["option_probs"]) == {"0", "1"} and math.isclose(
            sum(meta["option_probs"].values()), 1.0
        )
        assert meta["risk_score"] == meta["option_probs"]["1"]
        said = solutions.loc[item_id, "solution"]
        assert row["answer"] == said and row["score"] == float(
            said == CLAIMS[int(item_id[1]) - 1]["label"]
        )
    numeric = grades[grades["scorer"] == "numeric_risk"].set_index("item_id")
    assert numeric["parse_ok"].all() and set(numeric["answer"]) <= {"0", "1"}


def test_a_risk_scorer_without_logprobs_requested_is_a_config_error_naming_the_setting(
    tmp_path, capsys
):
    path = claims_study(tmp_path, scorer=["risk"])
    assert main(["status", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        "logprobs: true" in err
        and "top_logprobs" in err
        and "arith-good_p_default" in err
    )


def test_top_logprobs_without_logprobs_is_a_config_error(tmp_path, capsys):
    path = claims_study(tmp_path, scorer=["numeric_risk"], top_logprobs=5)
    assert main(["status", str(path)]) == 2
    assert "top_logprobs needs logprobs: true" in capsys.readouterr().err


def test_logprobs_are_part_of_the_condition_id(tmp_path, capsys):
    ids = []
    for settings in (
        {},
        {"logprobs": True},
        {"logprobs": True, "top_logprobs": 5},
        {"logprobs": True, "top_logprobs": 6},
    ):
        path = claims_study(
            tmp_path / str(len(ids)), scorer=["numeric_risk"], **settings
        )
        assert main(["status", str(path), "--json"]) == 0
        ids.append(json.loads(capsys.readouterr().out)["generate"][0]["condition_id"])
    assert len(set(ids)) == 4


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_a_bad_logprob_token_count_exits_2_before_anything_is_written(
    tmp_path, capsys, monkeypatch, value
):
    monkeypatch.setenv("ITEMEVAL_LOGPROB_TOKENS", value)
    path = claims_study(tmp_path, logprobs=True, top_logprobs=5)
    assert main(["generate", str(path), "--yes"]) == 2
    assert "ITEMEVAL_LOGPROB_TOKENS" in capsys.readouterr().err
    assert not (tmp_path / "studies" / "t" / "solutions.parquet").exists()


class IgnoringServer(OpenAIServer):
    """A provider that accepts the logprobs request and sends none back."""

    def _completion(self, body):
        return super()._completion({**body, "logprobs": False})


@pytest.mark.parametrize(
    ("server_type", "has_logprobs"), [(OpenAIServer, True), (IgnoringServer, False)]
)
def test_the_openai_sdk_path_carries_logprobs_from_the_wire(
    tmp_path, capsys, monkeypatch, server_type, has_logprobs
):
    from inspect_ai.model import _model

    with server_type() as server:
        for key, value in server.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        path = claims_study(
            tmp_path,
            model="openai-api/local/claims",
            scorer=["risk"],
            logprobs=True,
            top_logprobs=4,
        )
        run(capsys, "generate", str(path))
        requests = server.requests
    _model._models.clear()
    assert requests and all(
        r["logprobs"] is True and r["top_logprobs"] == 4 for r in requests
    )
    run(capsys, "grade", str(path))
    solutions = stored(tmp_path, "solutions").set_index("item_id")
    grades = stored(tmp_path, "grades").set_index("item_id")
    if has_logprobs:
        first = list(solutions.loc["c2", "logprobs"])[0]
        assert first["token"] == "1" and math.isclose(math.exp(first["logprob"]), 0.9)
        assert [t["token"] for t in first["top"]][:2] == ["1", "0"] and len(
            first["top"]
        ) == 4
        assert (
            grades["parse_ok"].all() and (grades["score"] == 1.0).all()
        )  # the server always answers right
    else:
        assert solutions["logprobs"].isna().all()
        assert (
            set(grades["parse_error"]) == {"no_logprobs"}
            and grades["score"].isna().all()
        )


def lp(token: str, p: float, top: list[tuple[str, float]] | None = None) -> dict:
    return {
        "token": token,
        "logprob": math.log(p),
        "top": [{"token": t, "logprob": math.log(q)} for t, q in top or []],
    }


@pytest.mark.parametrize(
    ("first", "options", "expected"),
    [
        (
            lp("1", 0.8, [("1", 0.8), ("0", 0.15), ("2", 0.05)]),
            ["0", "1"],
            {"0": 0.15 / 0.95, "1": 0.8 / 0.95},
        ),
        (
            lp(" 1", 0.6, [(" 1", 0.6), ("1", 0.2), (" 0", 0.1)]),
            ["0", "1"],
            {"0": 0.1 / 0.9, "1": 0.8 / 0.9},
        ),
        (
            lp("B", 0.7, [("B", 0.7), ("A", 0.2), ("C", 0.1)]),
            ["A", "B", "C", "D"],
            {"A": 0.2, "B": 0.7, "C": 0.1, "D": 0.0},
        ),
        (
            lp("1", 0.9),
            ["0", "1"],
            {"0": 0.0, "1": 1.0},
        ),  # no alternatives sent: the token alone
        (lp("yes", 0.9, [("yes", 0.9), ("no", 0.1)]), ["0", "1"], None),
    ],
)
def test_option_probs_renormalise_over_the_option_tokens(first, options, expected):
    probs = option_probs(first, options)
    if expected is None:
        assert probs is None
        return
    assert probs.keys() == expected.keys()
    assert all(math.isclose(probs[k], expected[k]) for k in expected)


RISK_CASES = [
    # (logprobs, target, option_tokens, score, parse_error, risk_score)
    ([lp("1", 0.8, [("1", 0.8), ("0", 0.2)])], "1", ["0", "1"], 1.0, None, 0.8),
    ([lp("1", 0.8, [("1", 0.8), ("0", 0.2)])], "0", ["0", "1"], 0.0, None, 0.8),
    ([lp("0", 0.55, [("0", 0.55), ("1", 0.45)])], "0", ["0", "1"], 1.0, None, 0.45),
    (
        [lp("C", 0.5, [("C", 0.5), ("A", 0.3)])],
        "C",
        ["A", "B", "C", "D"],
        1.0,
        None,
        None,
    ),
    (
        [lp("Yes", 0.9, [("Yes", 0.9), ("No", 0.1)])],
        "1",
        ["0", "1"],
        None,
        "option_token_missing",
        None,
    ),
    (None, "1", ["0", "1"], None, "no_logprobs", None),
    ([], "1", ["0", "1"], None, "no_logprobs", None),
]


@pytest.mark.parametrize(
    ("logprobs", "target", "tokens", "score", "error", "risk_score"), RISK_CASES
)
def test_risk_table(logprobs, target, tokens, score, error, risk_score):
    params = validate_scorer_params("risk", {"option_tokens": tokens})
    result = score_many(
        "risk",
        params,
        [("", ScoreContext(targets=(target,), logprobs=logprobs), "i", 1)],
    )[0]
    assert (result.score, result.parse_error) == (score, error)
    if error is None:
        assert result.metadata["risk_score"] == (
            None if risk_score is None else pytest.approx(risk_score)
        )
    elif error == "option_token_missing":
        assert "Yes" in result.explanation and "'0'" in result.explanation


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.73", 0.73),
        (".73", 0.73),
        ("73%", 0.73),
        ("The probability is 0.2.", 0.2),
        ("ANSWER: 1", 1.0),
        ("0", 0.0),
        ("Probability: 1.5", None),
        ("about 250%", None),
        ("no idea", None),
        ("I'd say 0.3, maybe 0.4", 0.4),
    ],
)
def test_read_probability(text, value):
    assert read_probability(text) == (None if value is None else pytest.approx(value))


@pytest.mark.parametrize(
    ("text", "target", "labels", "score", "answer", "error"),
    [
        ("0.73", "1", ["0", "1"], 1.0, "1", None),
        ("0.73", "0", ["0", "1"], 0.0, "1", None),
        ("0.5", "1", ["0", "1"], 1.0, "1", None),  # the threshold counts as positive
        ("0.2", "no", ["no", "yes"], 1.0, "no", None),
        ("maybe", "1", ["0", "1"], None, None, "not_a_probability"),
    ],
)
def test_numeric_risk_table(text, target, labels, score, answer, error):
    params = validate_scorer_params("numeric_risk", {"labels": labels})
    result = score_many(
        "numeric_risk", params, [(text, ScoreContext(targets=(target,)), "i", 1)]
    )[0]
    assert (result.score, result.answer, result.parse_error) == (score, answer, error)
    if error is None:
        assert math.isclose(
            result.metadata["option_probs"][labels[-1]], result.metadata["risk_score"]
        )


def test_cruijff_names_are_aliases_with_the_same_condition(tmp_path, capsys):
    ids = []
    for name in ("numeric_risk", "numeric_risk_scorer"):
        path = claims_study(
            tmp_path / name, scorer=[{"name": name, "params": {"labels": ["0", "1"]}}]
        )
        assert main(["status", str(path), "--json"]) == 0
        ids.append(json.loads(capsys.readouterr().out)["grade"][0]["condition_id"])
    assert ids[0] == ids[1]
