"""Grade conditions named by what varies (grader | rubric) in the agreement tables at
80 columns, and `--by` a grade facet over rubrics on different scales: a study of two
long-named judges, each with a 0/1 rubric and a 0–5 one, and the numeric scorer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from itemeval.cell_names import grader_facets, grader_name
from itemeval.cli import main
from itemeval.study import load_study
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
    rows = [line for line in section[header + 1 :] if line.strip("─ ")]
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
