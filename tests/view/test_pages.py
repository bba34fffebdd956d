"""The view's pages as a researcher meets them (issue 48): a study graded by one
verifiable scorer, an item page's transcripts, explanations and diff picker, and the
labelling page's rubric and keys (the keys in a real browser, skipped where chromium
is not installed)."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from starlette.testclient import TestClient

from itemeval.cli import main
from itemeval.study.load import load_study
from itemeval.view import LabelSettings, ViewSettings, create_app
from tests.helpers import base_config, write_study
from tests.view.test_browser import ARGS, CHROMIUM, TIMEOUT_MS, Server, _ready

QUIET = ["--yes", "--display", "none"]
CRITERIA_RUBRIC = (
    "---\ncriteria: [correct, clear]\n---\n"
    "Problem: {input}\nReference: {target}\nAnswer:\n{solution}\n"
    "Score each criterion 0 or 1."
)


@pytest.fixture(scope="module")
def scorer_only(tmp_path_factory):
    root = tmp_path_factory.mktemp("scorer-only")
    config = write_study(root, base_config(facets__replications=2))
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0
    return load_study(config)


def _client(study, label=None):
    settings = ViewSettings(label=label)
    client = TestClient(create_app(study, settings), base_url="http://127.0.0.1")
    return client, settings.token


def test_the_items_page_of_a_study_graded_by_one_scorer_loads(scorer_only):
    client, token = _client(scorer_only)
    page = client.get("/items", params={"token": token})
    assert page.status_code == 200  # it was a 500 (a categorical compared with <)
    assert page.text.count('class="item-link"') == 4


def test_an_item_page_shows_each_explanation_once_and_diffs_two_answers(scorer_only):
    client, token = _client(scorer_only)
    page = client.get("/item", params={"token": token, "id": "a2"}).text
    # the scorer's explanation, once per replication (it showed twice: as the
    # reasoning and again as the explanation)
    assert len(re.findall(r">read -?[\d.]+, target 42\.0<", page)) == 2
    b = page.split('id="diff-b"', 1)[1].split("</select>", 1)[0]
    options = b.split("<option")[1:]
    assert "selected" not in options[0] and "selected" in options[1]


@pytest.fixture(scope="module")
def criteria_study(tmp_path_factory):
    root = tmp_path_factory.mktemp("criteria")
    config = write_study(
        root,
        base_config(
            facets__grader=["j"],
            facets__rubric=["r"],
            graders={"j": {"model": "itemeval/judge"}},
        ),
        rubric=CRITERIA_RUBRIC,
    )
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0
    return config


def test_the_labelling_page_shows_the_rubric_as_the_judge_reads_it(criteria_study):
    study = load_study(criteria_study)
    label = LabelSettings(rater="dana")
    client, token = _client(study, label)
    page = client.get("/label", params={"token": token}).text
    rubric = page.split('id="rubric">', 1)[1].split("</pre>", 1)[0]
    assert "criteria:" not in rubric and "---" not in rubric
    assert "{input}" not in rubric and "{solution}" not in rubric
    assert "Problem: What is" in rubric and "Reference: " in rubric


pytestmark_browser = pytest.mark.skipif(
    not os.path.exists(CHROMIUM) or shutil.which("chromium") is None,
    reason="chromium is not installed (apt-get install chromium)",
)


@pytestmark_browser
def test_enter_saves_the_criteria_from_a_focused_menu_and_paths_stay_in_their_column(
    criteria_study,
):
    sync_api = pytest.importorskip("playwright.sync_api")
    server = Server(criteria_study, blind=False, sample=None)
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(server.url.replace("/?", "/label?", 1))
            page.wait_for_selector(_ready(0))
            page.select_option("select[name=correct]", "1")
            page.focus("select[name=clear]")
            page.keyboard.press("Enter")  # a menu has the focus: Enter still saves
            page.wait_for_selector(_ready(1))
            assert "1 labelled" in page.locator("#progress").inner_text()
            page.goto(server.url.replace("/?", "/item?id=a1&", 1))
            column = page.locator(".condition").first.bounding_box()
            path = page.locator(".solution p.dim code").last.bounding_box()
            assert path["x"] + path["width"] <= column["x"] + column["width"] + 1
            browser.close()
    finally:
        server.kill()
