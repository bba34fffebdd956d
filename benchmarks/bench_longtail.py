"""Generation under a long-tailed provider: itemeval's batches, one eval, two shards and
plain inspect, against the latency floor.

Run: `.venv/bin/python benchmarks/bench_longtail.py [--cells N] [--connections C]`.
Reported only (no target): the figures issue 17 asks for. The provider is the local
OpenAI-compatible test server on 127.0.0.1; each request waits a log-normal time (median
0.4 s, sigma 1.0: a mean of 0.66 s and a p99 of 4.1 s), the same for the same prompt in
every run, so every run meets exactly the same latencies.

The latency floor is the best any client could do with C connections: the larger of the
slowest single call and the sum of all latencies / C. Runs:
- itemeval generate, defaults: one eval of up to 3,000 cells fed as tasks, a task
  starting whenever one ends (only the eval's end waits for its slowest call);
- the same, cut into evals of 1,000 cells (ITEMEVAL_CELLS_PER_EVAL): a wait for the
  slowest call every 1,000;
- the batches of earlier versions: evals of 600 cells (ITEMEVAL_CELLS_PER_EVAL=600),
  each waiting for its slowest;
- itemeval launch generate --shards 2 (each shard with half the connections);
- plain inspect eval() of the same prompts with the same connections.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import sys
from pathlib import Path

from common import (
    BENCH_DIR,
    ITEMEVAL,
    REPO,
    Result,
    bench_env,
    python_script,
    report,
    run,
    say,
    stage_rows,
    study_dir,
    temp_dir,
    write_study,
)

sys.path.insert(0, str(REPO))
from tests.openai_server import OpenAIServer  # noqa: E402

MEDIAN_S, SIGMA = 0.4, 1.0


def latency(prompt: str) -> float:
    """A log-normal latency drawn from the prompt's hash: reproducible per cell,
    across runs and processes."""
    digest = hashlib.sha256(prompt.encode()).digest()
    u1 = (int.from_bytes(digest[:8], "big") + 1) / 2**64
    u2 = int.from_bytes(digest[8:16], "big") / 2**64
    normal = math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
    return MEDIAN_S * math.exp(SIGMA * normal)


def plain_spec(config: Path, root: Path, connections: int) -> tuple[dict, list[str]]:
    from itemeval.generate import render_prompt
    from itemeval.study import load_study

    study = load_study(config, root)
    condition = study.generate[0]
    prompts = [render_prompt(condition, item) for item in study.items]
    spec = {
        "model": condition.model,
        "config": {
            **condition.params,
            "max_connections": connections,
            "max_retries": 2,
            "timeout": 120,
        },
        "prompts": [
            {"id": item.id, "prompt": prompt}
            for item, prompt in zip(study.items, prompts)
        ],
    }
    return spec, prompts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=3_000)
    parser.add_argument("--connections", type=int, default=40)
    parser.add_argument(
        "--repeats", type=int, default=1, help="accepted for run.py; one run each"
    )
    args = parser.parse_args(argv)
    results = []
    with OpenAIServer(delay=latency) as server, temp_dir("bench-longtail-") as root:
        config = write_study(
            root, items=args.cells, models=["openai-api/local/longtail"]
        )
        text = config.read_text().replace(
            "  max_tokens: 256",
            f"  max_tokens: 256\n  max_connections: {args.connections}",
        )
        config.write_text(text)
        spec, prompts = plain_spec(config, root, args.connections)
        (root / "spec.json").write_text(json.dumps(spec))
        delays = [latency(server_prompt) for server_prompt in prompts]
        floor = max(max(delays), sum(delays) / args.connections)
        say(
            f"{args.cells:,} cells, {args.connections} connections; latency "
            f"mean {sum(delays) / len(delays):.2f} s, "
            f"max {max(delays):.1f} s; floor {floor:.1f} s"
        )
        env = bench_env(root, **server.env())
        generate = ["generate", str(config), "--display", "none"]
        runs = {
            "itemeval, tasks fed into one eval": (generate, {}),
            "itemeval, evals of 1,000": (generate, {"ITEMEVAL_CELLS_PER_EVAL": "1000"}),
            "itemeval, batches of 600 (before)": (
                generate,
                {"ITEMEVAL_CELLS_PER_EVAL": "600"},
            ),
            "itemeval launch --shards 2": (
                ["launch", "generate", str(config), "--shards", "2"],
                {},
            ),
        }
        for label, (command, extra) in runs.items():
            shutil.rmtree(study_dir(root), ignore_errors=True)
            done = run(
                [ITEMEVAL, *command, "--yes", "--json"],
                env={**env, **extra},
                cwd=root,
                memory=True,
            )
            done.check(label)
            assert stage_rows(done.stdout) == args.cells, label
            say(
                f"{label}: {done.wall_s:.1f} s = {done.wall_s / floor:.2f}x "
                f"the floor, peak {done.peak_rss_mb:.0f} MB"
            )
            results.append(
                Result(
                    f"longtail: {label} / floor",
                    done.wall_s / floor,
                    "x",
                    detail=f"{done.wall_s:.1f} s, peak {done.peak_rss_mb:.0f} MB",
                )
            )
        plain = python_script(
            BENCH_DIR / "plain_inspect.py",
            str(root / "spec.json"),
            str(root / "plain-logs"),
            root=root,
            env=env,
        )
        say(
            f"plain inspect: {plain.wall_s:.1f} s = "
            f"{plain.wall_s / floor:.2f}x the floor"
        )
        results.append(
            Result(
                "longtail: plain inspect eval() / floor",
                plain.wall_s / floor,
                "x",
                detail=f"{plain.wall_s:.1f} s",
            )
        )
    return report(results)


if __name__ == "__main__":
    sys.exit(main())
