"""`itemeval report`: one self-contained HTML file, checked as written and, where
Chromium is installed, as a person sees it (headless screenshot not blank, no console
errors)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from itemeval.cli import main
from tests.helpers import base_config, write_study

ROWS = [
    {
        "qid": f"q{i}",
        "question": f"What is {i} + {i * 2}?",
        "answer": str(i * 3),
        "difficulty": ["easy", "hard"][i % 2],
    }
    for i in range(1, 9)
]


@pytest.fixture
def report(tmp_path, capsys) -> tuple[Path, dict]:
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__replications": 2,
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(tmp_path, config, rows=ROWS)
    assert main(["generate", str(path), "--yes", "--display", "none"]) == 0
    assert main(["grade", str(path), "--yes", "--display", "none"]) == 0
    capsys.readouterr()
    assert main(["report", str(path), "--json"]) == 0
    return path, json.loads(capsys.readouterr().out)


def test_the_report_is_one_self_contained_file_with_every_section(report):
    _, written = report
    page = Path(written["path"])
    assert (
        page.parent.name == "reports"
        and page.name.startswith("t-")
        and page.suffix == ".html"
    )
    assert written["sections"] == [
        "headline",
        "grid",
        "results",
        "forest",
        "marginals",
        "differences",
        "agreement",
        "difficulty",
        "items",
        "problems",
        "logs",
    ]
    text = page.read_text(encoding="utf-8")
    assert (
        "<script" not in text
        and "<link" not in text
        and "@import" not in text
        and "@font-face" not in text
    )
    addresses = set(re.findall(r"https?://[^\s\"'<>)]+", text))
    assert addresses <= {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xlink",
    }, addresses  # namespaces
    assert "inspect view --log-dir" in text
    # plots that are SVG (item difficulty), interval charts that are tables: the
    # forest, and one per facet that varies (model) and metadata column (difficulty)
    assert text.count("<svg") >= 1 and text.count('<div class="plot"><svg') >= 1
    assert text.count('<div class="ivl dot"><table>') == 1
    assert re.findall(
        r'<div class="ivl square"><table><caption>(.*?)</caption>', text
    ) == [
        "by model",
        "by difficulty",
    ]
    # the paired differences: one table per grade condition (numeric and the judge)
    assert text.count('<div class="heat"><table><caption>') == 2
    assert (
        "arith-good_p_default" in text and "scorer_numeric" in text and "95% CI" in text
    )


def test_graders_that_score_between_0_and_1_agree_in_a_scatter(tmp_path, capsys):
    """includes scores 0/1, rouge1 anything in between: their pair is a scatter plot
    (SVG), where two 0/1 graders get a confusion table."""
    config = base_config(**{"facets__scorer": ["includes", "rouge1"]})
    # a two-word target: rouge1 gives a right answer ("ANSWER: 6") 2/3 of "6 units"
    rows = [{**row, "answer": f"{row['answer']} units"} for row in ROWS]
    path = write_study(tmp_path, config, rows=rows)
    assert main(["generate", str(path), "--yes", "--display", "none"]) == 0
    assert main(["grade", str(path), "--yes", "--display", "none"]) == 0
    capsys.readouterr()
    assert main(["report", str(path), "--json"]) == 0
    text = Path(json.loads(capsys.readouterr().out)["path"]).read_text("utf-8")
    agreement = re.search(r'<section id="agreement">(.*?)</section>', text, re.S)
    assert agreement is not None
    assert agreement.group(1).count('<div class="plot"><svg') == 1
    assert 'class="confusion"' not in agreement.group(1)


def test_out_puts_the_report_where_asked(tmp_path, report, capsys):
    path, _ = report
    target = tmp_path / "elsewhere" / "r.html"
    assert main(["report", str(path), "--out", str(target)]) == 0
    assert target.is_file() and str(target) in capsys.readouterr().err


@pytest.mark.skipif(
    shutil.which("chromium") is None,
    reason="needs Debian's chromium (apt-get install -y chromium)",
)
def test_the_report_renders_in_headless_chromium(report, tmp_path):
    import matplotlib.image

    _, written = report
    shot = tmp_path / "shot.png"
    run = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,2400",
            f"--screenshot={shot}",
            Path(written["path"]).as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]
    assert not [line for line in run.stderr.splitlines() if "CONSOLE" in line], (
        run.stderr[-2000:]
    )
    pixels = matplotlib.image.imread(shot)
    assert pixels.std() > 0.05  # text, tables and plots, not a blank page
    assert (
        pixels[..., :3].mean(axis=2) < 0.5
    ).mean() > 0.005  # some dark ink on the page


def test_the_report_lists_the_items_the_item_analysis_flags(report):
    _, written = report
    text = Path(written["path"]).read_text(encoding="utf-8")
    assert "Items worth a look" in text and "items flagged" in text
