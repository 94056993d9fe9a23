"""How the text given for one parameter becomes the value the command receives.

pydantic validates each value against the parameter's annotation in lax mode; text that
does not fit is retried as JSON; the words `none`/`null` mean None where None is allowed;
a collection takes comma-separated items or a JSON array. The rules are documented, for
operators, in `commands.py`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from retinue.tools.command_params import Param

# Words an operator types to mean "no value" for a parameter that admits None. An empty value
# is not one of them: `name=""` is the empty string.
_NULL_WORDS = frozenset({"none", "null"})


class ArgumentError(Exception):
    """An argument problem found while binding text to a command (internal)."""


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


def coerce(param: Param, tokens: list[str]) -> Any:
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
