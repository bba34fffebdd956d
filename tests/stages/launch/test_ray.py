"""`launch --engine ray` (SPEC §19): shards as Ray tasks and one budget actor leasing
max_usd to them in chunks."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time

import pandas as pd
import pytest

from itemeval.cli import main
from itemeval.plan.budget import SpendCap
from itemeval.plan.lease import BudgetBook
from tests.plan.test_shards import MODELS, ROWS, stored, study


class LocalLease:
    """A BudgetBook shared by threads, as the actor is by shard processes (Ray runs
    one actor call at a time)."""

    def __init__(self, book: BudgetBook, holder: str, lock: threading.Lock) -> None:
        self.book, self.holder, self.lock = book, holder, lock

    def take(self, need: float) -> float:
        with self.lock:
            return self.book.take(self.holder, need)

    def settle(self, spent: float) -> None:
        with self.lock:
            self.book.settle(self.holder, spent)


@pytest.mark.parametrize(
    ("cap", "chunk", "asks", "grants"),
    [
        (
            1.0,
            0.25,
            [0.1, 0.1, 0.1, 0.1, 0.1],
            [0.25, 0.25, 0.25, 0.25, 0.0],
        ),  # a chunk at a time, until none is left
        (
            1.0,
            0.25,
            [0.6, 0.6],
            [0.6, 0.4],
        ),  # a need above the chunk is met whole; the last grant is what is left
        (1.0, 0.25, [1.5], [1.0]),
        (0.0, 0.25, [0.1], [0.0]),
    ],
)
def test_the_book_grants_chunks_and_never_more_than_the_cap(cap, chunk, asks, grants):
    book = BudgetBook(cap, chunk)
    assert [round(book.take("a", need), 9) for need in asks] == grants
    assert sum(book.holders().values()) <= cap


def test_a_settled_holder_gives_back_what_it_did_not_spend_and_a_dead_one_keeps_its_lease():  # noqa: E501
    book = BudgetBook(1.0, 0.5)
    assert book.take("done", 0.1) == 0.5 and book.take("dead", 0.1) == 0.5
    assert book.take("late", 0.1) == 0.0
    book.settle("done", 0.2)  # spent 0.2 of its 0.5
    assert book.take("late", 0.1) == pytest.approx(0.3)
    assert book.holders() == {"done": 0.2, "dead": 0.5, "late": pytest.approx(0.3)}


def test_shards_racing_one_book_never_spend_more_than_the_cap():
    # Eight spend caps (one per shard) on threads of their own, each with its own event
    # loop, reserve calls of random worst cases against one book; a call costs a random
    # part of its worst case. Together they must stay within the cap, and the book must
    # hand out all of it before the last one stops.
    cap, book, lock = 2.0, BudgetBook(2.0, 2.0 / 32), threading.Lock()
    spent: dict[int, float] = {}

    async def shard(index: int) -> None:
        rng = random.Random(index)
        spend = SpendCap(cap=0.0, lease=LocalLease(book, f"s{index}", lock))

        async def call(n: int) -> None:
            worst = rng.uniform(0.001, 0.05)
            if await spend.reserve(f"{index}-{n}", worst):
                await asyncio.sleep(0)
                await spend.settle(f"{index}-{n}", worst * rng.random())

        await asyncio.gather(*(call(n) for n in range(400)))
        spend.lease.settle(spend.spent)
        spent[index] = spend.spent

    threads = [threading.Thread(target=asyncio.run, args=(shard(k),)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(spent) == 8
    assert 0 < sum(spent.values()) <= cap
    assert sum(book.holders().values()) == pytest.approx(
        sum(spent.values())
    )  # every lease settled to its spend


@pytest.fixture(scope="module")
def ray_cluster():
    """One Ray on loopback for the module (the tests using it share one xdist worker:
    make test runs `--dist loadgroup`, so the machine starts Ray once)."""
    ray = pytest.importorskip(
        "ray",
        reason="ray is not installed: pip install 'itemeval[ray]' (make test does)",
    )
    ray.init(
        num_cpus=2,
        _node_ip_address="127.0.0.1",
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    yield ray
    ray.shutdown()


@pytest.mark.xdist_group("ray")
def test_launch_on_ray_equals_one_process_row_for_row(ray_cluster, tmp_path, capsys):
    single, launched = tmp_path / "single", tmp_path / "launched"
    assert main(["generate", str(study(single)), "--yes", "--json"]) == 0
    path = study(launched)
    capsys.readouterr()
    assert (
        main(
            [
                "launch",
                "generate",
                str(path),
                "--shards",
                "2",
                "--engine",
                "ray",
                "--yes",
                "--json",
            ]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert (
        result["outcome"] == "completed"
        and result["totals"]["rows"] == len(MODELS) * len(ROWS) * 2
    )
    pd.testing.assert_frame_equal(stored(launched), stored(single))
    assert not list(
        (launched / "studies" / "t" / "journal").glob("*.jsonl")
    )  # committed


@pytest.mark.xdist_group("ray")
def test_ray_shards_racing_the_cap_never_exceed_it(ray_cluster, tmp_path, capsys):
    path = study(tmp_path)
    capsys.readouterr()
    assert main(["estimate", str(path), "--stage", "generate", "--json"]) == 0
    cap = json.loads(capsys.readouterr().out)["total"]["usd_ceiling"] / 20
    code = main(
        [
            "launch",
            "generate",
            str(path),
            "--shards",
            "3",
            "--engine",
            "ray",
            "--yes",
            "--json",
            "--max-usd",
            str(cap),
        ]
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 4 and result["outcome"] == "budget_stopped", result
    spent = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")[
        "usd"
    ].sum()
    assert 0 < spent <= cap and result["totals"]["rows"] < len(MODELS) * len(ROWS) * 2
    # The leases are taken in chunks of cap / 12, so the shards together use most of it,
    # not a third.
    assert spent > cap / 3


def test_engine_ray_without_ray_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    path = study(tmp_path)
    assert main(["launch", "generate", str(path), "--engine", "ray", "--yes"]) == 2
    assert "pip install 'itemeval[ray]'" in capsys.readouterr().err
    assert not (
        tmp_path / "studies" / "t" / "manifests"
    ).exists()  # refused before anything was written


@pytest.mark.xdist_group("ray")
def test_a_ray_shard_killed_mid_run_is_retried_and_resumes_from_its_journal(
    ray_cluster, tmp_path, capsys, monkeypatch
):
    import psutil

    path = study(tmp_path)
    journal = tmp_path / "studies" / "t" / "journal"
    monkeypatch.setenv("ITEMEVAL_OFFLINE_LATENCY", "0.05")
    capsys.readouterr()
    codes: list[int] = []
    launcher = threading.Thread(
        target=lambda: codes.append(
            main(
                [
                    "launch",
                    "generate",
                    str(path),
                    "--shards",
                    "2",
                    "--engine",
                    "ray",
                    "--yes",
                    "--json",
                ]
            )
        )
    )
    launcher.start()

    def shard_zero() -> list[psutil.Process]:
        return [
            p
            for p in psutil.process_iter(["cmdline"])
            if "--shard" in (p.info["cmdline"] or [])
            and "0/2" in p.info["cmdline"]
            and str(path) in p.info["cmdline"]
        ]

    deadline = time.monotonic() + 180
    while not (
        journal.is_dir()
        and any(
            sum(1 for _ in part.open()) >= 5
            for part in journal.glob("shard-0-of-2-*.jsonl")
        )
    ):
        assert launcher.is_alive() and time.monotonic() < deadline, (
            "shard 0 never journaled 5 rows"
        )
        time.sleep(0.05)
    (victim,) = shard_zero()
    first_pid = victim.pid
    victim.kill()
    launcher.join(timeout=300)
    assert codes == [0], capsys.readouterr().err[-2000:]
    result = json.loads(capsys.readouterr().out)
    assert result["outcome"] == "completed"
    frame = pd.read_parquet(tmp_path / "studies" / "t" / "solutions.parquet")
    assert (
        len(frame) == len(MODELS) * len(ROWS) * 2
        and not frame.duplicated(["condition_id", "item_id", "epoch"]).any()
    )
    assert frame["error"].isna().all()
    # The killed attempt's rows were kept: the retry ran under another pid and asked
    # only for the rest.
    run_ids = frame[frame["run_id"].str.startswith("shard-0-of-2-")]["run_id"].unique()
    assert len(run_ids) == 2, run_ids
    assert first_pid not in {p.pid for p in shard_zero()}
