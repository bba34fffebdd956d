"""The itemeval CLI with every inspect sample's end held back, as on a machine too busy
to end samples promptly.

Run as `python tests/stalled_sample_end.py generate <config> ...`. The hook is
registered before itemeval's own, so whatever itemeval does at a sample's end waits
behind it: STALL_S, or `TEST_STALL_S` seconds (inspect does not cancel a hook, so a
Ctrl-C waits it out too).
"""

from __future__ import annotations

import os
import sys

import anyio
from inspect_ai.hooks import Hooks, SampleEnd, hooks

# longer than any test waits for a row: a row must not depend on the sample ending
STALL_S = 300.0


@hooks(name="test_stalled_sample_end", description="holds every sample's end back")
class _Stall(Hooks):
    async def on_sample_end(self, data: SampleEnd) -> None:
        await anyio.sleep(float(os.environ.get("TEST_STALL_S", STALL_S)))


if __name__ == "__main__":
    from itemeval.cli import main

    sys.exit(main())
