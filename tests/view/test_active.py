"""The active labelling queue through the real view app (issue 54): it draws where
the judge errs, writes each label with the probability it was drawn with, and
`results` corrects the judge by the inverse-probability-weighted estimate."""

from __future__ import annotations

import json
import re

import pytest
from starlette.testclient import TestClient

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.results.label_queue import QueueOptions
from itemeval.results.labels import human_condition, pick_rubric
from itemeval.stats.active_ppi import SHARE
from itemeval.store import read_store
from itemeval.view import LabelSettings, ViewSettings, create_app
from tests import view_study

LABELS = 30


def _truth(study, condition_id: str, item_id: str) -> float:
    """The rater's verdict: the first condition is always right; the second only on
    odd items (where the judge, which passes everything, is wrong half the time)."""
    return float(condition_id == study.generate[0].id or int(item_id[1:]) % 2 == 1)


@pytest.fixture()
def study(tmp_path):
    """Two conditions x 40 items; the judge passes every answer."""
    _, study = view_study.build(
        tmp_path / "s",
        view_study.rows(40),
        answer=lambda c, row: f"ANSWER: {row['answer']}",
        scores=lambda g, c, row, text: 1.0,
    )
    return study


def _client(study, **queue):
    settings = ViewSettings(
        label=LabelSettings(rater="alice", queue=QueueOptions(active=True, **queue))
    )
    client = TestClient(create_app(study, settings), base_url="http://127.0.0.1")
    client.get(f"/?token={settings.token}")  # sets the cookie
    return client, {"X-Itemeval-Token": settings.token}


def _label_all(study, client, header, count):
    """Label `count` answers as the queue draws them, with the rater's truth."""
    keys = {(c.id, c.slug) for c in study.generate}
    slugs = {slug: gen_id for gen_id, slug in keys}
    for _ in range(count):
        page = client.get("/label")
        assert page.status_code == 200, page.text
        assert "active queue" in page.text
        position = int(re.search(r'id="progress" data-position="(\d+)"', page.text)[1])
        slug = re.search(r'id="condition">condition: ([^ ]+) ', page.text)[1]
        item = re.search(r"What is (\d+) \+ 1\?", page.text)[1]
        truth = _truth(study, slugs[slug], f"q{int(item):05d}")
        written = client.post(
            "/api/label", json={"position": position, "score": truth}, headers=header
        )
        assert written.status_code == 200, written.text


def _labels(study):
    condition = human_condition("alice", pick_rubric(study, None))
    return read_store(
        study.paths, "grades", where={"grade_condition_id": [condition.id]}
    ).to_pylist()


def test_the_active_queue_draws_where_the_judge_errs_and_stores_each_probability(
    study, capsys
):
    client, header = _client(study, seed=3)
    _label_all(study, client, header, LABELS)
    rows = _labels(study)
    assert len(rows) == LABELS  # every label a distinct answer: a re-draw is free
    draws = [d for row in rows for d in json.loads(row["score_metadata"])["draws"]]
    assert len(draws) >= LABELS
    assert all(d["p"] >= SHARE / 80 - 1e-12 and d["pool"] == 80 for d in draws)
    assert {d["n_cell"] for d in draws} == {40}
    assert {d["judge"] for d in draws} == {study.grade[0].id}
    assert all(json.loads(r["score_metadata"])["design"] == "active" for r in rows)
    where = [r["gen_condition_id"] for r in rows]
    # where the judge errs, the queue labels more
    assert where.count(study.generate[1].id) > where.count(study.generate[0].id)
    # the answers the judge is right on were drawn with a lower probability
    by_cell = {
        gen: [
            d["p"]
            for r in rows
            if r["gen_condition_id"] == gen
            for d in json.loads(r["score_metadata"])["draws"]
        ]
        for gen in (study.generate[0].id, study.generate[1].id)
    }
    assert min(by_cell[study.generate[1].id]) > max(by_cell[study.generate[0].id][3:])

    config = study.loaded.path
    assert main(["results", str(config), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    corrected = [
        r for r in report["corrected"] if r["grade_condition_id"] == study.grade[0].id
    ]
    assert {r["design"] for r in corrected} == {"active"}
    assert {r["method"] for r in corrected} == {"ppi++-ipw"}
    assert sum(r["n_labelled"] for r in corrected) == LABELS
    for row in corrected:
        assert row["n_judged"] == 40
        assert isinstance(row["labels_saved"], int)
        assert row["ci_low"] <= row["mean"] <= row["ci_high"]
    wrong = next(r for r in corrected if r["gen_condition_id"] == study.generate[1].id)
    assert wrong["mean"] < 0.8  # corrected down from the judge's 1.0, truth 0.5
    assert main(["results", str(config)]) == 0
    out = capsys.readouterr().out
    assert "active" in out.split("corrected by human labels", 1)[1]
    html_path = study.paths.root / "report.html"
    assert main(["report", str(config), "--out", str(html_path)]) == 0
    html = html_path.read_text(encoding="utf-8")
    assert "labels saved" in html and ">active<" in html


def test_a_skip_drops_the_draw_and_back_relabels_without_a_new_one(study):
    client, header = _client(study, seed=1)
    first = client.get("/label").text
    assert 'data-position="0"' in first
    assert 'data-position="0"' in client.get("/label").text  # waits for its label
    skipped = client.get("/label?at=1").text  # skip: a new draw
    assert 'data-position="1"' in skipped
    assert (
        client.post(
            "/api/label", json={"position": 1, "score": 1}, headers=header
        ).json()["next"]
        == 2
    )
    assert (
        client.post(
            "/api/label", json={"position": 1, "score": 0}, headers=header
        ).status_code
        == 200
    )  # a re-label keeps its one draw
    (row,) = _labels(study)
    assert row["score"] == 0.0
    assert len(json.loads(row["score_metadata"])["draws"]) == 1
    assert client.get("/label?at=9").status_code == 400


def test_active_needs_a_judge_under_the_raters_rubric(study):
    settings = LabelSettings(
        rater="alice", queue=QueueOptions(active=True, judge="nobody")
    )
    with pytest.raises(ConfigError, match="--active-judge"):
        create_app(study, ViewSettings(label=settings))


def test_active_options_need_the_label_queue(study, capsys):
    config = str(study.loaded.path)
    assert main(["view", config, "--active"]) == 2
    assert "--active shape the labelling queue" in capsys.readouterr().err
    settings = LabelSettings(rater="alice", queue=QueueOptions(active=True, sample=5))
    with pytest.raises(ConfigError, match="--sample"):
        create_app(study, ViewSettings(label=settings))


def test_results_warn_when_the_judge_is_too_weak_to_help(study, capsys):
    """A judge that passes everything says nothing of the second condition's
    answers: its labels alone are about as good as corrected."""
    client, header = _client(study, seed=5)
    _label_all(study, client, header, 40)
    assert main(["results", str(study.loaded.path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    slugs = report["slugs"]
    judge = slugs[study.grade[0].id]
    weak = [n for n in report["notes"] if f"judge {judge} is too weak" in n]
    assert len(weak) == 1 and "alice" in weak[0]
    # the rater's own means are of a weighted draw, and results says so
    assert any("alice labelled from the active queue" in n for n in report["notes"])
    assert slugs[study.generate[1].id] in weak[0]
    assert slugs[study.generate[0].id] not in weak[0]
