"""Dataset readers, the mapping, limits, unique ids and the hf adapter's pinning
(with a fake Hub)."""

from __future__ import annotations

import csv
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from itemeval.errors import ConfigError
from itemeval.study import sources
from itemeval.study.load import load_study
from tests.helpers import ARITH, base_config, write_study


def _write_format(root, suffix):
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    path = data / f"arith{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps({"data": ARITH}))
    elif suffix == ".csv":
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(ARITH[0]))
            writer.writeheader()
            writer.writerows(ARITH)
    elif suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(ARITH), path)
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv", ".parquet"])
def test_every_local_format_gives_the_same_items(tmp_path, suffix):
    config = base_config(benchmark__datasets=[{"id": f"data/arith{suffix}"}])
    path = write_study(tmp_path, config)
    if suffix != ".jsonl":
        _write_format(tmp_path, suffix)
    study = load_study(path)
    assert [i.id for i in study.items] == ["a1", "a2", "a3", "a4"]
    assert [i.target for i in study.items] == ["5", "42", "42", "9"]
    assert study.items[2].metadata == {"difficulty": "medium"}
    assert study.items[0].dataset_revision.startswith("sha256:")


def test_json_object_with_rows_list(tmp_path):
    path = write_study(
        tmp_path, base_config(benchmark__datasets=[{"id": "data/x.json"}])
    )
    (tmp_path / "data" / "x.json").write_text(json.dumps({"rows": ARITH[:2]}))
    assert [i.id for i in load_study(path).items] == ["a1", "a2"]


def test_limit_keeps_first_rows(tmp_path):
    path = write_study(
        tmp_path,
        base_config(benchmark__datasets=[{"id": "data/arith.jsonl", "limit": 2}]),
    )
    assert [i.id for i in load_study(path).items] == ["a1", "a2"]


@pytest.mark.parametrize(
    "template, expected",
    [
        (None, ["0", "1", "2", "3"]),
        ("{row}", ["0", "1", "2", "3"]),
        ("{dataset}:{row}", ["arith:0", "arith:1", "arith:2", "arith:3"]),
        ("{difficulty}-{qid}", ["easy-a1", "easy-a2", "medium-a3", "medium-a4"]),
        ("qid", ["a1", "a2", "a3", "a4"]),
    ],
)
def test_id_mapping(tmp_path, template, expected):
    config = base_config()
    config["benchmark"]["mapping"]["id"] = template
    assert [i.id for i in load_study(write_study(tmp_path, config)).items] == expected


def test_non_string_values_become_text_and_schemes_canonical_json(tmp_path):
    rows = [
        {
            "n": 1,
            "q": "What is 1 + 1?",
            "a": 2,
            "scheme": {"points": 2, "b": [1, 2]},
            "tags": ["x"],
        }
    ]
    config = base_config()
    config["benchmark"]["mapping"] = {
        "input": "q",
        "target": "a",
        "id": "n",
        "grading_scheme": "scheme",
        "metadata": ["tags"],
    }
    item = load_study(write_study(tmp_path, config, rows=rows)).items[0]
    assert (item.id, item.target) == ("1", "2")
    assert item.grading_scheme == '{"b":[1,2],"points":2}'
    assert item.metadata == {"tags": ["x"]}


def test_unmapped_target_is_empty_string(tmp_path):
    config = base_config()
    del config["benchmark"]["mapping"]["target"]
    assert {i.target for i in load_study(write_study(tmp_path, config)).items} == {""}


def test_duplicate_ids_within_one_dataset(tmp_path):
    rows = [dict(ARITH[0]), dict(ARITH[1], qid="a1")]
    with pytest.raises(
        ConfigError,
        match=r"duplicate item id .a1. in dataset data/arith.jsonl \(rows 1 and 2\)",
    ):  # 1-based
        load_study(write_study(tmp_path, rows=rows))


def test_unsupported_file_type(tmp_path):
    path = write_study(
        tmp_path, base_config(benchmark__datasets=[{"id": "data/x.xlsx"}])
    )
    (tmp_path / "data" / "x.xlsx").write_text("")
    with pytest.raises(ConfigError, match="unsupported file type '.xlsx'"):
        load_study(path)


def test_csv_row_with_extra_fields_names_the_line(tmp_path):
    path = write_study(
        tmp_path, base_config(benchmark__datasets=[{"id": "data/x.csv"}])
    )
    (tmp_path / "data" / "x.csv").write_text(
        "qid,question,answer,difficulty\na,What is 1+1?,2,e\nb,q,2,e,extra\n"
    )
    with pytest.raises(ConfigError, match="line 3"):
        load_study(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (  # too few fields: the target and metadata would be silently empty
            "qid,question,answer,difficulty\na,What is 1+1?,2,e\nb,What is 2+2?\n",
            "line 3: fewer fields than the header has (no answer, difficulty)",
        ),
        (  # a quote never closed would swallow every line after it
            "qid,question,answer,difficulty\na,What is 1+1?,2,e\n"
            'b,"What is 2+2?,4,e\nc,What is 3+3?,6,e\nd,What is 4+4?,8,e\n',
            "not valid CSV (unexpected end of data)",
        ),
    ],
    ids=["short-row", "unclosed-quote"],
)
def test_a_malformed_csv_names_the_file_and_line(tmp_path, text, message):
    path = write_study(
        tmp_path, base_config(benchmark__datasets=[{"id": "data/x.csv"}])
    )
    (tmp_path / "data" / "x.csv").write_text(text)
    with pytest.raises(ConfigError, match="x.csv: line") as raised:
        load_study(path)
    assert message in str(raised.value)


def test_a_quoted_csv_field_may_span_lines(tmp_path):
    path = write_study(
        tmp_path, base_config(benchmark__datasets=[{"id": "data/x.csv"}])
    )
    (tmp_path / "data" / "x.csv").write_text(
        'qid,question,answer,difficulty\na,"What is\n1+1?",2,e\nb,"Say ""hi""",2,e\n'
    )
    items = load_study(path).items
    assert [i.input for i in items] == ["What is\n1+1?", 'Say "hi"']


# ---- the Hugging Face adapter, with the Hub faked (no network here)
# ----------------------------


class FakeHub:
    def __init__(self):
        self.resolved = []

    def resolve(self, repo_id, revision):
        self.resolved.append((repo_id, revision))
        return "c0ffee" * 6 + "abcd"

    def rows(self, repo_id, name, split, commit):
        assert commit == "c0ffee" * 6 + "abcd"
        return [
            {"problem": "What is 2 + 2?", "solution": 4, "uid": "u1"},
            {"problem": "What is 3 + 3?", "solution": 6, "uid": "u2"},
        ]


@pytest.fixture
def fake_hub(monkeypatch):
    hub = FakeHub()
    monkeypatch.setattr(sources, "_hf_modules", lambda: (None, None))
    monkeypatch.setattr(sources, "resolve_hf_commit", hub.resolve)
    monkeypatch.setattr(sources, "read_hf_rows", hub.rows)
    return hub


def _hf_config():
    config = base_config()
    config["benchmark"] = {
        "adapter": "hf",
        "datasets": [{"id": "org/math", "split": "test", "revision": "main"}],
        "mapping": {"input": "problem", "target": "solution", "id": "{dataset}/{uid}"},
    }
    return config


def test_hf_adapter_maps_rows_and_pins_the_resolved_commit(tmp_path, fake_hub):
    path = write_study(tmp_path, _hf_config())
    study = load_study(path, pin=True)
    assert [(i.id, i.target) for i in study.items] == [
        ("org/math/u1", "4"),
        ("org/math/u2", "6"),
    ]
    assert study.items[0].dataset_revision == "c0ffee" * 6 + "abcd"
    locks = json.loads(study.paths.dataset_locks.read_text())
    assert locks["datasets"]["org/math:test"]["revision"] == "c0ffee" * 6 + "abcd"
    load_study(path, pin=True)  # pinned: loads that commit without resolving again
    assert fake_hub.resolved == [("org/math", "main")]


def test_hf_adapter_without_the_extra_gives_an_install_hint(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_datasets(name, *args, **kwargs):
        if name in ("datasets", "huggingface_hub"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_datasets)
    with pytest.raises(ConfigError, match=r"pip install 'itemeval\[hf\]'"):
        load_study(write_study(tmp_path, _hf_config()))
