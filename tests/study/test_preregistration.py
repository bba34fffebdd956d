"""The preregistration (issue 54): a declaration written once before the data, each
amendment a new file with its reason and time, an edit by hand caught, and `results`
marking each figure declared or not, through the real CLI on the offline models."""

from __future__ import annotations

import json

import pytest
import yaml

from itemeval.cli import main
from itemeval.errors import ConfigError
from itemeval.study.load import load_study
from itemeval.study.preregistration import (
    declarations,
    differences,
    folder,
    preregister,
)
from tests.helpers import base_config, write_study

QUIET = ["--yes", "--display", "none"]
MODELS = ["itemeval/arith-good", "itemeval/arith-fair", "itemeval/arith-weak"]


def _config(tmp_path, **analysis):
    config = base_config(solvers__models=MODELS)
    config["analysis"] = {"compare": [["arith-good", "arith-weak"]], **analysis}
    return write_study(tmp_path / "s", config)


def _edit(path, **analysis):
    config = yaml.safe_load(path.read_text())
    config["analysis"].update(analysis)
    path.write_text(yaml.safe_dump(config))


def _results(capsys, config, *extra):
    capsys.readouterr()
    assert main(["results", str(config), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "before, after, expected",
    [
        ({"analysis": {"alpha": 0.05}}, {"analysis": {"alpha": 0.05}}, []),
        (
            {"analysis": {"alpha": 0.05}},
            {"analysis": {"alpha": 0.01}},
            ["alpha: 0.05 -> 0.01"],
        ),
        (
            {"analysis": {"compare": [["a", "b"]]}, "items": {"hash": "x"}},
            {"analysis": {"compare": [["a", "c"]]}, "items": {"hash": "y"}},
            ['compare: [["a", "b"]] -> [["a", "c"]]', 'items.hash: "x" -> "y"'],
        ),
    ],
)
def test_differences_name_each_changed_field(before, after, expected):
    assert differences(before, after) == expected


def test_a_declaration_is_written_once_and_amended_by_new_files(tmp_path):
    study = load_study(_config(tmp_path))
    first = preregister(study)
    assert first.path.parent == folder(study)
    assert first.path.name.endswith("-declaration.json")
    assert first.body["after_data"] is False
    assert first.body["analysis"]["compare"] == [["arith-good", "arith-weak"]]
    assert first.body["items"]["count"] == len(study.items)
    text = first.path.read_bytes()
    with pytest.raises(ConfigError, match="never rewritten"):
        preregister(study)
    with pytest.raises(ConfigError, match="--reason"):
        preregister(study, amend=True)
    with pytest.raises(ConfigError, match="edit `analysis:` first"):
        preregister(study, amend=True, reason="no change")
    _edit(study.loaded.path, alpha=0.01)
    amended = preregister(load_study(study.loaded.path), amend=True, reason="tighter")
    assert amended.body["changes"] == ["alpha: 0.05 -> 0.01"]
    assert amended.body["previous"] == {
        "file": first.path.name,
        "sha256": first.body["sha256"],
    }
    assert first.path.read_bytes() == text  # the declaration is as written
    assert [d.kind for d in declarations(study)] == ["declaration", "amendment"]


def test_an_edited_file_is_caught(tmp_path):
    study = load_study(_config(tmp_path))
    written = preregister(study)
    body = json.loads(written.path.read_text())
    body["analysis"]["alpha"] = 0.2
    written.path.write_text(json.dumps(body))
    with pytest.raises(ConfigError, match="edited after it was written"):
        declarations(study)


def test_a_bad_analysis_is_a_config_error(tmp_path):
    config = _config(tmp_path, compare=[["arith-good"]])
    assert main(["preregister", str(config)]) == 2
    config = _config(tmp_path, alpha=1.5)
    assert main(["preregister", str(config)]) == 2


def test_results_mark_the_declared_figures_and_an_amendment_after_the_data(
    tmp_path, capsys
):
    config = _config(tmp_path)
    assert main(["preregister", str(config)]) == 0
    assert "declaration written" in capsys.readouterr().out
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0

    report = _results(capsys, config)
    block = report["preregistration"]
    assert block["drift"] == [] and block["options"] == []
    (pair,) = report["comparisons"]  # the declared family, without --compare
    slugs = report["slugs"]
    assert {slugs[pair["a"]], slugs[pair["b"]]} == {
        "arith-good_p_default",
        "arith-weak_p_default",
    }
    assert pair["declared"] is True
    assert all(c["declared"] is True for c in report["cells"])
    assert all(h["declared"] is False for h in report["headline"])
    everything = _results(capsys, config, "--variance", "--judges")
    assert everything["variance"]["rows"]
    for name, value in everything.items():
        if name == "preregistration":
            continue
        for rows in value.values() if isinstance(value, dict) else [value]:
            if isinstance(rows, list) and rows and isinstance(rows[0], dict):
                assert all(isinstance(r["declared"], bool) for r in rows), name

    # an ad hoc comparison is exploratory
    ad_hoc = _results(capsys, config, "--compare", "arith-good", "arith-fair")
    assert [c["declared"] for c in ad_hoc["comparisons"]] == [False]
    # figures made another way than declared are not the declared ones
    other = _results(capsys, config, "--ci", "t")
    assert not any(c["declared"] for c in other["cells"])
    assert any("every figure here is exploratory" in n for n in other["notes"])

    # the declared comparison edited after the data: a loud note until amended
    _edit(config, compare=[["arith-good", "arith-fair"]])
    drifted = _results(capsys, config)
    assert drifted["preregistration"]["drift"] == [
        'compare: [["arith-good", "arith-weak"]] -> [["arith-good", "arith-fair"]]'
    ]
    assert any("amend it" in n for n in drifted["notes"])
    (still,) = drifted["comparisons"]  # the declaration in force decides
    assert {still["a"], still["b"]} == {pair["a"], pair["b"]}
    assert main(["preregister", str(config), "--amend"]) == 2
    capsys.readouterr()
    assert main(["preregister", str(config), "--amend", "--reason", "fair arm"]) == 0
    assert "made after the data" in capsys.readouterr().out

    amended = _results(capsys, config)
    files = amended["preregistration"]["files"]
    assert [f["kind"] for f in files] == ["declaration", "amendment"]
    assert files[1]["after_data"] is True and files[1]["reason"] == "fair arm"
    assert files[1]["changes"] == drifted["preregistration"]["drift"]
    (late,) = amended["preregistration"]["pairs"]
    assert late["after_data"] is True
    assert amended["comparisons"][0]["declared"] is True
    assert any("declared only after the data" in n for n in amended["notes"])

    assert main(["results", str(config)]) == 0
    out = capsys.readouterr().out
    assert "declared analysis:" in out and "declared after data:" in out
    assert "fair arm" in out
    html_path = tmp_path / "report.html"
    assert main(["report", str(config), "--out", str(html_path)]) == 0
    html = html_path.read_text(encoding="utf-8")
    assert "Declared analysis" in html and "declared after data" in html
    assert "Amendments" in html and "fair arm" in html and "exploratory" in html


def test_a_first_declaration_after_the_data_needs_the_flag(tmp_path, capsys):
    config = write_study(tmp_path / "s", base_config())
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["preregister", str(config)]) == 2
    assert "--after-data" in capsys.readouterr().err
    assert main(["preregister", str(config), "--after-data", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["after_data"] is True and body["analysis"]["compare"] == []


def test_a_rule_changed_after_the_data_makes_the_pairs_declared_after_it(
    tmp_path, capsys
):
    """The pair stays, but alpha moved once the data were in: its decision is no
    longer the one planned."""
    config = _config(tmp_path)
    assert main(["preregister", str(config)]) == 0
    assert main(["generate", str(config), *QUIET]) == 0
    assert main(["grade", str(config), *QUIET]) == 0
    assert (
        _results(capsys, config)["preregistration"]["pairs"][0]["after_data"] is False
    )
    _edit(config, note="the note alone changes nothing that decides")
    assert main(["preregister", str(config), "--amend", "--reason", "a note"]) == 0
    assert (
        _results(capsys, config)["preregistration"]["pairs"][0]["after_data"] is False
    )
    _edit(config, alpha=0.01)
    assert main(["preregister", str(config), "--amend", "--reason", "stricter"]) == 0
    report = _results(capsys, config)
    assert report["preregistration"]["pairs"][0]["after_data"] is True
    assert report["comparisons"][0]["declared"] is True  # declared, after the data
