"""A small inspect task the bridge tests load as a dataset and run with `eval()`."""

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import match
from inspect_ai.solver import generate

SAMPLES = [
    Sample(id="a1", input="What is 2 + 3?", target="5", metadata={"level": "easy"}),
    Sample(id="a2", input="What is 7 * 6?", target="42", metadata={"level": "easy"}),
    Sample(
        id="a3",
        input=[
            ChatMessageSystem(content="Be terse."),
            ChatMessageUser(content="What is 100 - 58?"),
        ],
        target=["42", "42.0"],
        metadata={"level": "hard"},
    ),
    Sample(id="a4", input="What is 81 / 9?", target="9", metadata={"level": "hard"}),
]


@task
def arith(limit: int = 4) -> Task:
    return Task(
        dataset=MemoryDataset(SAMPLES[:limit], name="arith"),
        solver=[generate()],
        scorer=match(numeric=True),
    )
