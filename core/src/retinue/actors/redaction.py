"""Credentials out of everything a team publishes or records.

A config is what an actor connects with, so it keeps its secrets; but the copy announced in
a `StartMessage` reaches every subscriber and every record, and a record outlives the
process. `redact_credentials` gives that copy: every string in it (any depth of models,
lists and mappings) has the password of a URL (`http://user:secret@host`), a bare token in
a URL's user part (`https://token@host`) and the value of a query parameter whose name says
it is a secret (`?api_key=...`) replaced by `***`, and every pydantic `SecretStr` (the type a
card gives its token and password fields) replaced by one holding `***`. Everything else is
left as it was, and a value with nothing to hide is returned as the same object.

Credentials belong in environment variables (`ModelConfig.api_key_env`); a resumed team
whose record held a redacted address has to be given the real one again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, SecretStr

REDACTED = "***"
"""What a credential is replaced with."""

T = TypeVar("T")

_USERINFO = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<user>[^\s/?#@:]*)(?::(?P<password>[^\s/?#@]*))?@"
)
_SECRET_PARAMETER = re.compile(
    r"(?P<name>[?&;][^\s=&#;]*(?:key|token|secret|passw|pwd|auth|signature|credential)"
    r"[^\s=&#;]*=)(?P<value>[^\s&#;]+)",
    re.IGNORECASE,
)


def redact_text(text: str) -> str:
    """`text` with every credential in a URL replaced by `***`."""
    if "://" not in text:
        return text
    return _SECRET_PARAMETER.sub(_hide_value, _USERINFO.sub(_hide_userinfo, text))


def _hide_userinfo(match: re.Match[str]) -> str:
    if match["password"] is None:  # a lone user part: often a token (https://<token>@host)
        return f"{match['scheme']}{REDACTED}@" if match["user"] else match[0]
    return f"{match['scheme']}{match['user']}:{REDACTED}@"


def _hide_value(match: re.Match[str]) -> str:
    return f"{match['name']}{REDACTED}"


def redact_credentials(value: T) -> T:
    """A copy of `value` safe to publish: credentials in every string of it redacted.

    Walks pydantic models (field by field, keeping their class), lists, tuples and mappings;
    anything else is kept as it is. Returns `value` itself when nothing needed hiding.
    """
    redacted: T = _redact(value)
    return redacted


_PLAIN = frozenset({int, float, bool, type(None)})


def _redact(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:  # most fields of a config
        return value
    if isinstance(value, str | SecretStr):
        return _redact_string(value)
    if isinstance(value, BaseModel):
        return _redact_model(value)
    if isinstance(value, list | tuple):
        return _redact_items(value)
    if isinstance(value, Mapping):
        pairs = {key: _redact(item) for key, item in value.items()}
        unchanged = all(pairs[key] is item for key, item in value.items())
        return value if unchanged else pairs
    return value


def _redact_string(value: str | SecretStr) -> str | SecretStr:
    if isinstance(value, SecretStr):  # a declared secret: hidden whatever it holds
        return value if value.get_secret_value() == REDACTED else SecretStr(REDACTED)
    hidden = redact_text(value)
    return value if hidden == value else hidden


def _redact_model(model: BaseModel) -> BaseModel:
    changes = {}
    for name, current in model.__dict__.items():  # the field values, read without a lookup
        hidden = _redact(current)
        if hidden is not current:
            changes[name] = hidden
    return model.model_copy(update=changes) if changes else model


def _redact_items(items: list[Any] | tuple[Any, ...]) -> list[Any] | tuple[Any, ...]:
    hidden = [_redact(item) for item in items]
    if all(new is old for new, old in zip(hidden, items, strict=True)):
        return items
    if isinstance(items, list):
        return hidden
    return tuple(hidden) if type(items) is tuple else type(items)(*hidden)
