"""The tables of status, estimate, generate, grade and results on a study with long
slugs: they fit 80 columns without cutting money, keep each slug recognisable, show
ids on demand and whole slugs on a wider terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from itemeval.cli import main
from itemeval.console import tables
from tests.helpers import base_config, write_study

PROMPT = "a-long-prompt-for-tables"
MONEY = re.compile(r"<?\$\d[\d,]*(\.\d+)?")


def long_study(root: Path) -> Path:
    """8 generate conditions with slugs of up to 49 characters, a judge and a scorer;
    4 items. Returns the config's path relative to the working dir, as people type it
    (the grade summary's advice repeats it)."""
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__prompt": [PROMPT, "builtin:standard"],
            "facets__model_config": [
                {"name": "default"},
                {"name": "a-long-config", "temperature": 0.0},
            ],
            "facets__grader": ["a-very-particular-judge"],
            "facets__rubric": ["r"],
            "graders": {"a-very-particular-judge": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(root, config)
    (root / "prompts" / f"{PROMPT}.md").write_text("Q: {input}\nEnd with ANSWER: <n>.")
    return path.relative_to(root)


def run(capsys, monkeypatch, columns: int, *args: str) -> str:
    """One command at a terminal `columns` wide; its stdout and stderr together."""
    monkeypatch.setenv("COLUMNS", str(columns))
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out + captured.err


def conditions(capsys, path: Path) -> list[dict]:
    """(slug, id) of every generate and grade condition, from `status --json`."""
    capsys.readouterr()
    assert main(["status", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    return data["generate"] + data["grade"]


def table_blocks(text: str) -> list[tuple[str, str, list[str]]]:
    """Each table as (header line, rule line, row lines): rows are the lines as wide
    as the rule under the header."""
    lines = text.splitlines()
    blocks = []
    for index, line in enumerate(lines):
        if line and set(line) == {"─"}:
            rows = []
            for at, row in enumerate(lines[index + 1 :], start=index + 1):
                if len(row) != len(line) or _titles_a_table(lines, at):
                    break
                rows.append(row)
            blocks.append((lines[index - 1], line, rows))
    return blocks


def _titles_a_table(lines: list[str], at: int) -> bool:
    """A table's title line (rich pads it to the table's width) sits two lines above
    the table's rule."""
    return at + 2 < len(lines) and set(lines[at + 2]) == {"─"}


def assert_within(text: str, width: int) -> None:
    """No line wider than the terminal but a path longer than it, which stands on a
    line of its own (`manifest: /…`), whole, so it can be copied: it is not cut."""
    wide = [line for line in text.splitlines() if len(line) > width]
    assert all(re.fullmatch(r"(\w+: )?/\S+", line) for line in wide), text


def assert_fits(text: str, slugs: list[str], width: int = 80) -> None:
    """No line wider than the terminal, every dollar amount whole, no empty last
    column, every slug recognisable."""
    assert_within(text, width)
    for amount in re.findall(r"\S*\$\S*", text):
        assert MONEY.fullmatch(amount.strip("(),;:")), (amount, text)
    blocks = table_blocks(text)
    assert blocks, text
    cells = set()
    for header, rule, rows in blocks:
        assert rows and len(header.rstrip()) == len(rule), (
            text
        )  # the last column has a header
        for row in rows:
            assert len(row.rstrip()) == len(rule), (
                row,
                text,
            )  # and a value in every row
            cells.update(row.split())
    for slug in slugs:
        assert any(recognisable(cell, slug) for cell in cells), (slug, text)


def recognisable(shown: str, slug: str) -> bool:
    """The slug whole, or cut in its middle keeping at least its first 6 characters
    and its end."""
    if shown == slug:
        return True
    head, cut, tail = shown.partition("…")
    return (
        bool(cut) and len(head) >= 6 and slug.startswith(head) and slug.endswith(tail)
    )


def test_status_and_estimate_fit_80_columns_and_show_ids_on_demand(
    tmp_path, capsys, monkeypatch
):
    path = long_study(tmp_path)
    grid = conditions(capsys, path)
    slugs = [c["slug"] for c in grid]
    assert max(map(len, slugs)) == 49
    for command in ("status", "estimate"):
        text = run(capsys, monkeypatch, 80, command, str(path))
        assert_fits(text, slugs)
        assert not re.search(r"--[0-9a-f]{12}", text)  # no ids unless asked
        assert (
            command == "estimate" or "…" in text
        )  # the slugs beside status's 6 numbers are cut
        text = run(capsys, monkeypatch, 80, command, str(path), "--ids")
        assert_within(text, 80)
        assert all(c["condition_id"] in text for c in grid), text
        text = run(capsys, monkeypatch, 120, command, str(path))
        assert_fits(text, slugs, 120)
        assert all(slug in text for slug in slugs) and "…" not in text, text


def test_the_generate_summary_fits_80_columns_and_a_no_op_prints_one_line(
    tmp_path, capsys, monkeypatch
):
    path = long_study(tmp_path)
    generate = conditions(capsys, path)[:8]

    text = run(capsys, monkeypatch, 80, "generate", str(path), "--limit", "1")
    assert_fits(text, [c["slug"] for c in generate])
    header = table_blocks(text)[0][0].split()
    assert (
        header[0] == "condition" and "planned" not in header and "rows" in header
    )  # all planned cells ran
    text = run(capsys, monkeypatch, 80, "generate", str(path), "--limit", "2", "--ids")
    assert_within(text, 80)
    assert all(c["condition_id"] in text for c in generate), text
    text = run(capsys, monkeypatch, 120, "generate", str(path), "--limit", "3")
    assert_fits(text, [c["slug"] for c in generate], 120)
    assert all(c["slug"] in text for c in generate), text
    text = run(capsys, monkeypatch, 80, "generate", str(path), "--limit", "3")
    assert "nothing to do" in text and "─" not in text and "condition" not in text


def test_the_grade_summary_fits_80_columns_and_a_no_op_prints_one_line(
    tmp_path, capsys, monkeypatch
):
    path = long_study(tmp_path)
    grade = conditions(capsys, path)[8:]
    assert [c["slug"] for c in grade] == ["a-very-particular-judge_r", "scorer_numeric"]
    run(capsys, monkeypatch, 80, "generate", str(path), "--limit", "2", "--json")

    text = run(capsys, monkeypatch, 80, "grade", str(path), "--limit", "1", "--yes")
    assert_fits(text, [c["slug"] for c in grade])
    text = run(
        capsys, monkeypatch, 80, "grade", str(path), "--limit", "2", "--yes", "--ids"
    )
    assert_within(text, 80)
    assert all(c["condition_id"] in text for c in grade), text
    text = run(capsys, monkeypatch, 80, "grade", str(path), "--yes")
    assert "nothing to do" in text and "─" not in text and "condition" not in text


def test_status_and_results_of_a_graded_study_fit_80_columns(
    tmp_path, capsys, monkeypatch
):
    path = long_study(tmp_path)
    run(capsys, monkeypatch, 80, "generate", str(path), "--limit", "2", "--json")
    run(capsys, monkeypatch, 80, "grade", str(path), "--yes", "--json")
    slugs = [c["slug"] for c in conditions(capsys, path)]
    text = run(capsys, monkeypatch, 80, "status", str(path))
    assert_fits(text, slugs)
    assert re.search(r"\$0\.\d{4}", text)  # some spend, shown whole
    grade_slugs = [c["slug"] for c in conditions(capsys, path) if "grader" in c]
    for width in (80, 120):
        text = run(capsys, monkeypatch, width, "results", str(path), "--by", "model")
        assert_fits(text, [], width)
        # cells are named by the facets that vary; grade conditions by their title
        assert all(slug in text for slug in grade_slugs), text
        rows = [row.split() for _, _, rows in table_blocks(text) for row in rows]
        named = {tuple(row[:3]) for row in rows if row[0].startswith("arith-")}
        assert len(named) == 8, text
        for model, prompt, config in named:
            assert model in ("arith-good", "arith-weak"), text
            assert any(recognisable(prompt, p) for p in (PROMPT, "standard")), text
            assert any(recognisable(config, c) for c in ("default", "a-long-config"))
        if width == 120:
            assert "…" not in text, text


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "unknown"),
        (0.0, "$0"),
        (0.00004, "<$0.0001"),
        (0.072, "$0.0720"),
        (0.99996, "$1.0000"),
        (1.234, "$1.23"),
        (12.34, "$12.3"),
        (1234.5, "$1,234"),
        (123456.0, "$123,456"),
    ],
)
def test_money_is_compact_and_whole(value, shown):
    assert tables.money(value) == shown and len(shown) <= 8


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (0, "0"),
        (9_999, "9,999"),
        (24_576, "24.6k"),
        (260_288, "260k"),
        (999_600, "1M"),
        (1_234_567, "1.23M"),
    ],
)
def test_token_counts_fit_five_characters(count, shown):
    assert tables.tokens(count) == shown


@pytest.mark.parametrize(
    ("names", "width", "expected"),
    [
        (["arith-good_p_default"], 40, ["arith-good_p_default"]),
        (
            ["arith-good_concise_default"],
            16,
            ["arith-go…default"],
        ),  # start and end, cut in the middle
        # both end "…_default" when cut in the middle: the cut moves off-centre to keep
        # them apart
        (
            ["arith-good_concise_default", "arith-good_builtin-standard_default"],
            17,
            ["arith-g…e_default", "arith-g…d_default"],
        ),
        (
            [
                "arith-good_builtin-standard_default",
                "arith-weak_builtin-standard_default",
            ],
            18,
            ["arith-goo…_default", "arith-wea…_default"],
        ),
        (["scorer_numeric"], 10, ["score…eric"]),
    ],
)
def test_names_are_cut_in_the_middle_and_stay_apart(names, width, expected):
    head = tables.distinct_head(names, width)
    shown = [tables.cut(name, width, head) for name in names]
    assert shown == expected and all(len(name) <= width for name in shown)
