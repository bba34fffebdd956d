"""`results --judges` and `results --variance` on a demo-like offline study: two
models, two prompts, two replications, a verifiable scorer and an offline judge."""

from __future__ import annotations

import json

import pytest

from itemeval.cli import main
from tests.helpers import base_config, write_study


@pytest.fixture(autouse=True)
def well_formed_judges(monkeypatch):
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")


def demo_like(tmp_path):
    config = base_config(
        **{
            "cache": False,
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__replications": 2,
            "facets__grader": ["j"],
            "facets__rubric": ["r"],
            "graders": {"j": {"model": "itemeval/judge", "max_tokens": 256}},
        }
    )
    return write_study(tmp_path, config)


def test_judges_and_variance_read_the_graded_study(tmp_path, capsys):
    config = str(demo_like(tmp_path))
    assert main(["generate", config, "--json"]) == 0
    assert main(["grade", config, "--json"]) == 0
    capsys.readouterr()
    assert main(["results", config, "--judges", "--variance", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)

    (card,) = data["judges"]
    assert card["slug"] == "j_r" and card["judge"] == "itemeval/judge"
    assert card["n"] == 16 and card["draws"] == 1  # no draws yet: one draw each
    assert card["icc"] is None and card["self_preference"] is None

    variance = data["variance"]
    assert variance["grading"] == ["j_r"]
    assert variance["facets"][:2] == ["item", "model"]
    components = [row["component"] for row in variance["rows"]]
    assert components[:2] == ["item", "model"] and components[-1] == "residual"
    assert sum(row["share"] for row in variance["rows"]) == pytest.approx(1.0)
    for row in variance["rows"]:
        assert row["ci_low"] <= row["share"] <= row["ci_high"]
    designs = variance["designs"]
    assert {
        "items",
        "prompts",
        "replications",
        "draws",
        "judges",
        "g",
        "usd",
        "calls",
    } <= set(designs[0])
    assert sum(d["cheapest"] for d in designs) <= 1

    assert main(["results", config, "--judges", "--variance"]) == 0
    text = capsys.readouterr().out
    assert "Judge reliability" in text and "Variance components" in text
    assert "G coefficient of the model ranking" in text


def test_the_card_reads_every_draw_of_a_judge(tmp_path, capsys):
    """results reduces a judge's draws per answer first; the card must not: its
    test-retest figures are made of the draws."""
    import yaml

    path = demo_like(tmp_path)
    config_data = yaml.safe_load(path.read_text())
    config_data["graders"]["j"]["draws"] = 3
    path.write_text(yaml.safe_dump(config_data, sort_keys=False))
    config = str(path)
    assert main(["generate", config, "--json"]) == 0
    assert main(["grade", config, "--json"]) == 0
    capsys.readouterr()
    assert main(["results", config, "--judges", "--json"]) == 0
    [card] = json.loads(capsys.readouterr().out)["judges"]
    # the offline judge is deterministic: three identical draws of every answer
    assert card["draws"] == 3 and card["icc"] == 1.0 and card["flip_rate"] == 0.0
    assert main(["report", config]) == 0
    [page] = (tmp_path / "studies" / "t" / "reports").glob("*.html")
    text = page.read_text()
    section = text[text.index("How far the judges can be trusted") :]
    assert "1.000 [1.000, 1.000]" in section[: section.index("</table>")]


def test_a_lead_decided_under_a_noisy_judge_is_marked_in_the_headline(
    tmp_path, capsys, monkeypatch
):
    """A judge whose draws of one answer disagree at random (ICC near 0): the headline
    of its grade condition says it is doubted, and why; the scorer's is not."""
    import hashlib

    import yaml
    from inspect_ai.model import _model

    from tests.openai_server import OpenAIServer

    def noisy(body):
        text = json.dumps(body["messages"]) + str(body.get("seed"))
        score = int(hashlib.sha256(text.encode()).hexdigest(), 16) % 4
        return f'```json\\n{{"score": {score}, "reasoning": "r"}}\\n```'

    with OpenAIServer(responder=noisy) as srv:
        for key, value in srv.env().items():
            monkeypatch.setenv(key, value)
        _model._models.clear()
        path = demo_like(tmp_path)
        data = yaml.safe_load(path.read_text())
        data["graders"]["j"] = {"model": "openai-api/local/j", "draws": 3}
        data["facets"]["scorer"] = "numeric"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        config = str(path)
        assert main(["generate", config, "--json"]) == 0
        assert main(["grade", config, "--json"]) == 0
        capsys.readouterr()
        assert main(["results", config, "--json"]) == 0
    _model._models.clear()
    headline = json.loads(capsys.readouterr().out)["headline"]
    judged = [row for row in headline if row["grade_condition_id"].startswith("j")]
    scored = [row for row in headline if row["grade_condition_id"].startswith("scorer")]
    assert judged and all("test-retest ICC" in (row["doubt"] or "") for row in judged)
    assert all("under a doubted judge" in row["text"] for row in judged)
    assert scored and all(row["doubt"] is None for row in scored)


def test_a_pairwise_judge_s_card_is_its_position_flip_rate(tmp_path, capsys):
    from tests.stages.grade.test_pairwise import offline_study

    config = str(offline_study(tmp_path))
    assert main(["generate", config, "--json"]) == 0
    assert main(["grade", config, "--json"]) == 0
    capsys.readouterr()
    assert main(["results", config, "--judges", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [card] = [c for c in data["judges"] if c.get("kind") == "pairwise"]
    flips = [row["flip_rate"] for row in data["pairwise"]]
    assert card["both_orders"] == sum(row["both_orders"] for row in data["pairwise"])
    assert card["position_flip_rate"] == pytest.approx(
        sum(f * row["both_orders"] for f, row in zip(flips, data["pairwise"]))
        / card["both_orders"]
    )
    assert main(["results", config, "--judges"]) == 0
    assert "Pairwise judges" in capsys.readouterr().out
