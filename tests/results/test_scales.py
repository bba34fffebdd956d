"""Scales kept apart (issue 48): exact agreement and bias only between grade
conditions on one scale, and the report's charts an axis per scale."""

from __future__ import annotations

import re

import pytest

from itemeval.cli import main
from tests.helpers import base_config, cli_json, write_study

QUIET = ["--yes", "--display", "none"]
CRITERIA = (
    "---\ncriteria: [correct, working, clear]\n---\n"
    "Problem: {input}\nReference: {target}\nAnswer:\n{solution}\nScore each 0 or 1."
)


@pytest.fixture(scope="module")
def two_scales(tmp_path_factory):
    """A 0/1 scorer, a 0/1 judge and a 0–3 judge (three criteria summed)."""
    root = tmp_path_factory.mktemp("scales")
    (root / "rubrics").mkdir(parents=True)
    (root / "rubrics" / "c.md").write_text(CRITERIA)
    config = write_study(
        root,
        base_config(
            solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
            facets__grader=["j"],
            facets__rubric=["r", "c"],
            graders={"j": {"model": "itemeval/judge"}},
        ),
    )
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0
    return config


def test_exact_agreement_and_bias_need_one_scale(two_scales, capsys):
    code, data, _ = cli_json(capsys, "results", str(two_scales), "--json")
    assert code == 0
    slug = {c: c.split("--")[0] for c in data["scales"]}
    assert sorted(data["scales"].values()) == ["0–1", "0–1", "up to 5"]
    for row in data["agreement"]:
        pair = {slug[row["a"]], slug[row["b"]]}
        if "j_c" in pair:  # the 0–3 judge beside a 0/1 grader
            assert row["common_scale"] is False
            assert (row["exact"], row["bias"]) == (None, None)
            assert row["spearman"] is not None
        else:
            assert row["common_scale"] is True and row["exact"] is not None
    code = main(["results", str(two_scales)])
    assert "different scales" in capsys.readouterr().out


def test_the_report_draws_each_scale_on_its_own_axis(two_scales, tmp_path):
    out = tmp_path / "report.html"
    assert main(["report", str(two_scales), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    forest = html.split('<section id="forest">', 1)[1].split("</section>", 1)[0]
    captions = re.findall(r"<caption>([^<]*)</caption>", forest)
    assert captions == [
        "mean score per item, 95% CI, scores 0–1",
        "mean score per item, 95% CI, scores up to 5",
    ]
    upto5 = forest.split("scores up to 5", 1)[1]
    assert "j_c" in upto5 and "scorer_numeric" not in upto5
    marginals = html.split('<section id="marginals">', 1)[1].split("</section>", 1)[0]
    assert "by model, scores 0–1" in marginals
    assert "by model, scores up to 5" in marginals
    agreement = html.split('<section id="agreement">', 1)[1].split("</section>", 1)[0]
    # every plot or confusion table under its own pair's caption
    assert agreement.count("<h3>") == agreement.count("vs")
    assert "different scales" in agreement
