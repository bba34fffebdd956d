"""The view's app through HTTP (Starlette's test client): the token, the host check,
escaping of a hostile study, 4xx for malformed requests, and the items table's
filters."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from starlette.testclient import TestClient

from itemeval.cli import main
from itemeval.results.label_queue import QueueOptions
from itemeval.store import upsert
from itemeval.view import LabelSettings, ViewSettings, create_app
from itemeval.view.data import ItemQuery, item_table, query_items
from tests import view_study

HOSTILE = [
    "<script>alert('x')</script>",
    '<img src=x onerror="alert(1)">',
    '<a href="javascript:alert(1)">click</a>',
    "before\x00after NUL",
    '"><svg onload=alert(1)>',
]
BIG = "A" * 1_000_000 + "<script>alert('big')</script>"


def _client(study, label: LabelSettings | None = None) -> tuple[TestClient, str]:
    settings = ViewSettings(label=label)
    client = TestClient(create_app(study, settings), base_url="http://127.0.0.1")
    return client, settings.token


@pytest.fixture()
def hostile(tmp_path):
    """Items, metadata, answers and judge reasoning full of markup, a NUL byte and a 1
    MB reply."""
    items = view_study.rows(len(HOSTILE), text=lambda i: HOSTILE[i])
    for row, text in zip(items, HOSTILE):
        row["difficulty"] = text
        row["answer"] = text
    _, study = view_study.build(
        tmp_path / "h",
        items,
        answer=lambda c, row: (
            BIG if row["qid"] == "q00000" and c == 0 else row["question"]
        ),
        scores=lambda g, c, row, text: float(g),
    )
    return study


def _inert(html: str) -> None:
    """No markup from the study survives as markup: only our own script tag, no handler
    attributes, no javascript: URLs."""
    assert re.findall(r"<script[^>]*>", html) == [
        '<script src="/static/view.js" defer>'
    ] or ("<script" not in html)
    assert not re.search(r"<[^>]+\son\w+\s*=", html)
    assert "javascript:" not in re.sub(r"&[^;]+;|[^<]*", "", html)  # never inside a tag
    assert not re.search(r"""href=["']?javascript:""", html)
    assert "<img" not in html and "<svg" not in html


def test_a_hostile_study_renders_inert(hostile):
    client, token = _client(
        hostile, LabelSettings(rater="eve", queue=QueueOptions(seed=0))
    )
    pages = {
        "grid": client.get(f"/?token={token}"),
        "items": client.get("/items"),
        "items-filtered": client.get(
            "/items", params={"meta_key": "difficulty", "meta_value": HOSTILE[0]}
        ),
    }
    for row in view_study.rows(len(HOSTILE), text=lambda i: HOSTILE[i]):
        pages[row["qid"]] = client.get("/item", params={"id": row["qid"]})
    for position in range(2 * len(HOSTILE)):
        pages[f"label-{position}"] = client.get("/label", params={"at": position})
    for name, response in pages.items():
        assert response.status_code == 200, name
        _inert(response.text)
    assert pages["items-filtered"].text.count('class="item-link"') == 1
    item = pages["q00000"].text
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in item
    assert (
        "&lt;script&gt;alert(&#39;big&#39;)&lt;/script&gt;" in item
    )  # the whole 1 MB reply is there
    assert len(item) > 1_000_000
    assert len(pages["items"].text) < 50_000  # the table shows snippets
    nul = pages["q00003"].text
    assert "before\u2400after" in nul and "\x00" not in nul
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in pages["q00001"].text


def test_every_page_needs_the_token_and_writes_need_a_post_carrying_it(hostile):
    client, token = _client(hostile, LabelSettings(rater="eve"))
    assert client.get("/").status_code == 403
    assert client.get("/items?token=wrong").status_code == 403
    assert client.get(f"/?token={token}").status_code == 200
    assert client.get("/items").status_code == 200  # the cookie the first visit set
    body = {"position": 1, "score": 1}
    assert client.post("/api/label", json=body).status_code == 403  # cookie alone: no
    assert (
        client.post(
            "/api/label", json=body, headers={"X-Itemeval-Token": "x"}
        ).status_code
        == 403
    )
    assert (
        client.get("/api/label", headers={"X-Itemeval-Token": token}).status_code == 403
    )
    refused = client.post(f"/api/label?token={token}", json=body)
    assert refused.status_code == 403 and "token" in refused.json()["error"]
    written = client.post("/api/label", json=body, headers={"X-Itemeval-Token": token})
    assert written.status_code == 200, written.text
    assert written.json()["stored_in"] == "store"
    rebinding = client.get(f"/?token={token}", headers={"Host": "evil.example:8000"})
    assert rebinding.status_code == 403


def test_a_blind_view_serves_the_queue_alone(hostile):
    """The grid, the items and an item's page name each condition beside its answer
    and show the judges' verdicts: a blind rater gets none of them."""
    client, token = _client(
        hostile, LabelSettings(rater="eve", queue=QueueOptions(seed=0, blind=True))
    )
    label = client.get(f"/label?token={token}")
    assert label.status_code == 200
    assert 'href="/items"' not in label.text and 'href="/"' not in label.text
    for path in ("/", "/items", "/item?id=q00001"):
        refused = client.get(path)
        assert refused.status_code == 403, path
        assert "a blind labelling view shows only /label" in refused.text
        assert "q00001" not in refused.text


def test_pages_refuse_other_methods_with_403_and_each_port_keeps_its_cookie(hostile):
    client, token = _client(hostile, LabelSettings(rater="eve"))
    assert client.get(f"/?token={token}").status_code == 200
    header = {"X-Itemeval-Token": token}
    for path in ("/", "/label", "/items"):
        refused = client.post(f"{path}?token={token}", headers=header)
        assert refused.status_code == 403, path
    # cookies are shared by every port of a host: the name carries the port, so a
    # second view beside this one does not overwrite its token
    assert set(client.cookies.keys()) == {"itemeval_token_80"}
    other, other_token = _client(hostile)
    other.base_url = "http://127.0.0.1:8123"
    assert other.get(f"/?token={other_token}").status_code == 200
    assert set(other.cookies.keys()) == {"itemeval_token_8123"}


def test_malformed_requests_are_4xx_pages_not_tracebacks(hostile):
    client, token = _client(hostile, LabelSettings(rater="eve"))
    client.get(f"/?token={token}")
    header = {"X-Itemeval-Token": token}
    cases = {
        "/items?page=abc": 400,
        "/items?page=0": 400,
        "/items?score_min=nan": 400,
        "/items?sort=%3Cscript%3E": 400,
        "/item": 400,
        "/item?id=%3Cscript%3Enope": 404,
        "/label?at=999": 400,
        "/nowhere": 404,
        "/static/../app.py": 404,
        "/static/%2e%2e/app.py": 404,
        "/static/..%2fapp.py": 404,
    }
    for url, status in cases.items():
        response = client.get(url)
        assert response.status_code == status, url
        assert "Traceback" not in response.text and "<script>nope" not in response.text
    for body in [
        b"not json",
        b"{}",
        b'{"position": 99, "score": 1}',
        b'{"position": "1", "score": 1}',
    ]:
        response = client.post("/api/label", content=body, headers=header)
        assert response.status_code == 400, body
    key = {"position": 2}
    for score in [7, "1", None, True]:
        assert (
            client.post(
                "/api/label", json={**key, "score": score}, headers=header
            ).status_code
            == 400
        )
    plain, plain_token = _client(hostile)
    assert plain.get(f"/label?token={plain_token}").status_code == 404


@pytest.fixture()
def graded(tmp_path):
    """12 items; condition 0 answers right, condition 1 wrong on items 0-5; the scorer
    is right, the judge passes everything; item 7 has a parse failure and item 9 a
    generate error under condition 1."""
    items = view_study.rows(12)

    def answer(c, row):
        i = int(row["qid"][1:])
        if c == 1 and i == 9:
            return None
        return f"ANSWER: {int(row['answer']) + (1 if c == 1 and i < 6 else 0)}"

    def scores(g, c, row, text):
        if g == 1 and int(row["qid"][1:]) == 7 and c == 1:
            return None
        return 1.0 if g == 0 else float(text.endswith(" " + row["answer"]))

    return view_study.build(tmp_path / "g", items, answer, scores)[1]


def _ids(table, **query) -> list[str]:
    rows, total = query_items(table, ItemQuery(**query))
    assert total == len(rows)
    return list(rows["item_id"])


def test_the_items_filters(graded):
    table = item_table(graded)
    wrong = [f"q{i:05d}" for i in range(6)]
    weak = graded.generate[1].id
    scorer = graded.grade[1].id
    assert _ids(table, disagree=True) == wrong
    assert _ids(table, disagree=True, condition=graded.generate[0].id) == []
    assert _ids(table, condition=weak, grade=scorer, score_max=0.0) == wrong
    assert _ids(table, parse_failure=True) == ["q00007"]
    assert _ids(table, error=True) == ["q00009"]
    assert _ids(table, meta_key="difficulty", meta_value="hard") == [
        "q00000",
        "q00003",
        "q00006",
        "q00009",
    ]
    ranked = _ids(table, grade=scorer, sort="score")
    assert ranked[:6] == wrong and len(ranked) == 12
    page, total = query_items(table, ItemQuery(page=2))
    assert total == 12 and page.empty


def test_the_pages_show_the_results_and_the_item(graded):
    client, token = _client(graded)
    grid = client.get(f"/?token={token}").text
    assert "arith-weak_p_default" in grid and "scorer_numeric" in grid
    assert 'id="agreement"' in grid
    page = client.get("/items", params={"disagree": "1"}).text
    assert page.count('class="item-link"') == 6
    item = client.get("/item", params={"id": "q00002"}).text
    assert item.count('class="text answer"') == 2
    assert "ANSWER: 4" in item and "ANSWER: 3" in item
    assert "because ANSWER: 4" in item  # the judge's reasoning
    a, b = sorted(c.id for c in graded.generate)
    verdict = {
        "grade_condition_id": "pw--0123456789ab",
        "condition_a": a,
        "condition_b": b,
        "item_id": "q00002",
        "epoch": 1,
        "order": 1,
        "winner": a,
        "parse_ok": True,
        "reasoning": "<b>A</b> is right",
    }
    upsert(graded.paths, "pairwise", [verdict])
    item = client.get("/item", params={"id": "q00002"}).text
    assert 'id="pairwise"' in item and "&lt;b&gt;A&lt;/b&gt; is right" in item


def test_a_rubric_with_criteria_gets_one_score_per_criterion(tmp_path):
    rubric = "---\ncriteria: [accuracy, clarity]\n---\n" + view_study.RUBRIC.replace(
        "Score 1 if right, else 0.", "Score each criterion from 1 to 5."
    )
    _, study = view_study.build(
        tmp_path / "c",
        view_study.rows(3),
        answer=lambda c, row: "ANSWER: 1",
        scores=lambda g, c, row, text: 1.0,
        rubric=rubric,
    )
    client, token = _client(study, LabelSettings(rater="cat"))
    page = client.get(f"/label?token={token}").text
    assert page.count('class="criterion"') == 2 and "score-button" not in page
    header = {"X-Itemeval-Token": token}
    bad = {"position": 0, "criteria": {"accuracy": 4}}
    assert client.post("/api/label", json=bad, headers=header).status_code == 400
    good = {"position": 0, "criteria": {"accuracy": 4, "clarity": 5}}
    assert client.post("/api/label", json=good, headers=header).status_code == 200
    grades = pd.read_parquet(study.paths.grades)
    label = grades[grades["grade_kind"] == "human"].iloc[0]
    assert label["score"] == 9.0  # the total, as a judge's score under the rubric
    assert json.loads(label["score_metadata"]) == {
        "criteria": {"accuracy": 4, "clarity": 5}
    }


def test_view_refuses_a_bad_label_setup_before_it_serves(graded, capsys):
    config = str(graded.loaded.path)
    assert main(["view", config, "--label"]) == 2
    assert "--rater" in capsys.readouterr().err
    assert main(["view", config, "--label", "--rater", "Bad Name"]) == 2
    assert main(["view", config, "--label", "--rater", "al", "--rubric", "nope"]) == 2
    assert main(["view", config, "--label", "--rater", "al", "--scale", "9-2"]) == 2
    assert main(["view", config, "--label", "--rater", ""]) == 2
    assert "--label needs --rater" in capsys.readouterr().err
    # options of the labelling queue without --label would be silently ignored
    for extra in (["--sample", "5"], ["--blind"], ["--rater", "al", "--rubric", "r"]):
        assert main(["view", config, *extra]) == 2, extra
        err = capsys.readouterr().err
        assert f"{extra[0]}" in err and "add --label" in err
    assert "itemeval view: http" not in capsys.readouterr().out


def test_an_item_page_names_each_transcript_where_it_is(hostile):
    """A generated answer's log is in the study's generate logs; an imported one's
    stays where it was imported from (its absolute path)."""
    rows = [
        {**view_study.solution_row(hostile, 0, "q00001", 1, "x"), "log_file": "a.eval"},
        {
            **view_study.solution_row(hostile, 1, "q00001", 1, "y"),
            "log_file": "/elsewhere/logs/b.eval",
        },
    ]
    upsert(hostile.paths, "solutions", rows)
    client, token = _client(hostile)
    page = client.get(f"/item?id=q00001&token={token}").text
    generated = hostile.paths.root / "logs" / "generate"
    assert f"inspect view --log-dir {generated}</code> (file <code>a.eval" in page
    assert "inspect view --log-dir /elsewhere/logs</code> (file <code>b.eval" in page


@pytest.mark.parametrize(
    "body",
    [
        '{"position": 0, "score": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"position": ' + "9" * 5000 + ', "score": 1}',
        '{"position": 0, "score": 1e999}',
        '{"position": 0, "score": -1e308}',
    ],
)
def test_a_hostile_label_body_is_a_400_and_writes_nothing(tmp_path, body):
    _, study = view_study.build(
        tmp_path / "h",
        view_study.rows(2),
        answer=lambda c, row: "ANSWER: 1",
        scores=lambda g, c, row, text: 1.0,
    )
    client, token = _client(study, LabelSettings(rater="cat"))
    client.get(f"/label?token={token}")
    response = client.post(
        "/api/label",
        content=body,
        headers={"X-Itemeval-Token": token, "Content-Type": "application/json"},
    )
    assert response.status_code == 400, response.text
    grades = pd.read_parquet(study.paths.grades)
    assert (grades["grade_kind"] != "human").all()
