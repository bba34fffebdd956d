"""Tests for itemeval.lock: one writer per study, across real processes, surviving a
killed holder."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys

import pytest

from itemeval.errors import StudyLocked
from itemeval.paths import StudyPaths
from itemeval.store.lock import lock_holder, study_lock
from tests.helpers import REPO

HOLDER = r"""
import sys
from pathlib import Path
from itemeval.paths import StudyPaths
from itemeval.store.lock import study_lock
with study_lock(StudyPaths(Path(sys.argv[1])), "itemeval generate configs/demo.yaml"):
    print("held", flush=True)
    sys.stdin.read()  # hold until the test closes our stdin, or kills us
"""


@pytest.fixture
def paths(tmp_path) -> StudyPaths:
    return StudyPaths(tmp_path / "studies" / "demo")


@pytest.fixture
def holder(paths):
    """Another process holding the study lock; killed at teardown if the test did
    not."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(paths.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=REPO,
    )
    assert child.stdout.readline() == b"held\n"
    yield child
    child.kill()
    child.wait()


def test_lock_records_its_holder_and_is_released(paths):
    with study_lock(paths, "itemeval grade x.yaml") as held:
        on_disk = json.loads(paths.lock.read_text())
        assert on_disk == held
        assert on_disk["pid"] == os.getpid() and on_disk["host"] == socket.gethostname()
        assert on_disk["command"] == "itemeval grade x.yaml" and on_disk["started_at"]
        assert lock_holder(paths) == held
    assert not paths.lock.exists()  # a study that holds nothing else is not left behind
    assert lock_holder(paths) is None
    with study_lock(paths, "again"):
        pass


def test_second_writer_is_refused_at_once_naming_the_holder(paths, holder):
    with pytest.raises(StudyLocked) as refused:
        with study_lock(paths, "itemeval grade configs/demo.yaml"):
            pytest.fail("two commands held the study lock at once")
    message = str(refused.value)
    assert f"pid {holder.pid} on host {socket.gethostname()}" in message
    assert (
        "`itemeval generate configs/demo.yaml`" in message and "study 'demo'" in message
    )
    assert refused.value.exit_code == 5
    assert lock_holder(paths)["pid"] == holder.pid


def test_lock_is_free_again_when_the_holder_finishes(paths, holder):
    holder.stdin.close()
    assert holder.wait(timeout=10) == 0
    with study_lock(paths, "next"):
        pass


def test_a_killed_holders_lock_is_taken_over(paths, holder):
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert (
        json.loads(paths.lock.read_text())["pid"] == holder.pid
    )  # its details are still in the file
    assert lock_holder(paths) is None  # but status knows the process is gone
    with study_lock(paths, "itemeval generate again") as held:
        assert json.loads(paths.lock.read_text()) == held


@pytest.mark.parametrize(
    "stale",
    [
        "",
        "{",
        '{"pid": 1, "host": "elsewhere"}{"pid": 2',
        '{"pid": 999999999, "command": "old"} trailing',
        "[1, 2]",
    ],
)
def test_stale_lock_file_content_does_not_block(paths, stale):
    paths.root.mkdir(parents=True)
    paths.lock.write_text(stale)
    with study_lock(paths, "itemeval generate demo") as held:
        assert json.loads(paths.lock.read_text()) == held


def test_holder_without_readable_details_is_still_refused(paths):
    paths.root.mkdir(parents=True)
    paths.lock.write_text("garbage")
    with open(paths.lock, "rb") as other:
        fcntl.flock(other, fcntl.LOCK_EX)
        with pytest.raises(StudyLocked, match="locked by another itemeval command"):
            with study_lock(paths, "itemeval grade demo"):
                pass


def test_the_lock_is_not_reentrant_within_a_process(paths):
    with study_lock(paths, "outer"):
        with pytest.raises(StudyLocked, match=f"pid {os.getpid()}"):
            with study_lock(paths, "inner"):
                pass
        assert json.loads(paths.lock.read_text())["command"] == "outer"
