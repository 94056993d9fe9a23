"""Credentials out of everything a team publishes or records.

A config is what an actor connects with, so it keeps its secrets; but the copy announced in
a `StartMessage` reaches every subscriber and every record, and a record outlives the
process. `redact_credentials` gives that copy: every string in it (any depth of models,
lists and mappings) has the password of a URL (`http://user:secret@host`), a bare token in
a URL's user part (`https://token@host`) and the value of a query parameter whose name says
it is a secret (`?api_key=...`) replaced by `***`, and every pydantic `SecretStr` (the type a
card gives its token and password fields) replaced by one holding `***`. An address field
(`url`, `base_url`, any `..._url`) also has each path segment that looks like a key hidden
(`redact_address`): some gateways take the key in the path (`/v1/sk-.../chat`). Only
addresses: a prompt's link to a commit is not a secret, and a redacted prompt would change
what a resumed team is told. Everything else is left as it was, and a value with nothing
to hide is returned as the same object.

Credentials belong in environment variables (`ModelConfig.api_key_env`); a resumed team
whose record held a redacted address has to be given the real one again.
"""

from __future__ import annotations

import itertools
import logging
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


_ADDRESS_PATH = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#]*)(?P<path>/[^\s?#]*)")
_KEY_PREFIXES = (
    "sk-", "sk_", "rk_", "pk_", "gsk_", "xai-", "hf_", "ghp_", "gho_", "ghs_", "github_pat_",
    "glpat-", "AIza", "pplx-", "r8_", "xoxb-", "xoxp-", "eyJ",
)  # fmt: skip
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_KEY_MIN_CHARS = 20


def looks_like_a_key(segment: str) -> bool:
    """Whether a path segment reads as a credential: 20 characters or more that start like a
    provider's key (`sk-`, `ghp_`, `AIza`, a JWT's `eyJ`, ...) or read as random, letters and
    digits (or cases) alternating throughout, as a generated token does and a name does not.
    A UUID is an identifier, not a key."""
    if len(segment) < _KEY_MIN_CHARS or _UUID.fullmatch(segment):
        return False
    if segment.startswith(_KEY_PREFIXES):
        return True
    kinds = ["d" if c.isdigit() else "u" if c.isupper() else "l" for c in segment if c.isalnum()]
    changes = sum(a != b for a, b in itertools.pairwise(kinds))
    return len(set(kinds)) > 1 and changes * 4 >= len(kinds)


def redact_address(text: str) -> str:
    """`redact_text`, and every path segment of a URL in `text` that looks like a key."""
    return _ADDRESS_PATH.sub(_hide_path_keys, redact_text(text))


def _hide_path_keys(match: re.Match[str]) -> str:
    segments = match["path"].split("/")
    hidden = [REDACTED if looks_like_a_key(segment) else segment for segment in segments]
    return match["head"] + "/".join(hidden)


class RedactingFilter(logging.Filter):
    """A log filter hiding credentials in the URLs of a record's message (`redact_address`),
    for a dependency's loggers that print the addresses they connect to."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = redact_address(message)
        if hidden != message:
            record.msg, record.args = hidden, None
        return True


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
        if isinstance(current, str) and _is_address(name):
            hidden: Any = redact_address(current)
            hidden = current if hidden == current else hidden
        else:
            hidden = _redact(current)
        if hidden is not current:
            changes[name] = hidden
    return model.model_copy(update=changes) if changes else model


def _is_address(field: str) -> bool:
    return field == "url" or field.endswith("_url")


def _redact_items(items: list[Any] | tuple[Any, ...]) -> list[Any] | tuple[Any, ...]:
    hidden = [_redact(item) for item in items]
    if all(new is old for new, old in zip(hidden, items, strict=True)):
        return items
    if isinstance(items, list):
        return hidden
    return tuple(hidden) if type(items) is tuple else type(items)(*hidden)
