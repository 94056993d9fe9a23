"""What a command's signature says: its parameters, analysed once per function.

A card's commands are bound once per agent, so the same method arrives once for every
agent; its parameters, and the validators and schemas built from them, are shared.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import inspect
import logging
import types
import typing
import weakref
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter

logger = logging.getLogger(__name__)

EMPTY = inspect.Parameter.empty
"""A parameter's default (or annotation) when it has none."""

# Annotations (or their generic origins) whose values are given as several items.
_COLLECTION_TYPES: frozenset[Any] = frozenset(
    {
        list,
        set,
        frozenset,
        tuple,
        collections.abc.Sequence,
        collections.abc.MutableSequence,
        collections.abc.Set,
        collections.abc.MutableSet,
        collections.abc.Collection,
        collections.abc.Iterable,
    }
)


@dataclasses.dataclass
class Param:
    """One parameter of a command, with its annotation resolved for coercion."""

    name: str
    kind: inspect._ParameterKind
    annotation: Any
    default: Any

    @property
    def required(self) -> bool:
        return self.default is EMPTY and self.kind is not inspect.Parameter.VAR_POSITIONAL

    @functools.cached_property
    def _shape(self) -> tuple[Any, bool]:
        return _strip_optional(self.annotation)

    @property
    def nullable(self) -> bool:
        return self._shape[1]

    @property
    def collection(self) -> bool:
        core = self._shape[0]
        return core in _COLLECTION_TYPES or typing.get_origin(core) in _COLLECTION_TYPES

    @property
    def untyped(self) -> bool:
        return self.annotation is Any

    @functools.cached_property
    def adapter(self) -> TypeAdapter[Any] | None:
        """The pydantic validator for this parameter, or None when pydantic cannot build one.

        Built on first use: creating validators for every command of every agent at start-up
        would be wasted on commands nobody types.
        """
        try:
            return TypeAdapter(self.annotation)
        except Exception:  # noqa: BLE001 - pydantic raises several kinds for unsupported types
            logger.debug("no validator for parameter %r (%r)", self.name, self.annotation)
            return None

    def schema(self) -> dict[str, Any]:
        """The JSON schema of one value of this parameter ({} when it cannot be described)."""
        return dict(self._schema)  # a copy: callers pop `$defs` out of it

    @functools.cached_property
    def _schema(self) -> dict[str, Any]:
        if self.untyped or self.adapter is None:
            return {}
        try:
            return dict(self.adapter.json_schema())
        except Exception:  # noqa: BLE001 - e.g. a type pydantic validates but cannot describe
            return {}

    def placeholder(self) -> str:
        """How this parameter appears in a usage line."""
        label = f"<{self.name}>"
        if self.kind is inspect.Parameter.VAR_POSITIONAL:
            return f"[{label}...]"
        if self.kind is inspect.Parameter.KEYWORD_ONLY or (
            self.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and not self.required
        ):
            label = f"{self.name}={label}"
        return label if self.required else f"[{label}]"


def _strip_optional(annotation: Any) -> tuple[Any, bool]:
    """Peel `Annotated` and `None` off an annotation: (the remaining type, admits None)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _strip_optional(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        members = typing.get_args(annotation)
        others = [member for member in members if member is not type(None)]
        nullable = len(others) < len(members)
        if len(others) == 1:
            core, inner_nullable = _strip_optional(others[0])
            return core, nullable or inner_nullable
        return annotation, nullable
    if annotation is None or annotation is type(None):
        return type(None), True
    return annotation, False


def _resolve_annotation(annotation: Any, namespace: dict[str, Any], where: str) -> Any:
    """The annotation as an object; `Any` when absent or when its text cannot be evaluated.

    Commands commonly live in modules using `from __future__ import annotations`, with some
    names imported only under TYPE_CHECKING (return types especially). Each parameter is
    resolved on its own so one such name does not cost the coercion of all the others.
    """
    if annotation is EMPTY:
        return Any
    if isinstance(annotation, str):
        try:
            return eval(annotation, namespace)
        except Exception:  # noqa: BLE001 - an annotation's text may raise anything: taken as Any
            logger.debug("cannot resolve annotation %r of %s; taking text as is", annotation, where)
            return Any
    return annotation


def _globals_of(fn: Callable[..., Any]) -> dict[str, Any]:
    target: Any = fn
    while isinstance(target, functools.partial):
        target = target.func
    target = inspect.unwrap(getattr(target, "__func__", target))
    namespace = getattr(target, "__globals__", None)
    return namespace if isinstance(namespace, dict) else {}


_analysed: weakref.WeakKeyDictionary[Any, dict[str, tuple[list[Param], Param | None]]] = (
    weakref.WeakKeyDictionary()
)


def analyse(name: str, fn: Callable[..., Any]) -> tuple[list[Param], Param | None]:
    """The parameters of a command, analysed once per function and shared by every agent.

    Cards are bound per agent, so the same method arrives once for each agent; its
    signature, and the validators and schemas built from it, do not change between them.
    """
    func = getattr(fn, "__func__", None)
    if func is None:
        return _analyse(name, fn)
    try:
        per_name = _analysed.setdefault(func, {})
    except TypeError:  # not weak-referenceable
        return _analyse(name, fn)
    found = per_name.get(name)
    if found is None:
        found = per_name[name] = _analyse(name, fn)
    return found


def _analyse(name: str, fn: Callable[..., Any]) -> tuple[list[Param], Param | None]:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot register command {name!r}: no inspectable signature") from exc
    namespace = _globals_of(fn)
    params: list[Param] = []
    var_positional: Param | None = None
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        param = Param(
            name=parameter.name,
            kind=parameter.kind,
            annotation=_resolve_annotation(
                parameter.annotation, namespace, f"{name}({parameter.name})"
            ),
            default=parameter.default,
        )
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            var_positional = param
        else:
            params.append(param)
    return params, var_positional
