"""Grade conditions named by what varies (grader | rubric) in the agreement tables at
80 columns, and `--by` a grade facet over rubrics on different scales: a study of two
long-named judges, each with a 0/1 rubric and a 0–5 one, and the numeric scorer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.results.facets import scale_label, split_mixed_scales
from itemeval.study.cell_names import grader_facets, grader_name
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study

STRICT = "gpt-4o-mini-2024-07-18-strict-judge"
LENIENT = "claude-3-5-haiku-20241022-lenient-judge"
BINARY, FIVE = "correctness-binary", "correctness-five-point"
ROWS = [
    {"qid": f"s{i:02d}", "question": f"What is {i} + {2 * i}?", "answer": str(3 * i)}
    for i in range(1, 17)
]
RUBRIC = "Q: {input}\nRef: {target}\nA: {solution}\n"
NAMES = {
    f"{judge} | {rubric}" for judge in (STRICT, LENIENT) for rubric in (BINARY, FIVE)
} | {"numeric"}


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("graders")
    config = base_config(
        **{
            "benchmark__mapping__metadata": [],
            "solvers__models": ["itemeval/arith-fair"],
            "facets__scorer": "numeric",
            "facets__grader": [STRICT, LENIENT],
            "facets__rubric": [BINARY, FIVE],
            "graders": {
                STRICT: {"model": "itemeval/judge"},
                LENIENT: {"model": "itemeval/judge-lenient"},
            },
        }
    )
    path = write_study(root, config, rows=ROWS)
    (root / "rubrics" / f"{BINARY}.md").write_text(RUBRIC + "Score 1 if right, else 0.")
    (root / "rubrics" / f"{FIVE}.md").write_text(RUBRIC + "Score 0 to 5.")
    run = ["--display", "none", "-C", str(root)]
    assert main(["generate", str(path), *run]) == 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")
        patch.setenv("ITEMEVAL_JUDGE_SCALE", "5")  # the offline judge's 0–5 verdicts
        assert main(["grade", str(path), "--rubric", FIVE, *run]) == 0
        patch.setenv("ITEMEVAL_JUDGE_SCALE", "1")
        assert main(["grade", str(path), *run]) == 0
    return path


def _results(capsys, monkeypatch, path: Path, columns: int, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    assert main(["results", str(path), "-C", str(path.parent), *args]) == 0
    return capsys.readouterr().out


def _section(out: str, title: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(title))
    end = next(
        (i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines)
    )
    return lines[start:end]


@pytest.mark.parametrize(
    "columns, keyed",
    [
        (80, True),  # "judge | rubric" names do not fit twice: keys, names above
        (240, False),  # room for both names in every row
    ],
)
def test_grader_agreement_names_every_grader_whole(
    study, capsys, monkeypatch, columns, keyed
):
    out = _results(capsys, monkeypatch, study, columns)
    assert max(map(len, out.splitlines())) <= columns
    section = _section(out, "grader agreement")
    text = "\n".join(section)
    assert "…" not in text
    header = next(i for i, line in enumerate(section) if re.match(r"\s*A\s+B\s", line))
    rule = section[header + 1]
    rows = [  # the table's rows, not the note below it
        line
        for line in section[header + 2 :]
        if len(line.rstrip()) == len(rule) and not line.startswith("exact agreement")
    ]
    assert len(rows) == 10  # five grade conditions, every pair once
    if keyed:
        legend = dict(
            re.match(r"\s+(G\d+)\s+(.+?)\s*$", line).groups()
            for line in section[1:header]
        )
        assert set(legend.values()) == NAMES
        pairs = [tuple(row.split()[:2]) for row in rows]
        assert all(a in legend and b in legend for a, b in pairs)
    else:
        names = sorted(NAMES, key=len, reverse=True)
        pairs = [tuple(n for n in names if n in row) for row in rows]
        assert all(len(pair) >= 1 for pair in pairs)
        assert {n for pair in pairs for n in pair} == NAMES
    assert len(set(pairs)) == len(rows)  # every row a different pair


def test_grader_facets_name_by_what_varies(study):
    grade = load_study(study, study.parent).grade
    judges = [c for c in grade if c.kind == "judge"]
    cases = [
        (grade, NAMES),
        # one rubric: the judge's name alone
        ([c for c in judges if c.rubric.ref == FIVE], {STRICT, LENIENT}),
        # one judge: its rubrics alone
        ([c for c in judges if c.grader_name == STRICT], {BINARY, FIVE}),
    ]
    for conditions, expected in cases:
        names = [grader_name(f) for f in grader_facets(conditions).values()]
        assert set(names) == expected and len(names) == len(conditions)


def _item_means(path: Path) -> pd.DataFrame:
    grades = pd.read_parquet(path.parent / "studies" / "t" / "grades.parquet")
    scored = grades[grades["error"].isna() & grades["score"].notna()]
    return scored.groupby(["grade_condition_slug", "item_id"])["score"].mean()


def test_by_grader_splits_a_judge_whose_rubrics_score_on_two_scales(study, capsys):
    capsys.readouterr()
    args = ["results", str(study), "--json", "--by", "grader", "-C", str(study.parent)]
    assert main(args) == 0
    rows = {r["level"]: r for r in json.loads(capsys.readouterr().out)["marginals"]}
    expected = {
        f"{judge} (scores {scale})"
        for judge in (STRICT, LENIENT)
        for scale in ("0–1", "up to 5")
    } | {"numeric"}  # one scale: not split
    assert set(rows) == expected
    means = _item_means(study)
    for judge in (STRICT, LENIENT):
        for rubric, scale in ((BINARY, "0–1"), (FIVE, "up to 5")):
            item = means[f"{judge}_{rubric}"]
            row = rows[f"{judge} (scores {scale})"]
            assert row["mean"] == pytest.approx(item.mean(), abs=1e-12)
            assert row["items"] == len(item)
            assert 0 <= row["ci_low"] <= row["mean"] <= row["ci_high"]
            assert row["ci_high"] <= (1 if scale == "0–1" else 5)
    assert rows["numeric"]["mean"] == pytest.approx(
        means["scorer_numeric"].mean(), abs=1e-12
    )


def test_by_rubric_keeps_levels_whose_judges_share_a_scale(study, capsys):
    capsys.readouterr()
    args = ["results", str(study), "--json", "--by", "rubric", "-C", str(study.parent)]
    assert main(args) == 0
    rows = json.loads(capsys.readouterr().out)["marginals"]
    assert {r["level"] for r in rows} == {BINARY, FIVE}
    five = next(r for r in rows if r["level"] == FIVE)
    means = _item_means(study)
    both = pd.concat([means[f"{j}_{FIVE}"] for j in (STRICT, LENIENT)])
    assert five["mean"] == pytest.approx(both.groupby(level=0).mean().mean())


@pytest.mark.parametrize(
    "scores, levels, expected",
    [
        # a 0/1 rubric and a 1–5 one under one judge: split, labelled by scale
        (
            {"g1": [0, 1, 1], "g5": [2, 5, 4]},
            {"g1": "j", "g5": "j"},
            {"j (scores 0–1)", "j (scores up to 5)"},
        ),
        # two 1–5 judges that used different parts of the scale: one level
        ({"a": [2, 3, 5], "b": [1, 4, 4]}, {"a": "r", "b": "r"}, {"r"}),
        # a share (0.25 … 1) and 0/1 scores both live on 0–1: one level
        ({"a": [0.25, 0.5, 1], "b": [0, 1, 1]}, {"a": "r", "b": "r"}, {"r"}),
        # a 0–10 judge beside a 0/1 scorer, and a level of its own kept as it is
        (
            {"t": [0, 7, 10], "s": [0, 1, 0], "o": [1, 0, 1]},
            {"t": "x", "s": "x", "o": "y"},
            {"x (scores up to 10)", "x (scores 0–1)", "y"},
        ),
        # a 1–5 judge beside a 0–10 one
        (
            {"f": [1, 4, 5], "t": [0, 6, 9]},
            {"f": "r", "t": "r"},
            {"r (scores up to 5)", "r (scores up to 10)"},
        ),
        # scores around 0: a negative low end is rounded down
        (
            {"n": [-1.5, 0, 2], "u": [0, 1]},
            {"n": "z", "u": "z"},
            {"z (scores -2 to 5)", "z (scores 0–1)"},
        ),
    ],
)
def test_split_mixed_scales(scores, levels, expected):
    frame = pd.DataFrame(
        [
            {"grade_condition_id": g, "item_id": f"i{k}", "score": float(v)}
            for g, values in scores.items()
            for k, v in enumerate(values)
        ]
    )
    from itemeval.stats.scale_intervals import scale_of

    scales = {g: scale_of(np.array(v, dtype=float)) for g, v in scores.items()}
    split = split_mixed_scales(
        frame.assign(level=frame["grade_condition_id"].map(levels)), scales
    )
    assert set(split["level"]) == expected
    assert scale_label((0.0, 1.0)) == "0–1"
