"""`itemeval.frames`: the stores, the long table and every result as DataFrames."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import itemeval
from itemeval.cli import main
from itemeval.results.options import ResultsOptions
from tests.helpers import base_config, write_study
from tests.s3_server import s3_server  # noqa: F401 - a fixture (moto, imported when used)


def study(root, **overrides):
    config = base_config(
        solvers__models=["itemeval/arith-good", "itemeval/arith-weak"],
        facets__replications=2,
        facets__grader=["j"],
        facets__rubric=["r"],
        graders={"j": {"model": "itemeval/judge", "max_tokens": 256}},
        budget={"confirm_above_usd": None},
        **overrides,
    )
    return write_study(root, config)


def cli(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def check_frames(frames, exported: pa.Table, results: dict) -> None:
    long = pa.Table.from_pandas(frames.long, preserve_index=False)
    assert long.num_rows == exported.num_rows == len(frames.grades) == 32
    assert long.equals(exported)
    for name, rows in results.items():
        if isinstance(rows, list):
            pd.testing.assert_frame_equal(frames.results[name], pd.DataFrame(rows))
    assert set(frames.results) >= {"cells", "comparisons", "agreement"}
    assert len(frames.items) == 4 and len(frames.solutions) == 16
    assert frames.reads == {"items": 1, "solutions": 1, "grades": 1}


def test_frames_equal_export_and_results(tmp_path, capsys):
    path = study(tmp_path)
    cli(capsys, "generate", str(path))
    cli(capsys, "grade", str(path))
    export = cli(capsys, "export", str(path))
    results = cli(capsys, "results", str(path), "--compare", "all", "--by", "model")
    frames = itemeval.frames(
        str(path), options=ResultsOptions(compare=("all",), by=("model",))
    )
    check_frames(frames, pq.read_table(export["parquet"]), results)
    assert set(frames.results["marginals"]["facet"]) == {"model"}
    tables = frames.tables()
    assert {"long", "results_cells"} <= set(tables)
    if not _installed("duckdb"):
        with pytest.raises(itemeval.ConfigError, match="pip install duckdb"):
            frames.duckdb()
    else:
        n = frames.duckdb().sql("select count(*) from long").fetchone()[0]
        assert n == 32


def test_frames_of_a_study_directory_are_those_of_its_config(tmp_path, capsys):
    """A study directory stands for the config its manifests name; a directory that
    is no study, or whose config now puts the study elsewhere, says what to pass."""
    path = study(tmp_path)
    cli(capsys, "generate", str(path))
    folder = tmp_path / "studies" / "t"
    by_folder, by_config = itemeval.frames(folder), itemeval.frames(str(path))
    pd.testing.assert_frame_equal(by_folder.long, by_config.long)
    assert len(by_folder.solutions) == 16
    with pytest.raises(itemeval.ConfigError, match="is a directory, not a study"):
        itemeval.frames(tmp_path)
    path.write_text(path.read_text().replace("study: t", "study: moved"))
    with pytest.raises(itemeval.ConfigError, match="now puts the study at"):
        itemeval.frames(folder)


def _installed(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def test_frames_of_a_study_on_object_storage(s3_server, tmp_path, capsys, monkeypatch):
    pytest.importorskip("deltalake")
    pytest.importorskip("moto")
    monkeypatch.setenv("ITEMEVAL_WORK_DIR", str(tmp_path / "work"))
    path = study(tmp_path, output_dir="s3://studies/team")
    cli(capsys, "generate", str(path))
    cli(capsys, "grade", str(path))
    results = cli(capsys, "results", str(path))
    frames = itemeval.frames(path)
    assert frames.reads == {"items": 1, "solutions": 1, "grades": 1}
    assert len(frames.long) == len(frames.grades) == 32
    pd.testing.assert_frame_equal(
        frames.results["cells"], pd.DataFrame(results["cells"])
    )
