"""How the text of a slash command binds to a command's signature.

`commands.py` holds the registry; this module holds the parsing and coercion rules it
applies (documented there), so each file keeps one job.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import inspect
import json
import logging
import shlex
import types
import typing
import weakref
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

logger = logging.getLogger(__name__)

_EMPTY = inspect.Parameter.empty
_POSITIONAL_KINDS = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
)
_KEYWORD_KINDS = (
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)
# Words an operator types to mean "no value" for a parameter that admits None. An empty value
# is not one of them: `name=""` is the empty string.
_NULL_WORDS = frozenset({"none", "null"})
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


class ArgumentError(Exception):
    """An argument problem found while binding text to a command (internal)."""


@dataclasses.dataclass
class Param:
    """One parameter of a command, with its annotation resolved for coercion."""

    name: str
    kind: inspect._ParameterKind
    annotation: Any
    default: Any

    @property
    def required(self) -> bool:
        return self.default is _EMPTY and self.kind is not inspect.Parameter.VAR_POSITIONAL

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
        except Exception:  # pydantic raises several kinds for unsupported types
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
        except Exception:  # e.g. a type pydantic validates but cannot describe
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


class BoundCommand:
    """A registered callable with everything `dispatch()` needs to call it from text."""

    def __init__(
        self,
        name: str,
        fn: Callable[..., Any],
        owner: str | None,
        params: list[Param],
        var_positional: Param | None,
    ) -> None:
        self.name = name
        self.fn = fn
        self.owner = owner
        self.params = params
        self.var_positional = var_positional
        self.by_name = {p.name: p for p in params}
        self.keyword_names = frozenset(p.name for p in params if p.kind in _KEYWORD_KINDS)
        self.positional = [p for p in params if p.kind in _POSITIONAL_KINDS]

    @property
    def usage(self) -> str:
        parts = [f"/{self.name}"]
        parts.extend(p.placeholder() for p in self.params)
        if self.var_positional is not None:
            parts.append(self.var_positional.placeholder())
        return " ".join(parts)

    @property
    def description(self) -> str:
        doc = inspect.getdoc(self.fn) or ""
        return doc.strip().splitlines()[0].strip() if doc.strip() else ""

    def json_schema(self) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        defs: dict[str, Any] = {}
        for param in self.params:
            schema = param.schema()
            defs.update(schema.pop("$defs", {}))
            if param.default is not _EMPTY:
                try:
                    schema["default"] = to_jsonable_python(param.default)
                except Exception:  # a default with no JSON form is simply not announced
                    logger.debug("default of %s.%s is not JSON-able", self.name, param.name)
            properties[param.name] = schema
            if param.required:
                required.append(param.name)
        if self.var_positional is not None:
            schema = self.var_positional.schema()
            defs.update(schema.pop("$defs", {}))
            properties[self.var_positional.name] = {"type": "array", "items": schema}
        result: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            result["required"] = required
        if defs:
            result["$defs"] = defs
        return result

    def bind(self, tokens: list[str]) -> tuple[list[Any], dict[str, Any]]:
        """Turn argument tokens into call arguments, or raise `ArgumentError`."""
        given, extra = self._assign(tokens)
        values = {name: _coerce(self.by_name[name], found) for name, found in given.items()}
        rest: list[Any] = []
        if self.var_positional is not None:
            rest = [_coerce(self.var_positional, [token]) for token in extra]

        # Positional-only parameters must travel positionally, and so must everything before
        # *args once it is used; anything else goes by keyword, which is never ambiguous.
        if rest:
            count = len(self.positional)
        else:
            count = 0
            for index, param in enumerate(self.positional):
                if param.kind is inspect.Parameter.POSITIONAL_ONLY and param.name in values:
                    count = index + 1
        args = [values.pop(p.name, p.default) for p in self.positional[:count]]
        return [*args, *rest], values

    def _assign(self, tokens: list[str]) -> tuple[dict[str, list[str]], list[str]]:
        """Decide which parameter each token is for: (raw values by name, tokens for *args).

        As in a Python call: positional values first, filling the positional parameters in
        order; then keywords. A positional value after a keyword, or a keyword for a
        parameter a positional value already filled, is refused rather than guessed at.
        """
        given: dict[str, list[str]] = {}
        by_position: set[str] = set()
        free = list(self.positional)
        extra: list[str] = []
        first_keyword: str | None = None
        for token in tokens:
            key, sep, value = token.partition("=")
            if sep and key in self.keyword_names:
                if key in by_position:
                    raise ArgumentError(f"argument {key!r} given twice: by position and as {key}=")
                if key in given and not self.by_name[key].collection:
                    raise ArgumentError(f"argument {key!r} given more than once")
                given.setdefault(key, []).append(value)
                first_keyword = first_keyword or key
            elif first_keyword is not None:
                raise ArgumentError(
                    f"positional argument {token!r} follows keyword argument {first_keyword}=; "
                    "give positional arguments first"
                )
            elif free:
                name = free.pop(0).name
                given[name] = [token]
                by_position.add(name)
            else:
                extra.append(token)
        missing = [p for p in self.params if p.required and p.name not in given]
        if missing:
            names = ", ".join(
                f"{p.name!r} (as {p.name}=...)"
                if p.kind is inspect.Parameter.KEYWORD_ONLY
                else repr(p.name)
                for p in missing
            )
            plural = "s" if len(missing) > 1 else ""
            raise ArgumentError(f"missing argument{plural} {names}")
        if extra and self.var_positional is None:
            raise ArgumentError(self._too_many(extra))
        return given, extra

    def _too_many(self, extra: list[str]) -> str:
        for token in extra:
            key, sep, _ = token.partition("=")
            if sep and key.isidentifier():
                known = ", ".join(sorted(self.keyword_names)) or "none"
                return f"unknown keyword argument {key!r} (keyword arguments: {known})"
        shown = " ".join(shlex.quote(token) for token in extra)
        return f"too many arguments: {shown}"


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


def _validate(param: Param, value: Any, shown: str) -> Any:
    if param.adapter is None:
        raise ArgumentError(
            f"argument {param.name!r} ({param.annotation!r}) cannot be given as text"
        )
    try:
        return param.adapter.validate_python(value)
    except ValidationError as first:
        # Text that failed as a string may be JSON for the target type: `1` for Literal[1],
        # `{"a": 1}` for a model. Retry once, and report the first error if that fails too.
        alternative = _json_values(value)
        if alternative is not None:
            try:
                return param.adapter.validate_python(alternative)
            except ValidationError:
                pass
        reason = first.errors()[0]["msg"] if first.errors() else str(first)
        raise ArgumentError(f"argument {param.name!r}: {reason} (got {shown!r})") from None


def _json_values(value: Any) -> Any | None:
    """`value` with its JSON-looking strings decoded, or None when nothing would change."""
    if isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            return None
        return None if decoded == value else decoded
    if isinstance(value, list):
        decoded_items = [_json_values(item) for item in value]
        if all(item is None for item in decoded_items):
            return None
        return [
            item if decoded is None else decoded
            for item, decoded in zip(value, decoded_items, strict=True)
        ]
    return None


def _coerce(param: Param, tokens: list[str]) -> Any:
    """Validate the raw text given for one parameter into the value the command receives."""
    if param.untyped:
        return tokens[0]
    if param.nullable and len(tokens) == 1:
        word = tokens[0].strip()
        if word.lower() in _NULL_WORDS:
            return None
        if not word:  # `name=""`: an empty string (or collection) where one fits, else None
            try:
                return _coerce_value(param, tokens)
            except ArgumentError:
                return None
    return _coerce_value(param, tokens)


def _coerce_value(param: Param, tokens: list[str]) -> Any:
    if not param.collection:
        return _validate(param, tokens[0], tokens[0])
    items: list[Any] = []
    for token in tokens:
        stripped = token.strip()
        if stripped.startswith("["):
            try:
                decoded = json.loads(stripped)
            except ValueError:
                decoded = None
            if isinstance(decoded, list):
                items.extend(decoded)
                continue
        items.extend(item.strip() for item in token.split(",") if item.strip())
    return _validate(param, items, ",".join(tokens))


def _resolve_annotation(annotation: Any, namespace: dict[str, Any], where: str) -> Any:
    """The annotation as an object; `Any` when absent or when its text cannot be evaluated.

    Commands commonly live in modules using `from __future__ import annotations`, with some
    names imported only under TYPE_CHECKING (return types especially). Each parameter is
    resolved on its own so one such name does not cost the coercion of all the others.
    """
    if annotation is _EMPTY:
        return Any
    if isinstance(annotation, str):
        try:
            return eval(annotation, namespace)
        except Exception:
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
