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
* as in a Python call, positional values come first and fill the positional parameters in
  order, then keywords follow: `/hire_member Developer name=@Ada`. A positional value after
  a keyword (`/hire_member name=@Ada Developer`), or a keyword for a parameter a positional
  value already filled (`/hire_member Developer role=QA`), is refused, never guessed at.

Each value is then validated by pydantic against the parameter's annotation (lax mode, so
`"3"` becomes `3` and `yes`/`no`/`true`/`false`/`1`/`0` become booleans). A value that does
not fit as text is retried as JSON, which covers `Literal[1, 2]`, dicts and pydantic models
(`'{"a": 1}'`). A parameter that admits `None` receives `None` for the words `none`/`null`
(any case); an empty value (`name=""`) is the empty string, or the empty collection, and
`None` only where neither fits (`limit=` for an `int | None`). A collection parameter
(`list`, `set`, `tuple`, `Sequence`, ...) takes comma-separated items (`tags=a,b`) or a JSON
array (`tags='["a,b", "c"]'`), and a repeated keyword adds to it (`tags=a tags=b`);
positional collection values are one token each.
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
import inspect
import logging
import re
import shlex
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from retinue.actors.errors import describe_error
from retinue.tools.command_binding import BoundCommand
from retinue.tools.command_coercion import ArgumentError
from retinue.tools.command_params import analyse

# What this module puts on the public face (`from retinue import ...`); its other names are
# the kernel's, imported from here.
__all__ = [
    "CommandDescriptor",
    "CommandNotRecognized",
    "CommandRegistry",
]

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

_COMMAND_TEXT = re.compile(r"/(?P<name>\S+)(?:\s+(?P<rest>.*))?", re.DOTALL)
_NOTHING = "(none)"

MAX_COMMAND_CHARS = 4_000
"""The longest slash command that is parsed; a longer one is refused unread."""
MAX_ARGUMENT_CHARS = 1_000
"""The longest single argument a command is given."""
MAX_ECHO_CHARS = 200
"""How much of a failure message (which may quote the input) an answer shows."""


def shorten(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    """`text`, cut to `limit` characters with a note of how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"


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

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str = Field(description="The command's name, typed after the slash.")
    description: str = Field(description="The first line of the command's docstring.")
    parameters: dict[str, Any] = Field(
        description="JSON schema (an object schema) of the command's arguments."
    )
    owner: str | None = Field(
        default=None, description="Name of the tool card that provides the command, if any."
    )
    usage: str = Field(description="How to type the command, e.g. `/hire_member <role> [name=…]`.")


def describe(command: BoundCommand) -> CommandDescriptor:
    """The announced form of a command; made once per method, name and card, and shared.

    Every agent bound to a card announces the same descriptors (they depend on the
    method, not on the agent it is bound to): one frozen object serves them all.
    """
    method = getattr(command.fn, "__func__", None)
    try:
        shared = _described.setdefault(method, {}) if method is not None else None
    except TypeError:  # not weak-referenceable
        shared = None
    key = (command.name, command.owner)
    found = shared.get(key) if shared is not None else None
    if found is None:
        found = CommandDescriptor(
            name=command.name,
            description=command.description,
            parameters=command.json_schema(),
            owner=command.owner,
            usage=command.usage,
        )
        if shared is not None:
            shared[key] = found
    return found


_described: weakref.WeakKeyDictionary[Any, dict[tuple[str, str | None], CommandDescriptor]] = (
    weakref.WeakKeyDictionary()
)


class CommandRegistry:
    """The commands one agent answers to, by name.

    Names beginning with `_` are internal hooks (the media-expansion command, for instance):
    they can be called and dispatched like any other, but `descriptors()` leaves them out so
    they are never announced to operators.
    """

    def __init__(self) -> None:
        self._commands: dict[str, BoundCommand] = {}

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
        params, var_positional = analyse(key, fn)
        self._commands[key] = BoundCommand(key, fn, owner, params, var_positional)
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
            describe(command)
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
        tokens = _read_arguments(command, text, match["rest"] or "")
        if isinstance(tokens, str):
            return tokens
        try:
            args, kwargs = command.bind(tokens)
        except ArgumentError as exc:
            return f"/{name}: {shorten(str(exc))}. Usage: {command.usage}"
        try:
            result = command.fn(*args, **kwargs)
        except Exception as exc:
            # The operator reads the cause in the answer; the log gets one line, the
            # traceback only at DEBUG (a mistyped role is not a crash).
            logger.warning("command /%s failed: %s", name, shorten(describe_error(exc)))
            logger.debug("traceback of /%s", name, exc_info=True)
            return f"/{name} failed: {type(exc).__name__}: {shorten(str(exc))}"
        if result is None:
            return None
        try:
            return render_result(result)
        except Exception as exc:
            logger.warning("result of /%s could not be rendered: %s", name, describe_error(exc))
            logger.debug("traceback of rendering /%s", name, exc_info=True)
            return f"/{name}: the result could not be shown ({type(exc).__name__}: {exc})"


def _read_arguments(command: BoundCommand, text: str, rest: str) -> list[str] | str:
    """The argument tokens, or the one-line refusal of input too long or unreadable.

    The length is checked before `shlex` reads anything: splitting a megabyte takes seconds.
    """
    name = command.name
    if len(text) > MAX_COMMAND_CHARS:
        return (
            f"/{name}: the command is too long ({len(text):,} characters; at most "
            f"{MAX_COMMAND_CHARS:,}); nothing was run."
        )
    try:
        tokens = shlex.split(rest)
    except ValueError as exc:
        return f"/{name}: cannot read the arguments ({exc}). Usage: {command.usage}"
    for position, token in enumerate(tokens, start=1):
        if len(token) > MAX_ARGUMENT_CHARS:
            return (
                f"/{name}: argument {position} is too long ({len(token):,} characters; at "
                f"most {MAX_ARGUMENT_CHARS:,}); nothing was run."
            )
    return tokens


def _owner_label(owner: str | None) -> str:
    return f"card {owner!r}" if owner is not None else "a command with no card"


def render_result(value: Any) -> str:
    """Render a command's native result as text for a human.

    Strings pass through; objects with their own `__str__` (an `ActorAddress` shows its
    name) use it; pydantic models, dataclasses and mappings become `field: value` lines;
    lists, tuples and sets one item per line; an empty collection reads `(none)`.
    """
    scalar = _scalar_text(value)
    if scalar is not None:
        return scalar
    fields = _fields_of(value)
    if fields is not None:
        lines = [f"{key}: {_render_inline(item)}" for key, item in fields.items()]
    else:
        items = _items_of(value)
        if items is None:
            return str(value)
        lines = [_render_inline(item) for item in items]
    return "\n".join(lines) if lines else _NOTHING


def _scalar_text(value: Any) -> str | None:
    """An enum's value, a string, or an object's own `__str__`; None for a value with parts."""
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, str) or _has_own_str(value):
        return str(value)
    return None


def _render_inline(value: Any) -> str:
    """One value inside a line of a larger rendering."""
    if value is None:
        return "-"
    scalar = _scalar_text(value)
    if scalar is not None:
        return scalar
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
