"""The command registry: one table of named commands, reached from text or from Python.

A tool card offers operator-facing actions (`hire_member`, `stop`, `planning_summary`, ...)
on its `COMMAND` channel. The agent collects them into one `CommandRegistry`, and two
surfaces then reach the same table:

* **text** — `dispatch("/hire_member Developer name=@Ada")` parses a slash command typed by a
  human, coerces its arguments against the command's signature and returns the result
  rendered as text, so a user proxy can show it;
* **Python** — `callable("hire_member")("Developer")` hands back the command itself, so code
  (the agent's own routing, for instance) gets the native value, here an `ActorAddress`.

`descriptors()` describes every public command as plain data, so the set can be announced to
a UI once instead of being copied into documentation where it would drift.

How text becomes arguments
--------------------------
The text after the command name is split with `shlex` (so quotes group words) and bound like
a Python call, with two operator-friendly rules:

* a token `key=value` is a keyword only when `key` names a real parameter of the command that
  may be passed by keyword; any other token, even one containing `=`, is a positional value
  and is kept intact (`/search_planning a=b` searches for `a=b`);
* positional values fill, in order, the positional parameters that were not given by
  keyword, so `/hire_member name=@Ada Developer` works as well as the other order.

Each value is then validated by pydantic against the parameter's annotation (lax mode, so
`"3"` becomes `3` and `yes`/`no`/`true`/`false`/`1`/`0` become booleans). A value that does
not fit as text is retried as JSON, which covers `Literal[1, 2]`, dicts and pydantic models
(`'{"a": 1}'`). A parameter that admits `None` receives `None` for an empty value or the
words `none`/`null` (any case). A collection parameter (`list`, `set`, `tuple`, `Sequence`,
...) takes comma-separated items (`tags=a,b`) or a JSON array (`tags='["a,b", "c"]'`), and a
repeated keyword adds to it (`tags=a tags=b`); positional collection values are one token each.
`*args` collects the positional values left over; nothing in the text binds to `**kwargs`.

What can go wrong
-----------------
Text that is not a slash command, or whose leading name is not registered, raises
`CommandNotRecognized`: the agent then treats the message as ordinary content, so a sentence
that starts with a slash is never lost. Once the command is identified, every failure
(unbalanced quotes, a missing or extra argument, a malformed value, the command raising) is
returned as a result string naming the command and the problem: the operator asked for this
command and deserves an answer, not a silent hand-over to the LLM.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import inspect
import json
import logging
import re
import shlex
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

__all__ = [
    "CommandDescriptor",
    "CommandNotRecognized",
    "CommandRegistry",
    "DuplicateCommandError",
    "render_result",
]

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

_EMPTY = inspect.Parameter.empty
_POSITIONAL_KINDS = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
)
_KEYWORD_KINDS = (
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)
# Words an operator types to mean "no value" for a parameter that admits None.
_NULL_WORDS = frozenset({"", "none", "null"})
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
_COMMAND_TEXT = re.compile(r"/(?P<name>\S+)(?:\s+(?P<rest>.*))?", re.DOTALL)
_NOTHING = "(none)"


class CommandNotRecognized(LookupError):  # noqa: N818 -- the spec's name for this signal
    """The text is not a slash command this registry knows.

    This is a signal more than a failure: the caller (the agent) catches it and handles the
    text as ordinary content. It is raised only when the command could not be *identified*;
    problems after that are reported by `dispatch()` as its result.
    """

    def __init__(self, name: str, text: str | None = None) -> None:
        self.name = name
        self.text = text
        super().__init__(f"no command named {name!r}" if name else f"not a slash command: {text!r}")

    def __str__(self) -> str:
        return str(self.args[0])


class DuplicateCommandError(ValueError):
    """Two commands were registered under one name.

    Commands are keyed by name because that is what an operator types; two cards offering
    the same name would make one of them unreachable, so the registry refuses the second
    instead of silently shadowing the first.
    """


class CommandDescriptor(BaseModel):
    """What a UI or a log needs to know about one command, as plain serializable data."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="The command's name, typed after the slash.")
    description: str = Field(description="The first line of the command's docstring.")
    parameters: dict[str, Any] = Field(
        description="JSON schema (an object schema) of the command's arguments."
    )
    owner: str | None = Field(
        default=None, description="Name of the tool card that provides the command, if any."
    )
    usage: str = Field(description="How to type the command, e.g. `/hire_member <role> [name=…]`.")


class _ArgumentError(Exception):
    """An argument problem found while binding text to a command (internal)."""


@dataclasses.dataclass
class _Param:
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


class _Command:
    """A registered callable with everything `dispatch()` needs to call it from text."""

    def __init__(
        self,
        name: str,
        fn: Callable[..., Any],
        owner: str | None,
        params: list[_Param],
        var_positional: _Param | None,
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

    def descriptor(self) -> CommandDescriptor:
        return CommandDescriptor(
            name=self.name,
            description=self.description,
            parameters=self.json_schema(),
            owner=self.owner,
            usage=self.usage,
        )

    def bind(self, tokens: list[str]) -> tuple[list[Any], dict[str, Any]]:
        """Turn argument tokens into call arguments, or raise `_ArgumentError`."""
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
        """Decide which parameter each token is for: (raw values by name, tokens for *args)."""
        given: dict[str, list[str]] = {}
        loose: list[str] = []
        for token in tokens:
            key, sep, value = token.partition("=")
            if sep and key in self.keyword_names:
                if key in given and not self.by_name[key].collection:
                    raise _ArgumentError(f"argument {key!r} given more than once")
                given.setdefault(key, []).append(value)
            else:
                loose.append(token)

        free = [p for p in self.positional if p.name not in given]
        extra: list[str] = []
        for token in loose:
            if free:
                given[free.pop(0).name] = [token]
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
            raise _ArgumentError(f"missing argument{plural} {names}")
        if extra and self.var_positional is None:
            raise _ArgumentError(self._too_many(extra))
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


def _validate(param: _Param, value: Any, shown: str) -> Any:
    if param.adapter is None:
        raise _ArgumentError(
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
        raise _ArgumentError(f"argument {param.name!r}: {reason} (got {shown!r})") from None


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


def _coerce(param: _Param, tokens: list[str]) -> Any:
    """Validate the raw text given for one parameter into the value the command receives."""
    if param.untyped:
        return tokens[0]
    if param.nullable and len(tokens) == 1 and tokens[0].strip().lower() in _NULL_WORDS:
        return None
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


def _analyse(name: str, fn: Callable[..., Any]) -> tuple[list[_Param], _Param | None]:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot register command {name!r}: no inspectable signature") from exc
    namespace = _globals_of(fn)
    params: list[_Param] = []
    var_positional: _Param | None = None
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        param = _Param(
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


class CommandRegistry:
    """The commands one agent answers to, by name.

    Names beginning with `_` are internal hooks (the media-expansion command, for instance):
    they can be called and dispatched like any other, but `descriptors()` leaves them out so
    they are never announced to operators.
    """

    def __init__(self) -> None:
        self._commands: dict[str, _Command] = {}

    def register(self, fn: F, owner: str | None = None, *, name: str | None = None) -> F:
        """Add `fn` as a command keyed by its `__name__` (or `name`), owned by card `owner`.

        Returns `fn` unchanged, so the method can also be used as a decorator. Raises
        `DuplicateCommandError` naming both owners when the name is already taken, and
        `TypeError` for something that cannot be called from text (not callable, a
        coroutine function, no signature).
        """
        if not callable(fn):
            raise TypeError(f"a command must be callable, got {fn!r}")
        key = name if name is not None else getattr(fn, "__name__", None)
        if not isinstance(key, str):
            raise TypeError(f"{fn!r} has no __name__; register it with name=...")
        if not key.isidentifier():
            raise ValueError(f"command name {key!r} is not an identifier")
        if inspect.iscoroutinefunction(fn):
            raise TypeError(
                f"command {key!r} is a coroutine function; commands run inside an actor's "
                "handler and must be synchronous"
            )
        existing = self._commands.get(key)
        if existing is not None:
            raise DuplicateCommandError(
                f"command {key!r} is provided twice: by {_owner_label(existing.owner)} and "
                f"by {_owner_label(owner)}"
            )
        params, var_positional = _analyse(key, fn)
        self._commands[key] = _Command(key, fn, owner, params, var_positional)
        return fn

    def has(self, name: str) -> bool:
        """Whether a command of this name is registered (private names included)."""
        return name in self._commands

    def __contains__(self, name: object) -> bool:
        return name in self._commands

    def __len__(self) -> int:
        return len(self._commands)

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands)

    def callable(self, name: str) -> Callable[..., Any]:
        """The registered command itself, returning its native value.

        Raises `CommandNotRecognized` for an unknown name; check with `has()` first when the
        command is optional (it comes from a card that may not be installed).
        """
        try:
            return self._commands[name].fn
        except KeyError:
            raise CommandNotRecognized(name) from None

    def descriptors(self) -> list[CommandDescriptor]:
        """Every public command as serializable metadata, in registration order."""
        return [
            command.descriptor()
            for name, command in self._commands.items()
            if not name.startswith("_")
        ]

    def dispatch(self, text: str) -> str | None:
        """Run the slash command in `text` and return its result rendered as text.

        Returns None when the command returned None ("handled, say nothing"). Raises
        `CommandNotRecognized` when `text` is not a slash command or names no registered
        command; any later failure is returned as a message naming the command.
        """
        match = _COMMAND_TEXT.fullmatch(text.strip())
        if match is None:
            raise CommandNotRecognized("", text)
        name = match["name"]
        command = self._commands.get(name)
        if command is None:
            raise CommandNotRecognized(name, text)
        try:
            tokens = shlex.split(match["rest"] or "")
        except ValueError as exc:
            return f"/{name}: cannot read the arguments ({exc}). Usage: {command.usage}"
        try:
            args, kwargs = command.bind(tokens)
        except _ArgumentError as exc:
            return f"/{name}: {exc}. Usage: {command.usage}"
        try:
            result = command.fn(*args, **kwargs)
        except Exception as exc:
            logger.warning("command /%s raised", name, exc_info=True)
            return f"/{name} failed: {type(exc).__name__}: {exc}"
        if result is None:
            return None
        try:
            return render_result(result)
        except Exception as exc:
            logger.warning("result of /%s could not be rendered", name, exc_info=True)
            return f"/{name}: the result could not be shown ({type(exc).__name__}: {exc})"


def _owner_label(owner: str | None) -> str:
    return f"card {owner!r}" if owner is not None else "a command with no card"


def render_result(value: Any) -> str:
    """Render a command's native result as text for a human.

    Strings pass through; objects with their own `__str__` (an `ActorAddress` shows its
    name) use it; pydantic models, dataclasses and mappings become `field: value` lines;
    lists, tuples and sets one item per line; an empty collection reads `(none)`.
    """
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, str) or _has_own_str(value):
        return str(value)
    fields = _fields_of(value)
    if fields is not None:
        lines = [f"{key}: {_render_inline(item)}" for key, item in fields.items()]
    else:
        items = _items_of(value)
        if items is None:
            return str(value)
        lines = [_render_inline(item) for item in items]
    return "\n".join(lines) if lines else _NOTHING


def _render_inline(value: Any) -> str:
    """One value inside a line of a larger rendering."""
    if value is None:
        return "-"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, str) or _has_own_str(value):
        return str(value)
    fields = _fields_of(value)
    if fields is not None:
        return ", ".join(f"{key}: {_render_inline(item)}" for key, item in fields.items())
    items = _items_of(value)
    if items is not None:
        return ", ".join(_render_inline(item) for item in items) if items else _NOTHING
    return str(value)


def _has_own_str(value: Any) -> bool:
    """Whether the value's class chose how it reads, rather than inheriting a repr."""
    method: object = type(value).__str__
    return method is not object.__str__ and method is not BaseModel.__str__


def _fields_of(value: Any) -> dict[Any, Any] | None:
    if isinstance(value, BaseModel):
        return {name: getattr(value, name) for name in type(value).model_fields}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return dict(value)
    return None


def _items_of(value: Any) -> list[Any] | None:
    if isinstance(value, bytes | bytearray | memoryview):
        return None
    if isinstance(value, collections.abc.Set):
        try:
            return sorted(value)
        except TypeError:  # unorderable members keep their iteration order
            return list(value)
    if isinstance(value, collections.abc.Collection):
        return list(value)
    return None
