"""Scores with several criteria: rubric front matter, the judge's criteria, a
mapping-valued user scorer, and results / export per criterion recomputed in pandas."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from sklearn.metrics import cohen_kappa_score

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.scorers.criteria import mapping_score, read_criteria, split_front_matter
from tests.helpers import base_config, write_study

RUBRIC = """---
criteria: [correctness, clarity, rigour]
---
Question: {input}
Reference answer: {target}
ANSWER: {solution}
Score each criterion 0 or 1; the total is their sum.
"""


@pytest.mark.parametrize(
    "text, criteria, body",
    [
        ("Plain rubric {input}", (), "Plain rubric {input}"),
        (RUBRIC, ("correctness", "clarity", "rigour"), RUBRIC.split("---\n", 2)[2]),
        ("---\ncriteria: []\n---\nBody", (), "Body"),
        ("Body\n---\ncriteria: [a]\n---\n", (), "Body\n---\ncriteria: [a]\n---\n"),
    ],
)
def test_front_matter(text, criteria, body):
    assert split_front_matter(text) == (criteria, body)


@pytest.mark.parametrize(
    "text, message",
    [
        ("---\ncriteria: [a, a]\n---\nx", "named twice"),
        ("---\npoints: 3\n---\nx", "only `criteria"),
        ("---\ncriteria: [a b]\n---\nx", "list of names"),
        ("---\ncriteria: [a\n---\nx", "not YAML"),
    ],
)
def test_bad_front_matter_is_a_config_error(text, message):
    with pytest.raises(ConfigError, match=message):
        split_front_matter(text, "facets.rubric[0]")


@pytest.mark.parametrize(
    "value, expected, result",
    [
        ({"a": 4, "b": "2"}, ("a", "b"), ({"a": 4.0, "b": 2.0}, None)),
        (
            {"a": 4, "b": 2, "extra": 1},
            ("a", "b"),
            ({"a": 4, "b": 2, "extra": 1}, None),
        ),
        ({"a": 4}, ("a", "b"), (None, "criterion_missing")),
        (None, ("a",), (None, "criterion_missing")),
        ({"a": 4, "b": "good"}, ("a", "b"), (None, "criterion_not_numeric")),
        ({"a": 4, "b": None}, ("a", "b"), (None, "criterion_not_numeric")),
        ({"a": True}, ("a",), (None, "criterion_not_numeric")),
        ({"a": float("nan")}, ("a",), (None, "criterion_not_numeric")),
        ({"a": -1e308}, ("a",), (None, "criterion_out_of_range")),
        ({"a": 3, "extra": 1e300}, ("a",), ({"a": 3.0, "extra": 1e300}, None)),
    ],
)
def test_read_criteria(value, expected, result):
    assert read_criteria(value, expected) == result


@pytest.mark.parametrize(
    "value, score, criteria",
    [
        ({"a": 1, "b": 0}, 0.5, {"a": 1.0, "b": 0.0}),
        ({"a": 3, "b": 2, "total": 5}, 5.0, {"a": 3.0, "b": 2.0}),
        ({"score": 7, "style": 2}, 7.0, {"style": 2.0}),
        ({"a": "C", "b": "P"}, 0.75, {"a": 1.0, "b": 0.5}),
        ({"a": 1, "b": [1]}, None, {}),
    ],
)
def test_mapping_score(value, score, criteria):
    assert mapping_score(value) == (score, criteria)


USER_SCORER = """
from inspect_ai.scorer import Score, mean, scorer


@scorer(metrics=[mean()])
def two_parts():
    async def score(state, target):
        text = state.output.completion
        return Score(value={"a": 1, "b": int(target.text in text)}, answer=text[-8:])

    return score
"""


def cli(capsys, *args):
    capsys.readouterr()
    code = main([*args, "-C", str(Path(args[1]).parent)])
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip().startswith("{") else None)


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("criteria")
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__grader": ["j", "k"],
            "facets__rubric": ["r"],
            "facets__scorer": ["numeric", "two_parts:two_parts"],
            "graders": {
                "j": {"model": "itemeval/judge"},
                "k": {"model": "itemeval/judge-second"},
            },
        }
    )
    path = write_study(root, config, rubric=RUBRIC)
    (root / "two_parts.py").write_text(USER_SCORER)
    for stage in ("generate", "grade"):
        assert main([stage, str(path), "--display", "none", "-C", str(root)]) == 0
    assert main(["export", str(path), "-C", str(root)]) == 0
    return path


def _grades(path):
    return pd.read_parquet(path.parent / "studies" / "t" / "grades.parquet")


def test_every_judge_grade_keeps_all_three_criteria(study):
    grades = _grades(study)
    judged = grades[grades["grade_kind"] == "judge"]
    ok = judged[judged["parse_ok"]]
    assert len(ok) > 10
    for meta, score in zip(ok["score_metadata"], ok["score"]):
        criteria = json.loads(meta)["criteria"]
        assert set(criteria) == {"correctness", "clarity", "rigour"}
        assert score == sum(criteria.values())  # the offline judge's total
    # the judge saw the rubric without its front matter, and the criteria suffix
    assert not judged["judge_completion"].str.contains("criteria: \\[").any()


def test_a_mapping_valued_user_scorer_keeps_both_values(study):
    grades = _grades(study)
    user = grades[grades["scorer"] == "two_parts:two_parts"]
    assert len(user) and user["parse_ok"].all()
    criteria = user["score_metadata"].map(lambda m: json.loads(m)["criteria"])
    assert (criteria.map(lambda c: c["a"]) == 1.0).all()
    assert (user["score"] == criteria.map(lambda c: (c["a"] + c["b"]) / 2)).all()


def test_results_per_criterion_match_a_pandas_recompute_from_the_export(study, capsys):
    code, data = cli(capsys, "results", str(study), "--json", "--by", "criterion")
    assert code == 0
    long = pd.read_parquet(
        study.parent / "studies" / "t" / "export" / "criteria_long.parquet"
    )
    long = long[long["parse_ok"] & ~long["stale"] & long["in_grid"]]  # README's
    assert set(long["criterion"]) == {"correctness", "clarity", "rigour", "a", "b"}
    cells = {
        (r["gen_condition_id"], r["grade_condition_id"], r["criterion"]): r
        for r in data["criteria"]
    }
    expected = long.groupby(["gen_condition_id", "grade_condition_id", "criterion"])[
        "value"
    ].mean()
    assert len(cells) == len(expected)
    for key, mean in expected.items():
        assert cells[key]["mean"] == pytest.approx(mean, abs=1e-12)
    by = [m for m in data["marginals"] if m["facet"] == "criterion"]
    per_item = long.groupby(
        ["grade_condition_id", "criterion", "item_id", "gen_condition_id"]
    )["value"].mean()  # the README's recipe: conditions, then items
    marginal = per_item.groupby(level=[0, 1, 2]).mean().groupby(level=[0, 1]).mean()
    assert {(m["grade_condition_id"], m["level"]): m["mean"] for m in by} == (
        pytest.approx(marginal.to_dict(), abs=1e-12)
    )
    rows = data["criteria_agreement"]
    judges = long[long["grade_condition_id"].str.match("[jk]_r")]
    for criterion in ("correctness", "clarity", "rigour"):
        wide = (
            judges[judges["criterion"] == criterion]
            .pivot_table(
                index=["gen_condition_id", "item_id", "epoch"],
                columns="grade_condition_id",
                values="value",
            )
            .dropna()
        )
        a, b = sorted(wide.columns)
        row = next(r for r in rows if r["criterion"] == criterion and r["a"] == a)
        assert row["b"] == b and row["n"] == len(wide)
        assert row["exact"] == pytest.approx(np.mean(wide[a] == wide[b]), abs=1e-12)
        if wide[a].nunique() > 1 and wide[b].nunique() > 1:
            rho = sps.spearmanr(wide[a], wide[b]).statistic
            assert row["spearman"] == pytest.approx(rho, abs=1e-9)
        # quadratic kappa over the scale's integers, as scikit-learn weighs it
        x, y = np.rint(wide[a]).astype(int), np.rint(wide[b]).astype(int)
        if len(set(x) | set(y)) > 1:
            kappa = cohen_kappa_score(x, y, weights="quadratic")
            assert row["kappa_quadratic"] == pytest.approx(kappa, abs=1e-9)
        alpha = krippendorff.alpha(
            reliability_data=[wide[a], wide[b]], level_of_measurement="interval"
        )
        assert row["alpha_interval"] == pytest.approx(alpha, abs=1e-9)


def test_the_table_lists_criteria(study, capsys):
    capsys.readouterr()
    assert main(["results", str(study), "-C", str(study.parent)]) == 0
    assert "criteria" in capsys.readouterr().out


def test_the_report_shows_every_criterion_cell_of_results(study, capsys, tmp_path):
    _, data = cli(capsys, "results", str(study), "--json")
    out = tmp_path / "report.html"
    assert main(["report", str(study), "--out", str(out), "-C", str(study.parent)]) == 0
    section = out.read_text().split("<h2>Criteria</h2>", 1)[1].split("<h3>", 1)[0]
    shown = [
        [unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", section)
        if "<td" in row
    ]
    assert [(r[2], r[4]) for r in shown] == [
        (c["criterion"], f"{c['mean']:.3f}") for c in data["criteria"]
    ]


def test_a_missing_criterion_is_its_own_parse_failure():
    from itemeval.scorers.judge import judge_fields

    reply = '{"score": 1, "criteria": {"correctness": 1}, "reasoning": "ok"}'
    fields = judge_fields(reply, (), ("correctness", "clarity"))
    assert (fields["score"], fields["parse_ok"], fields["parse_error"]) == (
        None,
        False,
        "criterion_missing",
    )
