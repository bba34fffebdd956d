"""What a new user meets first (issue 34): output width through a pipe, credentials
checked before any work, the hint for re-drawing parse failures, plain help."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

from itemeval.cli import main
from tests.helpers import REPO, base_config, write_study

LONG = "a-prompt-with-a-rather-long-name-for-piped-output"


def long_study(root: Path) -> Path:
    config = base_config(
        **{
            "solvers__models": ["itemeval/arith-good", "itemeval/arith-weak"],
            "facets__prompt": [LONG],
        }
    )
    path = write_study(root, config)
    (root / "prompts" / f"{LONG}.md").write_text("Q: {input}\nEnd with ANSWER: <n>.")
    return path


def piped(argv: list[str], *, terminal_columns: int | None, **env: str) -> str:
    """stdout of `itemeval ARGV` into a pipe; stderr a pty that wide (None: a pipe)."""
    env = {**{k: v for k, v in os.environ.items() if k != "COLUMNS"}, **env}
    if terminal_columns is None:
        stderr = subprocess.PIPE
    else:
        parent, stderr = pty.openpty()
        size = struct.pack("HHHH", 40, terminal_columns, 0, 0)
        fcntl.ioctl(stderr, termios.TIOCSWINSZ, size)
    proc = subprocess.run(
        [sys.executable, "-m", "itemeval", *argv],
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        timeout=300,
    )
    if terminal_columns is not None:
        os.close(stderr)
        os.close(parent)
    assert proc.returncode == 0
    return proc.stdout.decode()


def test_piped_output_takes_the_width_of_the_terminal_on_stderr_else_80(tmp_path):
    path = long_study(tmp_path)
    argv = ["status", str(path)]
    for columns, expected in ((100, 100), (None, 80)):
        lines = piped(argv, terminal_columns=columns).splitlines()
        widest = max(len(line) for line in lines)
        assert len(lines) > 4 and 60 < widest <= expected, (columns, widest)
    assert LONG not in piped(argv, terminal_columns=None)  # cut to fit 80 ...
    assert LONG in piped(argv, terminal_columns=100, COLUMNS="240")  # COLUMNS rules


def test_a_missing_key_or_base_url_stops_the_run_before_any_work(tmp_path, capsys):
    config = base_config(
        **{
            "solvers__models": [
                "itemeval/arith-good",
                "openai/gpt-4.1-mini",
                "openai-api/my-host/m",
            ]
        }
    )
    path = write_study(tmp_path, config)
    code = main(["generate", str(path), "--yes"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "[bold]" not in err and "OPENAI_API_KEY" in err
    assert "MY_HOST_API_KEY" in err and "MY_HOST_BASE_URL" in err
    assert not (tmp_path / "studies" / "t" / "solutions.parquet").exists()
    assert not (tmp_path / "studies" / "t" / "manifests").exists()


def test_credentials_needed_per_provider():
    from itemeval.engine.credentials import missing

    cases = [
        (["itemeval/arith-good", "vllm/x"], {}, []),
        (["openai/a", "openai/b"], {}, [("OPENAI_API_KEY", "openai/a,openai/b")]),
        (["openai/a"], {"AZUREAI_OPENAI_API_KEY": "k"}, []),
        (["openai-api/local/m"], {"LOCAL_API_KEY": "k"}, [("LOCAL_BASE_URL", "")]),
        (["google/g"], {"GOOGLE_GENAI_USE_VERTEXAI": "true"}, []),
        (["anthropic/c"], {"ANTHROPIC_API_KEY": ""}, [("ANTHROPIC_API_KEY", "")]),
    ]
    for models, environ, expected in cases:
        gaps = missing(models, environ)
        assert [g.names[0] for g in gaps] == [name for name, _ in expected], models
        for gap, (_, users) in zip(gaps, expected):
            assert not users or ",".join(gap.models) == users


def test_re_grading_parse_failures_says_fresh_draws_anew(tmp_path, capsys, monkeypatch):
    config = base_config(
        **{
            "cache": True,
            "facets__grader": ["k"],
            "facets__rubric": ["r"],
            "facets__scorer": None,
            "graders": {"k": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(tmp_path, config)
    assert main(["generate", str(path), "--yes"]) == 0
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "1")
    assert main(["grade", str(path), "--yes"]) == 0
    monkeypatch.setenv("ITEMEVAL_JUDGE_MALFORMED_RATE", "0")
    capsys.readouterr()
    again = ["grade", str(path), "--yes", "--only", "parse-failures"]
    assert main(again) == 0
    err = " ".join(capsys.readouterr().err.split())
    hinted = re.search(
        r"add --fresh to draw new ones \(4 calls, about (\$[\d.]+)\)", err
    )
    assert hinted, err
    assert main([*again, "--fresh"]) == 0
    fresh = " ".join(capsys.readouterr().err.split())
    assert "--fresh" not in fresh
    # the price of drawing anew is what the --fresh run expects to pay, never the
    # cached $0
    expected = re.search(r"estimate: 4 calls, expected (\$[\d.]+)", fresh)
    assert expected and hinted[1] == expected[1] and hinted[1] != "$0", fresh


def test_help_shows_what_to_type_not_python_types(capsys):
    for command in ("generate", "grade", "results", "launch", "init"):
        capsys.readouterr()
        assert main([command, "--help"]) == 0
        text = capsys.readouterr().out
        assert "Usage:" in text
        for internal in ("{CONFIG}", "<list[str]>", "<int range>", "<path>", "<str>"):
            assert internal not in text, (command, internal)
    assert main(["grade", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--limit N " in text and "--condition ID " in text and "CONFIG" in text


def test_no_user_facing_text_cites_the_internal_spec(capsys):
    """Users have the README, the help and the package's own source (its docstrings
    and messages), not the contract the code was built to."""
    root = REPO
    capsys.readouterr()
    helps = {}
    for command in (
        None,
        "estimate",
        "generate",
        "grade",
        "launch",
        "results",
        "report",
        "export",
        "plan",
        "view",
    ):
        assert main([*([command] if command else []), "--help"]) == 0
        helps[f"{command} --help"] = capsys.readouterr().out
    texts = {
        "README.md": (root / "README.md").read_text(),
        **{str(p): p.read_text() for p in (root / "itemeval").rglob("*.py")},
        **helps,
    }
    cited = [name for name, text in texts.items() if re.search(r"\bSPEC\b", text)]
    assert cited == []


def test_the_shared_cache_is_announced_and_cache_study_draws_anew(tmp_path, capsys):
    first = write_study(tmp_path / "one", base_config(**{"cache": True}))
    assert main(["generate", str(first), "--yes"]) == 0
    capsys.readouterr()
    # its own earlier calls: `cache: study` would change nothing, --fresh would
    assert main(["generate", str(first), "--yes", "--force"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "(4 from this study's earlier calls)" in err, err
    assert "add --fresh to draw them anew" in err and "cache: study" not in err
    clone = write_study(tmp_path / "two", base_config(**{"cache": True}))
    assert main(["generate", str(clone), "--yes", "--json"]) == 0
    out = capsys.readouterr()
    result = json.loads(out.out)
    assert result["totals"]["cache_hits"] == 4  # the clone's answers are the first's
    assert "4 of 4 model calls are answered at $0 from earlier replies" in out.err
    # ... and whose: the first study's calls, named with where its store is
    first_store = (tmp_path / "one" / "studies" / "t").resolve()
    assert f"(4 from study t ({first_store}))" in " ".join(out.err.split()), out.err
    assert "cache: study" in out.err
    own = write_study(tmp_path / "three", base_config(**{"cache": "study"}))
    assert main(["generate", str(own), "--yes", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["totals"]["cache_hits"] == 0
    assert "earlier replies" not in out.err
    assert main(["generate", str(own), "--yes", "--json", "--force"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["cache_hits"] == 4  # its own


def test_the_live_display_is_readable_at_80_columns(tmp_path):
    from tests.console.test_terminal import ROWS, run_in_pty

    config = base_config(
        **{
            "cache": False,
            "benchmark__mapping": {
                "input": "question",
                "target": "answer",
                "id": "qid",
            },
            "facets__grader": ["k"],
            "facets__rubric": ["r"],
            "facets__scorer": None,
            "graders": {"k": {"model": "itemeval/judge"}},
        }
    )
    path = write_study(tmp_path, config, rows=ROWS)
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "40"}
    env.pop("INSPECT_DISPLAY", None)
    for stage in ("generate", "grade"):
        argv = [sys.executable, "-m", "itemeval", stage, str(path), "--yes"]
        code, screen = run_in_pty([*argv, "--max-usd", "5"], env, columns=80)
        assert code == 0, screen
        # the bar, done/total, the rate and the ETA, whole, on every row
        row = r" +━+ +30/30 +[\d.]+/(s|min) eta \d+:\d\d:\d\d"
        assert re.search(rf"{stage} cells{row}", screen), screen
        assert re.search(rf"  (arith-good_p_default|k_r){row}", screen), screen
        assert "…" not in screen and "eta -…" not in screen
        assert re.search(rf"{stage}: spend \$[\d.]+ .*\(cap \$5", screen), screen
        # inspect's banner, printed mid-run, would leave a second frame on screen
        assert "hooks enabled" not in screen


def test_a_grade_names_the_study_whose_judge_calls_it_reuses(tmp_path, capsys):
    config = base_config(
        **{
            "cache": True,
            "facets__grader": ["k"],
            "facets__rubric": ["r"],
            # a scorer's grades call no model: not counted among the calls
            "facets__scorer": "numeric",
            "graders": {"k": {"model": "itemeval/judge"}},
        }
    )
    first = write_study(tmp_path / "one", config)
    assert main(["generate", str(first), "--yes"]) == 0
    assert main(["grade", str(first), "--yes"]) == 0
    clone = write_study(tmp_path / "two", config)
    assert main(["generate", str(clone), "--yes"]) == 0
    capsys.readouterr()
    assert main(["grade", str(clone), "--yes"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    first_store = (tmp_path / "one" / "studies" / "t").resolve()
    assert "4 of 4 model calls are answered at $0 from earlier replies" in err, err
    assert f"(4 from study t ({first_store}))" in err, err
