"""`itemeval view` in a real browser (Debian's chromium through Playwright): the grid,
the items filter, one item's word diff, ten labels given blind with the keyboard, a
SIGKILLed server, and the labels found again and measured against the judge in
`results`. Skipped where chromium is not installed."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.results.label_queue import QueueOptions, label_queue
from itemeval.study.load import load_study
from tests.helpers import base_config, write_study

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason="chromium is not installed (apt-get install chromium)",
)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROWS = [
    {
        "qid": f"b{i:02d}",
        "question": f"What is {i} + {i * 3}?",
        "answer": str(4 * i),
        "difficulty": "easy",
    }
    for i in range(1, 9)
]
# No reference line: the offline judge cannot compare, so it guesses, and often differs
# from the scorer.
RUBRIC = "Problem: {input}\nCandidate solution:\n{solution}\nScore 1 if right, else 0."
SAMPLE, SEED, LABELLED = 14, 3, 10
TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(root, config, rows=ROWS, rubric=RUBRIC)
    base = ["--yes", "--display", "none"]
    assert main(["generate", str(path), *base]) == 0
    assert main(["grade", str(path), *base]) == 0
    return path


class Server:
    """`python -m itemeval view ...` as a child process; its first stdout line is the
    URL."""

    def __init__(
        self, config: Path, *, blind: bool = True, sample: int | None = SAMPLE
    ) -> None:
        command = [
            sys.executable,
            "-m",
            "itemeval",
            "view",
            str(config),
            "--label",
            "--rater",
            "alice",
        ]
        command += ["--blind"] if blind else []
        if sample is not None:
            command += ["--sample", str(sample), "--seed", str(SEED)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: lines.put(self.process.stdout.readline()), daemon=True
        ).start()
        try:
            line = lines.get(timeout=120)
        except queue.Empty:
            self.kill()
            pytest.fail("itemeval view printed no URL in 120 s")
        assert line.startswith("itemeval view: http://127.0.0.1:"), (
            line + self.process.stderr.read()
        )
        self.url = line.split(": ", 1)[1].strip()
        self.base = self.url.split("/?", 1)[0]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


@pytest.fixture()
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


def _ready(position: int) -> str:
    """The labelling form at `position`, once its script listens for keys."""
    return f'#label-form[data-position="{position}"][data-ready="1"]'


def _human_labels(config: Path) -> pd.DataFrame:
    grades = pd.read_parquet(load_study(config).paths.grades)
    labels = grades[grades["grade_kind"] == "human"]
    return labels.sort_values(["gen_condition_id", "item_id", "epoch"]).reset_index(
        drop=True
    )


def _disagreeing_items(config: Path) -> set[str]:
    grades = pd.read_parquet(load_study(config).paths.grades)
    wide = grades.pivot_table(
        index=["gen_condition_id", "item_id", "epoch"],
        columns="grade_condition_slug",
        values="score",
    ).dropna()
    split = wide[wide.nunique(axis=1) > 1]
    return set(split.index.get_level_values("item_id"))


def test_look_label_blind_kill_restart_and_measure(study, browser, capsys):
    errors: list[str] = []
    server = Server(study, blind=False)  # to look around: a blind view shows no grid
    try:
        page = browser.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on(
            "console", lambda m: errors.append(m.text) if m.type == "error" else None
        )
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url)
        assert (
            page.locator("#cells tbody tr").count() == 2 * 2 + 0
        )  # 2 conditions x judge, scorer
        assert "scorer_numeric" in page.locator("#cells").inner_text()

        # the items, filtered to where the judge and the scorer disagree
        page.click("text=items")
        page.check("input[name=disagree]")
        page.click("#apply")
        page.wait_for_url("**/items?**disagree=1**")
        expected = _disagreeing_items(study)
        assert expected, "the guessing judge should disagree with the scorer somewhere"
        links = page.locator("a.item-link")
        assert sorted(links.all_inner_texts()) == sorted(expected)

        # one item: diff the two conditions' answers
        links.first.click()
        page.wait_for_url("**/item?id=**")
        options = page.locator("#diff-a option")
        assert options.count() == 2
        page.wait_for_selector('body[data-ready="1"]')
        page.select_option("#diff-a", index=0)
        page.select_option("#diff-b", index=1)
        page.click("#diff-button")
        answers = page.locator("pre.answer").all_text_contents()
        kept = "".join(page.locator("#diff > span, #diff > del").all_text_contents())
        added = "".join(page.locator("#diff > span, #diff > ins").all_text_contents())
        assert (kept, added) == (answers[0], answers[1])

    finally:
        server.kill()
    server = Server(study)
    try:
        page = browser.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(TIMEOUT_MS)
        # a blind view serves the queue alone: the item page would name each
        # condition beside its answer and show the judge's verdict
        for path in ("/", "/items", "/item?id=q01"):
            looked = page.goto(
                server.url.replace("/?", path + ("&" if "?" in path else "?"), 1)
            )
            assert looked is not None and looked.status == 403, path
        # ten labels, blind, with the keyboard (one skip and one undo on the way)
        page.goto(server.url.replace("/?", "/label?"))
        page.wait_for_selector(_ready(0))
        assert (
            page.locator("#condition").count() == 0
        )  # blind: the condition is never shown
        scores = {}
        position = 0
        while len(scores) < LABELLED:
            form = page.locator("#label-form")
            assert form.get_attribute("data-position") == str(position)
            if (
                position == 3
                and 3 not in scores
                and not getattr(page, "_skipped", False)
            ):
                page._skipped = True
                page.keyboard.press("s")
                page.wait_for_selector(_ready(4))
                page.keyboard.press("u")
                page.wait_for_selector(_ready(3))
            score = position % 2
            page.keyboard.press(str(score))
            scores[position] = score
            position += 1
            page.wait_for_selector(_ready(position))
    finally:
        server.kill()  # mid-queue: 4 answers of the sample are still unlabelled
    assert not errors, errors

    queue_ = label_queue(load_study(study), QueueOptions(sample=SAMPLE, seed=SEED))
    wanted = queue_.head(LABELLED).assign(
        score=[float(scores[i]) for i in range(LABELLED)]
    )
    wanted = wanted.rename(columns={"condition_id": "gen_condition_id"})
    wanted = wanted.sort_values(["gen_condition_id", "item_id", "epoch"]).reset_index(
        drop=True
    )

    restarted = Server(study, blind=False)  # the same queue, and the grid to look at
    try:
        page = browser.new_page()
        page.goto(restarted.url.replace("/?", "/label?"))
        assert page.locator("#progress").inner_text().endswith(f"{LABELLED} labelled")
        assert page.locator("#label-form").get_attribute("data-position") == str(
            LABELLED
        )
        found = _human_labels(study)
        assert found[["gen_condition_id", "item_id", "epoch", "score"]].equals(
            wanted[["gen_condition_id", "item_id", "epoch", "score"]]
        )
        assert set(found["grade_condition_slug"]) == {"human-alice"}
        page.goto(restarted.base + "/")
        assert "human-alice" in page.locator("#agreement").inner_text()
    finally:
        restarted.kill()

    # results: the judge against alice, recomputed from the export
    capsys.readouterr()
    assert main(["export", str(study)]) == 0
    assert main(["results", str(study), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    long = pd.read_parquet(load_study(study).paths.export / "grades_long.parquet")
    wide = long.pivot_table(
        index=["gen_condition_id", "item_id", "epoch"],
        columns="grade_condition_slug",
        values="score",
    )
    slugs = report["slugs"]
    row = next(
        r
        for r in report["agreement"]
        if {slugs[r["a"]], slugs[r["b"]]} == {"j_r", "human-alice"}
    )
    a, b = wide[slugs[row["a"]]], wide[slugs[row["b"]]]
    both = a.notna() & b.notna()
    assert wide["human-alice"].notna().sum() == LABELLED
    assert (
        row["n"] == both.sum() > 0
    )  # the labelled answers the judge scored (not a parse failure)
    assert row["exact"] == pytest.approx((a[both] == b[both]).mean())
    assert row["bias"] == pytest.approx((a[both] - b[both]).mean())
    assert {row["kind_a"], row["kind_b"]} == {"judge", "human"}
