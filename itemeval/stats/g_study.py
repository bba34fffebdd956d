"""What the variance components say about ranking models: the G coefficient of the
study's design, and the D-study of other designs with their price.

With the model as the object of measurement and every other facet random, the
relative error of a model's mean over n'_f levels of each facet f is
delta = sum over effects S containing the model (S ≠ {model}) of
sigma2_S / prod_{f in S, f ≠ model} n'_f, and the G coefficient is
sigma2_model / (sigma2_model + delta) (Brennan 2001, *Generalizability Theory*,
§4.1 eq. 4.9 and §5.1; Shavelson & Webb 1991, ch. 6). A D-study recomputes it for
other numbers of items, prompts, replications, draws and judges.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import product

import numpy as np

from .intervals import NAN
from .variance_components import Components, effect_name

OBJECT = "model"
TARGET_G = 0.8
D_FACETS = ("item", "prompt", "replication", "draw", "judge")
"""The facets a D-study varies (the columns of `designs`)."""


def table_groups(fit: Components) -> dict[str, list[int]]:
    """The G-study table's rows: each facet, each facet's interaction with the item,
    and every other interaction pooled as `residual` (the full interaction, which is
    confounded with error, among them)."""
    groups: dict[str, list[int]] = {}
    residual = []
    for index, effect in enumerate(fit.effects):
        is_row = len(effect) == 1 or (len(effect) == 2 and "item" in effect)
        if is_row and index != len(fit.effects) - 1:
            groups[effect_name(effect)] = [index]
        else:
            residual.append(index)
    groups["residual"] = residual
    return groups


def g_coefficient(
    fit: Components, sizes: Mapping[str, int] | None = None, *, of: str = OBJECT
) -> float:
    """The relative G coefficient of `of` for a design with `sizes` levels of each
    other facet (the study's own by default); NaN when `of` is not a facet."""
    if of not in fit.facets:
        return NAN
    n = dict(zip(fit.facets, fit.sizes)) | dict(sizes or {})
    sigma = np.clip(fit.sigma2, 0, None)
    universe = sigma[fit.effects.index((of,))]
    error = sum(
        sigma[i] / np.prod([n[f] for f in effect if f != of])
        for i, effect in enumerate(fit.effects)
        if of in effect and len(effect) > 1
    )
    total = universe + error
    return float(universe / total) if total > 0 else NAN


@dataclass(frozen=True)
class Design:
    """A D-study row: how many of each facet, its G coefficient and price."""

    sizes: dict[str, int]
    g: float
    usd: float
    cheapest: bool = False


def d_study(
    fit: Components,
    choices: Mapping[str, list[int]],
    price: Callable[[dict[str, int]], float],
    *,
    target: float = TARGET_G,
) -> list[Design]:
    """Every combination of `choices` (facet -> numbers of levels to try; a facet
    not given keeps the study's number, a facet the study lacks is 1), its G and
    `price(sizes)`, sorted by price; the cheapest reaching `target` is marked."""
    study = dict(zip(fit.facets, fit.sizes))
    base = {f: study.get(f, 1) for f in D_FACETS}
    names = list(choices)
    designs = []
    for combo in product(*(choices[f] for f in names)):
        sizes = base | dict(zip(names, combo))
        designs.append(Design(sizes, g_coefficient(fit, sizes), float(price(sizes))))
    designs.sort(key=lambda d: (d.usd, -d.g))
    reaching = [i for i, d in enumerate(designs) if d.g >= target]
    if reaching:
        best = designs[reaching[0]]
        designs[reaching[0]] = Design(best.sizes, best.g, best.usd, cheapest=True)
    return designs
