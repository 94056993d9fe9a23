"""Configuration mistakes as one line per problem, each naming the dotted path at fault.

pydantic reports a bad field in three or four lines (the model, the location, the message,
a documentation link). Configuration is written by people, in code and in team files, and a
mistake in it deserves one line that says where and what: `AgentConfig: modle_cfg: unknown
field; did you mean 'model_cfg'?`. Every configuration model derives from `ConfigModel`, which
turns a `ValidationError` into a `ConfigError` when it is built or validated; the same
helpers serve any other loader (a team file prefixes its own key path with `prefixed`).
"""

from __future__ import annotations

import difflib
import inspect
import math
import reprlib
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, NamedTuple, Self

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

MAX_TIMEOUT_SECONDS = 30 * 24 * 3600.0
"""The longest timeout any setting accepts: 30 days, safely below every platform's limit
for a blocking wait (a longer one raises `OverflowError` inside the wait itself)."""

_PREFIXES = ("Value error, ", "Assertion failed, ")
# Location parts pydantic adds for union members and wrapped validators, not for fields.
_TYPE_TAGS = frozenset(
    {"str", "int", "float", "bool", "bytes", "list", "dict", "set", "tuple", "frozenset", "none"}
)
_INPUT_SHOWN = 60
_CONFIG_ERROR = "config_error"  # the type of a `ConfigValidationError`'s line errors
MAX_SHOWN_CHARS = 200
"""The most of a value a problem echoes: a 30 MB name is a problem to name, not to print."""
MAX_LINE_CHARS = 1000
"""The longest line a problem is given, whatever its parts echo."""
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, MAX_SHOWN_CHARS, MAX_SHOWN_CHARS
# Errors about the type of a whole value, whose last location part names the class tried.
_WHOLE_VALUE_ERRORS = frozenset(
    {"model_type", "model_attributes_type", "dataclass_type", "is_instance_of", "is_subclass_of"}
)


class ConfigProblem(NamedTuple):
    """One mistake: where it is (field names and list indices) and what is wrong."""

    path: tuple[str | int, ...]
    message: str

    def render(self, owner: str | None = None) -> str:
        """`owner: path: message`, on one line."""
        where = dotted_path(self.path)
        text = f"{where}: {self.message}" if where else self.message
        return f"{owner}: {text}" if owner else text


class ConfigError(ValueError):
    """A configuration cannot work; the message has one line per problem.

    `problems` holds each of them with its path, so a loader that nests this configuration
    in a larger document can report the full path of every one.
    """

    def __init__(self, message: str | None = None, problems: Sequence[ConfigProblem] = ()) -> None:
        self.problems: tuple[ConfigProblem, ...] = tuple(problems)
        if message is None:
            message = "\n".join(problem.render() for problem in self.problems)
        if not self.problems:
            self.problems = (ConfigProblem((), message),)
        self.owner: str | None = None
        super().__init__(message)

    @classmethod
    def from_problems(cls, owner: str, problems: Sequence[ConfigProblem]) -> ConfigError:
        """One line per problem, each starting with `owner` (the class being built)."""
        error = cls("\n".join(problem.render(owner) for problem in problems), problems)
        error.owner = owner
        return error

    @classmethod
    def from_validation_error(
        cls, owner: str, exc: ValidationError, model: type[BaseModel] | None = None
    ) -> ConfigError:
        """The `ConfigError` for what pydantic found while building `owner`."""
        return cls.from_problems(owner, validation_problems(exc, model))

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (type(self), str(self), self.problems, self.owner)


def _rebuild(
    cls: type[ConfigError], message: str, problems: tuple[ConfigProblem, ...], owner: str | None
) -> ConfigError:
    error = cls(message, problems)
    error.owner = owner
    return error


class _BuiltTitle(str):
    """The title `from_exception_data` hands back to the class it builds: not a message."""


class ConfigValidationError(ConfigError, ValidationError):
    """A `ConfigError` that is also pydantic's `ValidationError`, one line error per problem.

    For models that were plain pydantic models before they were `ConfigModel`s (tool cards):
    code that catches their `ValidationError` still does, and reads one line per problem.
    """

    def __new__(
        cls, message: str | None = None, problems: Sequence[ConfigProblem] = (), *built: Any
    ) -> Self:
        if isinstance(message, _BuiltTitle):  # pydantic-core calling back to build it
            return super().__new__(cls, message, problems, *built)
        details: list[InitErrorDetails] = [
            {
                "type": PydanticCustomError(_CONFIG_ERROR, "{problem}", {"problem": p.message}),
                "loc": p.path,
                "input": None,
            }
            for p in problems or [ConfigProblem((), message or "")]
        ]
        return cls.from_exception_data(_BuiltTitle(cls.__name__), details)

    def __init__(
        self, message: str | None = None, problems: Sequence[ConfigProblem] = (), *built: Any
    ) -> None:
        if not isinstance(message, _BuiltTitle):
            super().__init__(message, problems)

    def __str__(self) -> str:
        return str(self.args[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


def shorten(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """`text`, or its first `limit` characters, an ellipsis and its full length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def shown(value: object, limit: int = MAX_SHOWN_CHARS) -> str:
    """`repr(value)` for a message, about `limit` characters at most.

    A long string is cut before its repr is built, and any other value's repr stops at a
    few levels of nesting (`reprlib`), so a huge or deeply nested value costs nothing.
    """
    if isinstance(value, str):
        return (
            repr(value)
            if len(value) <= limit
            else f"{value[:limit]!r}… ({len(value):,} characters)"
        )
    return shorten(_REPR.repr(value), limit)


def dotted_path(path: Iterable[str | int]) -> str:
    """`config.tools[1].max_members` from `("config", "tools", 1, "max_members")`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


def prefixed(problems: Iterable[ConfigProblem], *prefix: str | int) -> list[ConfigProblem]:
    """The same problems, found inside the value at `prefix`."""
    return [ConfigProblem((*prefix, *problem.path), problem.message) for problem in problems]


def validation_problems(
    exc: ValidationError, model: type[BaseModel] | None = None
) -> list[ConfigProblem]:
    """One problem per field pydantic refused; a union's refusals of one value are merged.

    `model` (the class validated) lets an unknown field suggest the closest known one.
    """
    if isinstance(exc, ConfigError):  # a `ConfigValidationError`: its problems as they are
        return list(exc.problems)
    merged: dict[tuple[str | int, ...], list[str]] = {}
    for error in exc.errors(include_url=False):
        path = _field_path(error)
        nested = (error.get("ctx") or {}).get("error")
        if isinstance(nested, ConfigError):
            for problem in prefixed(nested.problems, *path):
                merged.setdefault(problem.path, []).append(problem.message)
            continue
        message = _message(error, path, model)
        found = merged.setdefault(path, [])
        if message not in found:
            found.append(message)
    return [ConfigProblem(path, "; or ".join(messages)) for path, messages in merged.items()]


def _field_path(error: Any) -> tuple[str | int, ...]:
    """The error's location without the tags pydantic adds for union members."""
    loc: tuple[str | int, ...] = error["loc"]
    if loc and error["type"] in _WHOLE_VALUE_ERRORS and _names_the_class_tried(loc[-1], error):
        loc = loc[:-1]  # `tools.0.ToolCard`: the union member the value was tried as
    return tuple(part for part in loc if not _is_type_tag(part))


def _names_the_class_tried(part: str | int, error: Any) -> bool:
    """Whether `part` is the class pydantic tried, not a key that looks like one
    (`roles.Developer` of a mapping of cards)."""
    ctx = error.get("ctx") or {}
    tried = ctx.get("class_name") or ctx.get("class")
    if tried is None:
        return isinstance(part, str) and part[:1].isupper()
    return bool(part == tried)


def _is_type_tag(part: str | int) -> bool:
    if isinstance(part, int):
        return False
    return not part.isidentifier() or part in _TYPE_TAGS


def _message(error: Any, path: tuple[str | int, ...], model: type[BaseModel] | None) -> str:
    kind = error["type"]
    text: str = error["msg"]
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix) :]
    if kind == _CONFIG_ERROR:  # a problem a `ConfigValidationError` found, met again
        return text
    if kind == "missing":
        return "required, but not given"
    if kind == "extra_forbidden":
        return "unknown field" + _did_you_mean(path, model)
    return f"{text[:1].lower()}{text[1:]} (got {shown(error['input'], _INPUT_SHOWN)})"


def _did_you_mean(path: tuple[str | int, ...], model: type[BaseModel] | None) -> str:
    """A close known field name for a misspelt one, found at the same depth."""
    if not path or not isinstance(path[-1], str):
        return ""
    owner = _model_at(model, path[:-1])
    if owner is None:
        return ""
    close = difflib.get_close_matches(path[-1], list(owner.model_fields), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _model_at(model: type[BaseModel] | None, path: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The model class a path leads to through nested model fields, when it is plain."""
    for part in path:
        if model is None or not isinstance(part, str):
            return None
        field = model.model_fields.get(part)
        annotation = field.annotation if field is not None else None
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
        else:
            model = None
    return model


def check_timeout(owner: str, name: str, value: Any) -> float:
    """A timeout in seconds: a positive, finite number no longer than 30 days."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 < value <= MAX_TIMEOUT_SECONDS
    ):
        raise ConfigError.from_problems(
            owner,
            [
                ConfigProblem(
                    (name,),
                    "must be a number of seconds above 0 and at most "
                    f"{MAX_TIMEOUT_SECONDS:.0f} (30 days) (got {value!r})",
                )
            ],
        )
    return float(value)


class ConfigModel(BaseModel):
    """A pydantic model whose construction and validation errors are `ConfigError`s."""

    model_config = ConfigDict(defer_build=True)

    config_error: ClassVar[type[ConfigError]] = ConfigError
    """What its errors are raised as: `ConfigValidationError` where callers catch pydantic's."""

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            cls = type(self)
            raise cls.config_error.from_validation_error(cls.__name__, exc, cls) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Self:
        """As pydantic's, with every problem reported as one line of a `ConfigError`."""
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as exc:
            raise cls.config_error.from_validation_error(cls.__name__, exc, cls) from None

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> Self:
        """As pydantic's, with every problem reported as one line of a `ConfigError`."""
        try:
            return super().model_validate_json(json_data, **kwargs)
        except ValidationError as exc:
            raise cls.config_error.from_validation_error(cls.__name__, exc, cls) from None


def warn_at_caller(message: str, category: type[Warning] = DeprecationWarning) -> None:
    """Warn about the line of user code that led here, past retinue's and pydantic's frames.

    A deprecated keyword passes through pydantic's validation and our validators before it
    is seen; a fixed `stacklevel` would point into one of them, or into the wrong caller
    once the call path changes.
    """
    frame = inspect.currentframe()
    level = 1
    frame = frame.f_back if frame is not None else None
    while frame is not None and _is_internal(frame.f_globals.get("__name__", "")):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level + 1)


def _is_internal(module: str) -> bool:
    return module.split(".", 1)[0] in {"retinue", "pydantic", "pydantic_core"}
