"""A scorer's params as a pydantic model built from its own signature, so a config
is checked against what the function takes."""

from __future__ import annotations

import inspect as pyinspect
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, create_model


def params_model(
    name: str, factory: Callable[..., Any], *, extra: Mapping[str, tuple[Any, Any]] = {}
) -> type[BaseModel]:
    """A strict pydantic model of the factory's params that YAML can express
    (callables and models are left out)."""
    try:
        hints = typing.get_type_hints(factory)
    # a user's annotation that cannot be resolved: its params take any value
    except (
        NameError,
        TypeError,
    ):
        hints = {}
    fields: dict[str, tuple[Any, Any]] = dict(extra)
    for param in pyinspect.signature(factory).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = _yaml_part(hints.get(param.name, Any))
        if annotation is None:
            continue
        fields[param.name] = (
            annotation,
            ... if param.default is param.empty else param.default,
        )
    config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    return create_model(
        f"{name.replace(':', '_').replace('.', '_')}_params",
        __config__=config,
        **fields,
    )


_PLAIN = (str, int, float, bool, type(None))


def _yaml_part(annotation: Any) -> Any:
    """The part of an annotation a YAML value can take, or None when it can take none
    (a callable, a Model)."""
    if annotation is Any or annotation in _PLAIN:
        return annotation
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return annotation
    if origin in (Union, types.UnionType):
        kept = [part for part in (_yaml_part(arg) for arg in args) if part is not None]
        if not kept or kept == [type(None)]:
            return None
        return Union[tuple(kept)]  # type: ignore[return-value]
    if origin in (list, tuple, Sequence) and all(
        _yaml_part(arg) is not None for arg in args if arg is not Ellipsis
    ):
        return list[_yaml_part(args[0])] if args else list  # type: ignore[misc]
    if (
        origin in (dict, Mapping)
        and args
        and args[0] is str
        and _yaml_part(args[1]) is not None
    ):
        return dict[str, _yaml_part(args[1])]  # type: ignore[misc]
    return None
