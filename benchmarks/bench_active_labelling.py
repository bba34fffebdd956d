"""Active labelling in simulation (issue 54): coverage of the corrected interval and
the labels it saves against a uniform queue, over 1,000 studies per scenario.

Run: `.venv/bin/python benchmarks/bench_active_labelling.py [--studies 1000]`.
Each study: four cells of 300 0/1 answers, a lenient judge (it passes some answers
the human fails) and 240 draws of the active queue (share 0.2). Reported per
scenario: the share of intervals holding each cell's truth; the labels taken; the
labels a uniform queue needs for the widest cell's interval, as `results` estimates
it (`labels_saved`) and as measured by running uniform queues of growing size with
the same estimator; and the worst |difference| of the estimator against the
published formula (tests/stats/test_active_ppi.py) on random arrays.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.stats.simulated_labelling import (  # noqa: E402
    Scenario,
    covered,
    simulate,
    widest,
)

SCENARIOS = {
    "errors in two cells (3% vs 30%)": Scenario(),
    "errors in two cells (1% vs 40%)": Scenario(lenient=(0.01, 0.01, 0.4, 0.4)),
    "errors everywhere alike (20%)": Scenario(lenient=(0.2, 0.2, 0.2, 0.2)),
}


def measured_uniform(scenario: Scenario, target: float, studies: int) -> float:
    """The labels a uniform queue takes for its mean widest interval to be `target`,
    interpolated between uniform runs of growing size."""
    points = []
    for draws in range(200, 1201, 100):
        run = simulate(scenario, studies=studies, draws=draws, share=1.0, seed=7)
        points.append((run.labels.mean(), widest(run).mean()))
        if points[-1][1] <= target:
            break
    (n0, w0), (n1, w1) = points[-2], points[-1]
    return n0 + (w0 - target) / (w0 - w1) * (n1 - n0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--studies", type=int, default=1000)
    studies = parser.parse_args().studies
    for name, scenario in SCENARIOS.items():
        active = simulate(scenario, studies=studies, draws=240, share=0.2, seed=0)
        labels = active.labels.mean()
        estimated = np.array([c.uniform_labels for c in active.cells]).max(0).mean()
        measured = measured_uniform(scenario, widest(active).mean(), studies)
        print(
            f"{name}: coverage {covered(active, scenario).mean():.1%}; "
            f"{labels:.0f} labels; a uniform queue needs {estimated:.0f} "
            f"(estimated, saving {1 - labels / estimated:.0%}) / {measured:.0f} "
            f"(measured, saving {1 - labels / measured:.0%})"
        )


if __name__ == "__main__":
    main()
