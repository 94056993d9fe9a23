"""How the tokens of a slash command bind to a command's parameters, as in a Python call.

`commands.py` holds the registry and reads the text into tokens; this module decides which
parameter each token is for and hands each parameter's text to `command_coercion`; the
parameters themselves come from `command_params`. The rules are documented in `commands.py`.
"""

from __future__ import annotations

import functools
import inspect
import logging
import shlex
from collections.abc import Callable
from typing import Any

from pydantic_core import to_jsonable_python

from retinue.tools.command_coercion import ArgumentError, coerce
from retinue.tools.command_params import EMPTY, Param

logger = logging.getLogger(__name__)

_POSITIONAL_KINDS = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
)
_KEYWORD_KINDS = (
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)


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

    # Derived when a command is first typed: most agents never dispatch most of theirs.
    @functools.cached_property
    def by_name(self) -> dict[str, Param]:
        return {p.name: p for p in self.params}

    @functools.cached_property
    def keyword_names(self) -> frozenset[str]:
        return frozenset(p.name for p in self.params if p.kind in _KEYWORD_KINDS)

    @functools.cached_property
    def positional(self) -> list[Param]:
        return [p for p in self.params if p.kind in _POSITIONAL_KINDS]

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
            if param.default is not EMPTY:
                try:
                    schema["default"] = to_jsonable_python(param.default)
                # a default with no JSON form is simply not announced
                except Exception:  # noqa: BLE001
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
        values = {name: coerce(self.by_name[name], found) for name, found in given.items()}
        rest: list[Any] = []
        if self.var_positional is not None:
            rest = [coerce(self.var_positional, [token]) for token in extra]

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
