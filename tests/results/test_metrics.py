"""`results` with declared global metrics on a real offline study: each figure
recomputed from the grade rows with scikit-learn / scipy / sacrebleu, and the load-
time checks."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU
from scipy import stats as sps
from sklearn import metrics as sk

from itemeval.cli import main
from itemeval.scorers.numeric import read_target_number
from itemeval.scorers.text import normalise_text
from tests.helpers import base_config, cli_json, write_study

ROWS = [
    {
        "qid": f"q{i:02d}",
        "question": f"What is {i} + {i % 4}?",
        "answer": str(i + i % 4),
        "difficulty": ["easy", "hard"][i % 2],
        "second": str(i + i % 4 + (i % 3 == 0)),
    }
    for i in range(1, 31)
]
USER_METRIC = '''
def share_of_long_answers(scores, answers):
    """A user's own figure: how often the answer has two or more characters."""
    return sum(len(a or "") >= 2 for a in answers) / len(answers)
'''
METRICS = [
    "accuracy",
    {"name": "f1_macro", "scorer": "numeric"},
    {"name": "balanced_accuracy", "scorer": "numeric"},
    {"name": "pearson", "scorer": "numeric"},
    {"name": "spearman", "scorer": "numeric"},
    {"name": "kendall_tau", "scorer": "numeric"},
    {"name": "precision", "scorer": "numeric"},
    {"name": "recall", "scorer": "numeric"},
    {"name": "corpus_bleu", "scorer": "exact_match"},
    {"name": "my_metrics:share_of_long_answers", "scorer": "numeric"},
]


def _config(metrics, scorer=None):
    return base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__replications": 2,
            "facets__scorer": scorer or ["numeric", "exact_match"],
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge"}},
            "benchmark__mapping__metadata": ["difficulty", "second"],
            "metrics": metrics,
        }
    )


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("metrics")
    path = write_study(root, _config(METRICS), rows=ROWS)
    (root / "my_metrics.py").write_text(USER_METRIC)
    for stage in ("generate", "grade"):
        assert main([stage, str(path), "--display", "none", "-C", str(root)]) == 0
    return path


def _grades(path: Path) -> pd.DataFrame:
    grades = pd.read_parquet(path.parent / "studies" / "t" / "grades.parquet")
    return grades.merge(pd.DataFrame(ROWS), left_on="item_id", right_on="qid")


def _label(text):
    text = text if isinstance(text, str) else ""
    number = read_target_number(text) if text.strip() else None
    return repr(float(number)) if number is not None else normalise_text(text or "")


def _number(text):
    text = text if isinstance(text, str) else ""
    value = read_target_number(text) if text.strip() else None
    return np.nan if value is None else value


REFERENCE = {
    "f1_macro": lambda g: sk.f1_score(
        g["target_label"],
        g["label"],
        labels=sorted(set(g["target_label"])),
        average="macro",
        zero_division=0,
    ),
    "balanced_accuracy": lambda g: sk.balanced_accuracy_score(
        g["target_label"], g["label"]
    ),
    "pearson": lambda g: sps.pearsonr(*_pairs(g)).statistic,
    "spearman": lambda g: sps.spearmanr(*_pairs(g)).statistic,
    "kendall_tau": lambda g: sps.kendalltau(*_pairs(g)).statistic,
    "corpus_bleu": lambda g: (
        BLEU().corpus_score(list(g["answer"].fillna("")), [list(g["answer_y"])]).score
        / 100
    ),
    "my_metrics:share_of_long_answers": lambda g: np.mean(
        g["answer"].fillna("").str.len() >= 2
    ),
}


def _pairs(g):
    x = g["answer"].map(_number).to_numpy(float)
    y = g["answer_y"].map(_number).to_numpy(float)
    keep = ~np.isnan(x) & ~np.isnan(y)
    return x[keep], y[keep]


def test_every_metric_per_cell_equals_the_libraries_on_the_grade_rows(study, capsys):
    code, data, _ = cli_json(capsys, "results", str(study), "--json", "--seed", "3")
    assert code == 0
    grades = _grades(study).rename(columns={"answer_x": "answer"})
    read = grades[grades["error"].isna()].assign(
        label=lambda g: g["answer"].map(_label),
        target_label=lambda g: g["answer_y"].map(_label),
    )
    rows = {
        (r["gen_condition_id"], r["grade_condition_id"], r["metric"]): r
        for r in data["metrics"]
        if r.get("facet") is None
    }
    checked = 0
    for (gen_id, grade_id), group in read.groupby(
        ["gen_condition_id", "grade_condition_id"]
    ):
        slug = group["grade_condition_slug"].iloc[0]
        for metric, reference in REFERENCE.items():
            key = (gen_id, grade_id, metric)
            feeds = slug == (
                "scorer_exact-match" if metric == "corpus_bleu" else "scorer_numeric"
            )
            assert (key in rows) == feeds, key
            if feeds:
                expected = reference(group)
                assert rows[key]["value"] == pytest.approx(expected, abs=1e-9), key
                assert rows[key]["ci_low"] <= rows[key]["value"] <= rows[key]["ci_high"]
                checked += 1
        accuracy = rows[(gen_id, grade_id, "accuracy")]
        cell = next(
            c
            for c in data["cells"]
            if (c["gen_condition_id"], c["grade_condition_id"]) == (gen_id, grade_id)
        )
        assert accuracy["value"] == pytest.approx(cell["mean"], abs=1e-12)
    assert checked == 2 * len(REFERENCE)
    # the judge reads no answer: only accuracy covers it
    judged = [r for r in data["metrics"] if r["metric"] == "accuracy"]
    assert len(judged) == 2 * 3


def test_precision_and_recall_have_a_row_per_class_equal_to_scikit_learn(study, capsys):
    code, data, _ = cli_json(capsys, "results", str(study), "--json")
    grades = _grades(study).rename(columns={"answer_x": "answer"})
    read = grades[grades["error"].isna()].assign(
        label=lambda g: g["answer"].map(_label),
        target_label=lambda g: g["answer_y"].map(_label),
    )
    numeric = read[read["grade_condition_slug"] == "scorer_numeric"]
    for (gen_id, grade_id), group in numeric.groupby(
        ["gen_condition_id", "grade_condition_id"]
    ):
        labels = sorted(set(group["target_label"]))
        expected = sk.precision_recall_fscore_support(
            group["target_label"], group["label"], labels=labels, zero_division=np.nan
        )
        for metric, values in zip(("precision", "recall"), expected[:2]):
            rows = [
                r
                for r in data["metrics"]
                if (r["gen_condition_id"], r["grade_condition_id"], r["metric"])
                == (gen_id, grade_id, metric)
            ]
            assert [r["class"] for r in rows] == labels
            got = [np.nan if r["value"] is None else r["value"] for r in rows]
            assert got == pytest.approx(list(values), abs=1e-9, nan_ok=True)


def test_compare_gives_each_metric_a_minus_b_on_the_shared_items(study, capsys):
    grades = _grades(study).rename(columns={"answer_x": "answer"})
    read = grades[grades["error"].isna()].assign(
        label=lambda g: g["answer"].map(_label),
        target_label=lambda g: g["answer_y"].map(_label),
    )
    numeric = read[read["grade_condition_slug"] == "scorer_numeric"]
    a, b = sorted(numeric["gen_condition_id"].unique())
    code, data, _ = cli_json(capsys, "results", str(study), "--json", "--compare", a, b)
    assert code == 0
    shared = set(numeric[numeric["gen_condition_id"] == a]["item_id"]) & set(
        numeric[numeric["gen_condition_id"] == b]["item_id"]
    )
    on_shared = numeric[numeric["item_id"].isin(shared)]
    groups = {gen: g for gen, g in on_shared.groupby("gen_condition_id")}
    rows = {
        r["metric"]: r
        for r in data["metrics"]
        if r.get("a") == a
        and r["grade_condition_id"] == groups[a].iloc[0]["grade_condition_id"]
        and "class" not in r
    }
    for metric in ("f1_macro", "balanced_accuracy", "pearson", "spearman"):
        expected = REFERENCE[metric](groups[a]) - REFERENCE[metric](groups[b])
        row = rows[metric]
        assert row["b"] == b and row["gen_condition_id"] is None
        assert row["value"] == pytest.approx(expected, abs=1e-9), metric
        assert row["ci_low"] <= row["value"] <= row["ci_high"], metric
        assert row["items"] == len(shared)


def test_metrics_per_by_level_and_the_same_seed_gives_the_same_interval(study, capsys):
    args = ("results", str(study), "--json", "--by", "model", "--by", "difficulty")
    _, first, _ = cli_json(capsys, *args)
    _, again, _ = cli_json(capsys, *args)
    assert first["metrics"] == again["metrics"]
    levels = [r for r in first["metrics"] if r.get("facet") == "difficulty"]
    assert {r["level"] for r in levels} == {"easy", "hard"}
    grades = _grades(study).rename(columns={"answer_x": "answer"})
    hard = grades[
        (grades["difficulty"] == "hard")
        & grades["error"].isna()
        & (grades["grade_condition_slug"] == "scorer_numeric")
    ]
    row = next(r for r in levels if r["level"] == "hard" and r["metric"] == "pearson")
    assert row["value"] == pytest.approx(REFERENCE["pearson"](hard), abs=1e-9)
    assert row["gen_condition_id"] is None


def test_the_table_shows_metrics_beside_the_means(study, capsys):
    _, data, _ = cli_json(capsys, "results", str(study), "--json")
    capsys.readouterr()
    code = main(["results", str(study), "-C", str(study.parent)])
    shown_text = capsys.readouterr().out
    assert code == 0
    assert "scorer_numeric: metrics, 95% CI (item bootstrap)" in shown_text
    pearson = [
        r for r in data["metrics"] if r["metric"] == "pearson" and not r.get("facet")
    ]
    lines = [line.split() for line in shown_text.splitlines() if " pearson " in line]
    shown = sorted(line[line.index("pearson") + 2] for line in lines)
    assert shown == sorted(f"{r['value']:.3f}" for r in pearson)


@pytest.mark.parametrize(
    "metrics, scorer, message",
    [
        (["f1_weighted"], None, "metrics[0] (f1_weighted): unknown metric"),
        (
            [{"name": "pearson", "scorer": "exact_match"}],
            None,
            "pearson compares numbers, but scorer 'exact_match' does not read a number",
        ),
        (
            [{"name": "f1_macro", "scorer": "includes"}],
            None,
            "scorer 'includes' names no facets.scorer entry",
        ),
        (
            [{"name": "chrf", "params": {"order": 3}}],
            None,
            "Allowed params: char_order",
        ),
        (["nowhere:metric"], None, "cannot import 'nowhere'"),
        # inspect's includes and match keep the whole reply: no class, no number
        (
            [{"name": "f1_macro", "scorer": "includes"}],
            ["includes"],
            "scorer 'includes' keeps the whole reply, not a class",
        ),
        (
            [{"name": "pearson", "scorer": "match"}],
            ["match"],
            "pearson compares numbers, but scorer 'match' does not read a number",
        ),
        (
            ["precision"],
            ["includes", "match"],
            "precision compares a class a scorer read from each reply with the target,"
            " and no facets.scorer entry reads one (entries: includes, match)",
        ),
    ],
)
def test_a_metric_that_cannot_be_computed_is_exit_2_at_load(
    tmp_path, capsys, metrics, scorer, message
):
    path = write_study(tmp_path, _config(metrics, scorer), rows=ROWS)
    code, _, err = cli_json(capsys, "estimate", str(path))
    assert code == 2 and message in err, err
    assert not (tmp_path / "studies").exists()


def _section_rows(html: str, heading: str) -> list[list[str]]:
    """The body rows of the first table after `<h2>heading</h2>`, cell texts."""
    section = html.split(f"<h2>{heading}</h2>", 1)[1].split("<h2>", 1)[0]
    table = section.split("</table>", 1)[0]
    return [
        [unescape(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", table)
        if "<td" in row
    ]


def test_the_report_shows_every_metric_row_of_results(study, capsys, tmp_path):
    _, data, _ = cli_json(capsys, "results", str(study), "--json")
    out = tmp_path / "report.html"
    assert main(["report", str(study), "--out", str(out), "-C", str(study.parent)]) == 0
    # the report adds a row per level of every facet ("model = …"): cells first
    shown = [r for r in _section_rows(out.read_text(), "Metrics") if " = " not in r[0]]
    expected = [
        r for r in data["metrics"] if r.get("facet") is None and r.get("a") is None
    ]
    assert len(shown) == len(expected)
    for row, want in zip(shown, expected):
        name = want["metric"] + (f"[{want['class']}]" if "class" in want else "")
        value = "–" if want["value"] is None else f"{want['value']:.3f}"
        assert (row[2], row[4]) == (name, value)
