"""`PlainData`: the base of every configuration class in this layer.

Configuration is written to team files and resumed from stores, so it is plain, frozen,
serializable data. A mistake in it should read as one line naming the field and the problem,
not as pydantic's multi-line report: the constructor turns a `ValidationError` into one
`ConfigError` line (nested validation, e.g. inside an agent config, keeps pydantic's report with
the same text in it).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from retinue.llm.errors import ConfigError

_VALUE_ERROR_PREFIX = "Value error, "


def describe_validation_error(owner: str, exc: ValidationError) -> str:
    """One line for every problem pydantic found, each naming its field."""
    problems: list[str] = []
    for error in exc.errors(include_url=False):
        location = ".".join(str(part) for part in error["loc"])
        message = error["msg"]
        if message.startswith(_VALUE_ERROR_PREFIX):
            message = message[len(_VALUE_ERROR_PREFIX) :]
        elif error["type"] != "missing":
            message = f"{message[:1].lower()}{message[1:]} (got {error['input']!r})"
        problems.append(f"{location}: {message}" if location else message)
    return f"{owner}: " + "; ".join(problems)


class PlainData(BaseModel):
    """Frozen, extra-forbidding pydantic data whose construction errors are one line."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(describe_validation_error(type(self).__name__, exc)) from None
