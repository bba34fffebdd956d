"""Generate on the real OpenAI SDK path (`openai-api/local/*`) against a local server
that misbehaves on cue.

Retry bound, as measured here: a call that keeps failing with a retryable status
(429/5xx) makes at most (solvers.max_retries + 1) × (2 + 1) requests — inspect's
attempts times the OpenAI SDK's own 2 retries inside each attempt — and then becomes an
`error` row carrying the server's message.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from itemeval.cli import main
from tests.helpers import base_config, write_study
from tests.openai_server import OpenAIServer

MODEL = "openai-api/local/test-model"
SECRET = "sk-test-SECRET123456"


@contextlib.contextmanager
def serve(monkeypatch, **options) -> Iterator[OpenAIServer]:
    """A local server that `openai-api/local/*` talks to, through LOCAL_BASE_URL /
    LOCAL_API_KEY."""
    with OpenAIServer(**options) as srv:
        for name, value in srv.env().items():
            monkeypatch.setenv(name, value)
        yield srv


def study(root: Path, questions: dict[str, str], **overrides) -> Path:
    """A study of one condition on MODEL; each item's question carries its id as a
    `[tag]` to count requests by."""
    rows = [
        {"qid": qid, "question": f"[{qid}] {text}", "answer": ""}
        for qid, text in questions.items()
    ]
    settings = {
        "solvers__models": [MODEL],
        "solvers__max_retries": 0,
        "solvers__attempt_timeout": 30,
        "cache": False,
    }
    config = base_config(**{**settings, **overrides})
    config["benchmark"]["mapping"]["metadata"] = []
    return write_study(root, config, rows=rows, prompt="{input}")


def generate(capsys, path: Path, *args: str) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["generate", str(path), "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def rows_by_item(root: Path) -> pd.DataFrame:
    return (
        pd.read_parquet(root / "studies" / "t" / "solutions.parquet")
        .set_index("item_id")
        .sort_index()
    )


def tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))  # the test server's token count


def test_usage_reaches_the_token_columns_and_an_unpriced_model_costs_null(
    tmp_path, capsys, monkeypatch
):
    path = study(tmp_path, {"add": "What is 2 + 3?", "mul": "What is 7 * 6?"})
    with serve(monkeypatch, cached_tokens=3, reasoning_tokens=2) as srv:
        code, result = generate(capsys, path)

    assert code == 0 and len(srv.requests) == 2
    rows = rows_by_item(tmp_path)
    assert rows.loc["add", "solution"] == "Computing it directly.\nANSWER: 5"
    assert (rows["stop_reason"] == "stop").all() and rows["error"].isna().all()
    for item, row in rows.iterrows():
        prompt = f"[{item}] " + (
            "What is 2 + 3?" if item == "add" else "What is 7 * 6?"
        )
        completion = tokens(row["solution"]) + 2
        assert row["cache_read_tokens"] == 3 and row["reasoning_tokens"] == 2
        assert row["input_tokens"] + row["cache_read_tokens"] == tokens(
            prompt
        )  # inspect excludes cached tokens
        assert (
            row["output_tokens"] == completion
            and row["total_tokens"] == tokens(prompt) + completion
        )
    assert rows["usd"].isna().all()  # no price for this model: unknown, never a fake 0
    assert result["totals"]["usd"] is None
    assert (rows["effective_max_tokens"] == 256).all() and (
        rows["effective_temperature"] == 0.5
    ).all()
    sent = [(body["max_tokens"], body["temperature"]) for body in srv.requests]
    assert sent == [(256, 0.5), (256, 0.5)]  # the requested params went over the wire


def test_a_rate_limited_call_is_retried_into_a_normal_row(
    tmp_path, capsys, monkeypatch
):
    path = study(tmp_path, {"busy": "RATE429 What is 4 + 4?"})
    with serve(monkeypatch) as srv:
        code, _ = generate(capsys, path)

    assert code == 0 and srv.statuses == [429, 200]
    row = rows_by_item(tmp_path).loc["busy"]
    assert (
        pd.isna(row["error"])
        and row["solution"].endswith("ANSWER: 8")
        and row["output_tokens"] > 0
    )


def test_a_persistent_500_becomes_an_error_row_with_the_servers_message_after_bounded_requests(  # noqa: E501
    tmp_path, capsys, monkeypatch
):
    path = study(
        tmp_path,
        {"down": "FAIL500 What is 1 + 1?", "up": "What is 2 + 2?"},
        solvers__max_retries=1,
    )
    with serve(monkeypatch) as srv:
        code, result = generate(capsys, path)

    assert (
        code == 0 and result["totals"]["errors"] == 1
    )  # a sample error is data, not a failed command
    assert srv.count("[down]") == (1 + 1) * (
        2 + 1
    )  # (max_retries + 1) x (SDK retries + 1)
    rows = rows_by_item(tmp_path)
    down = rows.loc["down"]
    assert "injected server error" in down["error"] and "500" in down["error"]
    assert "RetryError" not in down["error"]
    assert pd.isna(down["solution"]) and pd.isna(down["stop_reason"])
    assert pd.isna(rows.loc["up", "error"]) and srv.count("[up]") == 1


def test_a_rate_limit_outlasting_the_attempt_timeout_keeps_the_providers_message(
    tmp_path, capsys, monkeypatch
):
    # The SDK waits 3 s (Retry-After) between its own retries; the attempt is cut off at
    # 1 s while it waits.
    path = study(
        tmp_path,
        {"busy": "BUSY429 What is 1 + 1?"},
        solvers__max_retries=1,
        solvers__attempt_timeout=1,
    )
    with serve(monkeypatch) as srv:
        code, result = generate(capsys, path)
    assert (
        code == 0
        and result["totals"]["errors"] == 1
        and srv.statuses
        and set(srv.statuses) == {429}
    )
    error = rows_by_item(tmp_path).loc["busy", "error"]
    # The SDK keeps a refusal's body to itself while it waits to retry; its status line
    # is what inspect logs.
    assert error.startswith(
        "429 Too Many Requests (after attempt timeout: AttemptTimeoutError"
    ), error


def test_a_hung_request_times_out_into_an_error_row(tmp_path, capsys, monkeypatch):
    # A fractional attempt_timeout is valid config; inspect only takes whole seconds.
    path = study(
        tmp_path,
        {"stuck": "HANG What is 3 + 3?", "fine": "What is 5 + 5?"},
        solvers__attempt_timeout=0.5,
    )
    with serve(monkeypatch, hang_seconds=20) as srv:
        code, result = generate(capsys, path)

    assert code == 0 and result["conditions"][0]["failure"] is None
    rows = rows_by_item(tmp_path)
    assert "attempt_timeout" in rows.loc["stuck", "error"] and pd.isna(
        rows.loc["stuck", "solution"]
    )
    assert rows.loc["stuck", "latency_s"] < 5
    assert pd.isna(rows.loc["fine", "error"]) and srv.count("[stuck]") == 1


def test_a_later_run_reattempts_only_the_errored_cells(tmp_path, capsys, monkeypatch):
    path = study(
        tmp_path,
        {
            "ok": "What is 2 + 3?",
            "busy": "RATE429 What is 4 + 4?",
            "bad": "BAD400 What is 9 + 9?",
            "down": "FAIL500 What is 1 + 1?",
        },
    )
    with serve(monkeypatch) as srv:
        assert generate(capsys, path)[0] == 0
        first = {tag: srv.count(f"[{tag}]") for tag in ("ok", "busy", "bad", "down")}
        assert first == {"ok": 1, "busy": 2, "bad": 1, "down": 3}
        errored = rows_by_item(tmp_path)
        assert set(errored.index[errored["error"].notna()]) == {"bad", "down"}
        assert "injected bad request" in errored.loc["bad", "error"]

        code, result = generate(capsys, path)
        second = {tag: srv.count(f"[{tag}]") - first[tag] for tag in first}

    assert code == 0 and result["totals"]["planned"] == 2
    assert second == {"ok": 0, "busy": 0, "bad": 1, "down": 3}
    rows = rows_by_item(tmp_path)
    assert (rows.loc[["ok", "busy"], "run_id"] != result["run_id"]).all()
    assert (rows.loc[["bad", "down"], "run_id"] == result["run_id"]).all()


@pytest.mark.parametrize("where", ["--max-usd", "budget.max_usd"])
def test_a_spend_cap_on_an_unpriced_model_exits_4_before_any_request(
    tmp_path, capsys, monkeypatch, where
):
    overrides = {"budget": {"max_usd": 1.0}} if where == "budget.max_usd" else {}
    path = study(tmp_path, {"a": "What is 2 + 3?"}, **overrides)
    with serve(monkeypatch) as srv:
        capsys.readouterr()
        code = main(
            [
                "generate",
                str(path),
                *(["--max-usd", "1"] if where == "--max-usd" else []),
            ]
        )
        err = capsys.readouterr().err

    assert code == 4 and srv.requests == []
    assert MODEL in err and "price" in err
    study_dir = tmp_path / "studies" / "t"
    assert not (study_dir / "solutions.parquet").exists() and not list(
        study_dir.glob("manifests/*.json")
    )


def test_the_api_key_appears_in_no_file_of_the_study(tmp_path, capsys, monkeypatch):
    path = study(tmp_path, {"ok": "What is 2 + 3?", "bad": "BAD400 What is 9 + 9?"})
    with serve(monkeypatch) as srv:
        monkeypatch.setenv("LOCAL_API_KEY", SECRET)
        capsys.readouterr()
        assert main(["generate", str(path), "--json"]) == 0
        assert main(["status", str(path), "--json"]) == 0
        captured = capsys.readouterr()
    assert len(srv.requests) == 2 and SECRET not in captured.out + captured.err

    import inspect_ai.log  # noqa: F401 - lets zipfile read the zstd members of .eval logs

    files = [p for p in (tmp_path / "studies").rglob("*") if p.is_file()]
    assert any(p.suffix == ".eval" for p in files) and any(
        p.suffix == ".parquet" for p in files
    )
    for file in files:
        blobs = [file.read_bytes()]
        if file.suffix == ".eval":
            with zipfile.ZipFile(file) as archive:
                blobs += [archive.read(name) for name in archive.namelist()]
        assert not any(SECRET.encode() in blob for blob in blobs), file


def test_a_provider_echoing_the_key_in_its_error_never_gets_it_stored_or_printed(
    tmp_path, capsys, monkeypatch
):
    path = study(tmp_path, {"ok": "What is 2 + 3?", "bad": "AUTH401 What is 9 + 9?"})
    with serve(monkeypatch) as srv:
        monkeypatch.setenv("LOCAL_API_KEY", SECRET)
        capsys.readouterr()
        main(["generate", str(path), "--json"])
        main(["status", str(path), "--json"])
        captured = capsys.readouterr()
    assert any(
        SECRET in body.get("_authorization", "") for body in srv.requests
    )  # the server did echo it
    rows = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    errors = rows["error"].dropna().tolist()
    assert (
        errors
        and all(SECRET not in e for e in errors)
        and any("[redacted]" in e for e in errors)
    ), errors
    assert SECRET not in captured.out + captured.err
    assert not files_holding(
        SECRET, tmp_path / "studies"
    )  # stores, manifests and inspect's .eval logs
    trace = (
        Path(os.environ["XDG_DATA_HOME"])
        / "inspect_ai"
        / "traces"
        / f"trace-{os.getpid()}.log"
    )
    assert (
        trace.is_file() and SECRET.encode() not in trace.read_bytes()
    )  # inspect's trace log of this process


def files_holding(secret: str, root: Path) -> list[Path]:
    """Files under root whose bytes (or, for .eval logs, any member's) contain the
    secret."""
    import inspect_ai.log  # noqa: F401 - lets zipfile read the zstd members of .eval logs

    found = []
    for file in (p for p in root.rglob("*") if p.is_file()):
        blobs = [file.read_bytes()]
        if file.suffix == ".eval":
            with zipfile.ZipFile(file) as archive:
                blobs += [archive.read(name) for name in archive.namelist()]
        found += [file] if any(secret.encode() in blob for blob in blobs) else []
    return found
