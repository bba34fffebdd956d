"""`itemeval show` on a real study (offline models through inspect): one item up
close, and failed cells."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from tests.helpers import ARITH, base_config, write_study

LONG = {
    "qid": "a5",
    "question": "What is 12 + 30? "
    + " ".join(["Take your time and read every word slowly."] * 6),
    "answer": "42",
    "difficulty": "hard",
}
P_PROMPT = "Q: {input}\nEnd with ANSWER: <n>."
RUBRIC = (
    "Problem: {input}\nReference answer: {target}\n\nCandidate "
    "solution:\n{solution}\n\nScore 1 if right, else 0."
)
Q_PROMPT = "Question {id} ({difficulty}): {input}\nReply with a last line ANSWER: <n>."
ANSI = re.compile(r"\x1b\[[0-9;]*m")
RULE = re.compile(r"^[^\s─].* ─+\s*$")  # a section heading: a title, then a rule


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    """arith-good and the always failing itemeval/fail × prompts p and q × 2
    replications × 5 items, graded by the numeric scorer, a well-formed judge j and a
    judge k whose replies never parse."""
    root = tmp_path_factory.mktemp("show")
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/fail"],
            "facets__prompt": ["p", "q"],
            "facets__replications": 2,
            "facets__grader": ["j", "k"],
            "facets__rubric": ["r"],
            "graders": {
                "j": {"model": "itemeval/judge"},
                "k": {"model": "itemeval/judge-k"},
            },
        }
    )
    path = write_study(
        root, config, rows=[*ARITH, LONG], prompt=P_PROMPT, rubric=RUBRIC
    )
    (root / "prompts" / "q.md").write_text(Q_PROMPT)
    base = [
        "--yes",
        "--display",
        "none",
        "-C",
        str(root),
    ]  # the module's study outlives each test's working dir
    with pytest.MonkeyPatch.context() as patch:
        assert main(["generate", str(path), *base]) == 0
        patch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "1")
        assert main(["grade", str(path), "--grader", "k", *base]) == 0
        patch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")
        assert (
            main(["grade", str(path), *base]) == 0
        )  # j and the scorer; k's parse failures are final
    return path


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    """Output as to a pipe, whole lines: the width test below sets its own terminal."""
    monkeypatch.setenv("COLUMNS", "240")


def show(capsys, study: Path, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["show", str(study), *args, "-C", str(study.parent)])
    captured = capsys.readouterr()
    out = "\n".join(
        line.rstrip() for line in captured.out.splitlines()
    )  # rich pads lines to the width
    return code, out, captured.err


def stored(study: Path, store: str) -> pd.DataFrame:
    return pd.read_parquet(study.parent / "studies" / "t" / f"{store}.parquet")


def solution(study: Path, slug: str, item_id: str, epoch: int) -> str:
    rows = stored(study, "solutions")
    row = rows[
        (rows["condition_slug"] == slug)
        & (rows["item_id"] == item_id)
        & (rows["epoch"] == epoch)
    ]
    return row["solution"].item()


def section(out: str, heading: str) -> str:
    """The lines from a condition's heading to the next heading (a line ending in a
    rule)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading + " ─"))
    end = next(
        (i for i in range(start + 1, len(lines)) if RULE.match(lines[i])), len(lines)
    )
    return "\n".join(lines[start:end])


# ---- one item
# --------------------------------------------------------------------------------------


def test_an_item_shows_its_input_target_and_the_prompt_each_condition_rendered(
    study, capsys
):
    code, out, _ = show(capsys, study, "a2")
    assert code == 0
    assert re.search(r"^input +What is 7 \* 6\?", out, re.M) and re.search(
        r"^target +42\b", out, re.M
    )
    assert re.search(r"^difficulty +easy", out, re.M)
    p = section(out, "arith-good_p_default")
    assert (
        "\n  Q: What is 7 * 6?\n  End with ANSWER: <n>." in p and "Question a2" not in p
    )
    q = section(out, "arith-good_q_default")
    assert (
        "\n  Question a2 (easy): What is 7 * 6?\n  Reply with a last line ANSWER: <n>."
        in q
        and "Q: What" not in q
    )
    assert "\n  Q: What is 7 * 6?" in section(out, "fail_p_default")


def test_an_item_shows_both_replications_side_by_side_with_every_grade(study, capsys):
    code, out, _ = show(capsys, study, "a2", "--condition", "arith-good_q_default")
    assert (
        code == 0 and "arith-good_p_default" not in out
    )  # a generate selector narrows the solutions shown
    first, second = (
        solution(study, "arith-good_q_default", "a2", epoch) for epoch in (1, 2)
    )
    lines = out.splitlines()
    assert any(re.search(r"replication 1 +replication 2", line) for line in lines)
    for left, right in zip(
        first.splitlines(), second.splitlines()
    ):  # row by row: replication 1, then 2
        assert any(
            left in line and right in line.split(left, 1)[1] for line in lines
        ), (left, right)

    grades = stored(study, "grades")
    mine = grades[
        (grades["item_id"] == "a2")
        & grades["gen_condition_id"].str.startswith("arith-good_q_default")
    ]
    judged = mine[mine["grade_condition_slug"] == "j_r"].sort_values("epoch")
    assert (
        list(judged["epoch"]) == [1, 2]
        and judged["reasoning"].str.startswith("The final answer").all()
    )
    heading = next(
        i for i, line in enumerate(lines) if line.count("j_r: ") == 2
    )  # j's grades, side by side
    assert lines[heading].count("(j, itemeval/judge)") == 2
    left, right = judged["reasoning"]
    assert left in lines[heading + 1] and right in lines[heading + 1].split(left, 1)[1]
    unparsed = mine[mine["grade_condition_slug"] == "k_r"]
    assert len(unparsed) == 2 and not unparsed["parse_ok"].any()
    for code_ in unparsed["parse_error"]:
        assert f"k_r: parse failure (k, itemeval/judge-k): {code_}" in out
    assert "scorer_numeric: 1 (numeric)" in out


def test_a_grade_selector_narrows_only_the_grades(study, capsys):
    code, out, _ = show(capsys, study, "a1", "--condition", "j_r")
    assert code == 0 and "arith-good_p_default" in out and "arith-good_q_default" in out
    assert "j_r: " in out and "k_r: " not in out and "scorer_numeric: " not in out


def test_an_item_shows_a_failed_solution_with_its_error(study, capsys):
    code, out, _ = show(capsys, study, "a3", "--condition", "fail_q_default")
    assert code == 0
    errors = stored(study, "solutions").query(
        "condition_slug == 'fail_q_default' and item_id == 'a3'"
    )["error"]
    assert len(errors) == 2 and errors.str.contains("injected failure").all()
    assert re.search(r"error: .*injected failure.* +error: .*injected failure", out)


def test_an_unknown_item_is_a_config_error_that_suggests_close_ids(study, capsys):
    code, out, err = show(capsys, study, "a22")
    assert code == 2 and out == ""
    assert "no item 'a22' in study t; did you mean a2" in err
    code, _, err = show(capsys, study, "A3")
    assert code == 2 and "did you mean a3" in err
    code, _, err = show(capsys, study, "zzz")
    assert code == 2 and "its items are a1, a2, a3, a4, a5" in err


def test_neither_an_item_nor_failures_is_a_usage_error(study, capsys):
    code, out, err = show(capsys, study)
    assert code == 2 and out == ""
    assert "needs an item id (itemeval show CONFIG ITEM_ID) or --failures" in err


def test_an_unknown_condition_is_a_config_error(study, capsys):
    code, _, err = show(capsys, study, "a1", "--condition", "nope")
    assert code == 2 and "no condition matches 'nope'" in err


# ---- failed cells
# --------------------------------------------------------------------------------------


def listed(out: str) -> set[tuple[str, int, str]]:
    """(item, replication, message) of every row of the failure tables."""
    return {
        (m[1], int(m[2]), m[3].strip())
        for m in re.finditer(r"^(a\d) +(\d) +(.+)$", out, re.M)
    }


def test_failures_of_a_generate_condition_list_every_errored_cell_with_its_message(
    study, capsys
):
    code, out, _ = show(capsys, study, "--condition", "fail_p_default", "--failures")
    assert code == 0
    rows = stored(study, "solutions").query("condition_slug == 'fail_p_default'")
    expected = {
        (item, int(epoch), error)
        for item, epoch, error in zip(rows["item_id"], rows["epoch"], rows["error"])
    }
    assert len(expected) == 10 and all(
        "injected failure" in message for _, _, message in expected
    )
    assert listed(out) == expected
    assert "fail_p_default (generate): 10 failed cells" in out


def test_failures_of_a_grade_condition_list_parse_failures_by_solution_condition(
    study, capsys
):
    code, out, _ = show(
        capsys, study, "--condition", "k_r", "--condition", "j_r", "--failures"
    )
    assert code == 0
    rows = stored(study, "grades").query("grade_condition_slug == 'k_r'")
    assert len(rows) == 20 and rows["parse_error"].notna().all()
    expected = {
        (item, int(epoch), f"parse failure: {code_}")
        for item, epoch, code_ in zip(
            rows["item_id"], rows["epoch"], rows["parse_error"]
        )
    }
    assert (
        listed(out) == expected
    )  # each (item, rep) twice, once per prompt, under its own heading
    assert (
        out.count("solutions of arith-good_p_default") == 1
        and out.count("solutions of arith-good_q_default") == 1
    )
    assert "no failed cells: j_r" in out


def test_failures_of_one_item(study, capsys):
    code, out, _ = show(capsys, study, "a4", "--failures", "--condition", "fail")
    assert code == 0 and {item for item, _, _ in listed(out)} == {"a4"}
    assert "4 failed cells of item a4 in 2 of 2 conditions" in out


# ---- JSON and width
# --------------------------------------------------------------------------------------


def test_json_is_one_document_with_the_item_solutions_and_grades(study, capsys):
    code, out, _ = show(capsys, study, "a2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["view"] == "item" and data["replications"] == 2
    assert data["item"] == {
        "id": "a2",
        "input": "What is 7 * 6?",
        "target": "42",
        "targets": ["42"],
        "choices": [],
        "grading_scheme": None,
        "metadata": {"difficulty": "easy"},
        "dataset_id": "data/arith.jsonl",
        "dataset_revision": data["item"]["dataset_revision"],
        "row": 1,
        "flags": {},  # results --items flags per grade condition: none here
    }
    by_slug = {c["slug"]: c for c in data["conditions"]}
    assert list(by_slug) == [
        "arith-good_p_default",
        "arith-good_q_default",
        "fail_p_default",
        "fail_q_default",
    ]
    good = by_slug["arith-good_q_default"]
    assert (
        good["prompt"]
        == "Question a2 (easy): What is 7 * 6?\nReply with a last line ANSWER: <n>."
    )
    assert [s["epoch"] for s in good["solutions"]] == [1, 2] and good["missing"] == []
    assert good["solutions"][1]["solution"] == solution(
        study, "arith-good_q_default", "a2", 2
    )
    assert {"stop_reason", "input_tokens", "output_tokens", "usd", "error"} <= set(
        good["solutions"][0]
    )
    grades = {g["slug"]: g for g in good["solutions"][0]["grades"]}
    assert set(grades) == {"j_r", "k_r", "scorer_numeric"}
    assert grades["j_r"]["kind"] == "judge" and grades["j_r"]["reasoning"].startswith(
        "The final answer"
    )
    assert (
        grades["k_r"]["parse_ok"] is False
        and grades["k_r"]["parse_error"]
        and grades["k_r"]["score"] is None
    )
    assert (
        grades["scorer_numeric"]["explanation"]
        and grades["scorer_numeric"]["stale"] is False
    )
    failed = by_slug["fail_p_default"]["solutions"]
    assert all(
        "injected failure" in s["error"] and s["solution"] is None and s["grades"] == []
        for s in failed
    )


def test_failures_json_is_one_document_per_condition(study, capsys):
    code, out, _ = show(
        capsys,
        study,
        "--condition",
        "k_r",
        "--condition",
        "fail_q",
        "--failures",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["view"] == "failures" and data["item_id"] is None
    assert [
        (c["slug"], c["stage"], len(c["failures"])) for c in data["conditions"]
    ] == [("fail_q_default", "generate", 10), ("k_r", "grade", 20)]
    first = data["conditions"][1]["failures"][0]
    assert (
        first["kind"] == "parse_failure"
        and first["gen_condition_slug"] == "arith-good_p_default"
    )
    assert set(first) == {
        "item_id",
        "epoch",
        "kind",
        "message",
        "gen_condition_id",
        "gen_condition_slug",
    }


def test_terminal_output_fits_80_columns_and_wraps_long_texts_whole(
    study, capsys, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv(
        "TTY_COMPATIBLE", "1"
    )  # render as for a terminal: its width, not the wide pipe default
    outputs = [
        ANSI.sub("", show(capsys, study, *args)[1])
        for args in (
            ("a5",),
            ("a2",),
            ("--failures",),
            ("--failures", "--condition", "k_r"),
        )
    ]
    for out in outputs:
        assert out.strip() and max(len(line) for line in out.splitlines()) <= 80
        assert "…" not in out
    flat = " ".join(outputs[0].split())
    assert " ".join(LONG["question"].split()) in flat  # the input, wrapped, not cut
    assert " ".join(f"Q: {LONG['question']}".split()) in flat  # and the rendered prompt
    assert "replication 1" in outputs[0] and "replication 2" in outputs[0]
