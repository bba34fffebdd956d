"""A grade condition's scores as a matrix of answers by draws (a frame without a
`draw` column holds draw 1 only)."""

from __future__ import annotations

import numpy as np
import pandas as pd

ANSWER = ("gen_condition_id", "item_id", "epoch")
"""What one answer is, within a grade condition: the draws of a judge grade it again."""


def with_draw(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a `draw` column: grades written before draws existed are draw
    1."""
    if "draw" in frame.columns:
        return frame
    return frame.assign(draw=1)


def draw_matrix(
    frame: pd.DataFrame, value: str = "score"
) -> tuple[np.ndarray, np.ndarray]:
    """(answers × draws) of one grade condition's `value`, and each answer's item.

    Only answers graded in every draw (no NaN) are kept, so the matrix is complete;
    draws are the columns in order 1..K."""
    frame = with_draw(frame)
    keys = [key for key in ANSWER if key in frame.columns]
    wide = frame.pivot_table(
        index=keys, columns="draw", values=value, aggfunc="first", dropna=False
    ).dropna()
    wide = wide.reindex(sorted(wide.columns), axis=1)
    items = wide.index.get_level_values("item_id").to_numpy()
    return wide.to_numpy(dtype=float), items
