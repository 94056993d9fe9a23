"""`BaseConfig` and `BaseState`: what every actor is configured with and what it keeps."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from retinue.validation import ConfigModel


class BaseConfig(ConfigModel):
    """Name and role of an actor; subclasses add their own fields.

    A mistake is a `ConfigError` with one line per problem, naming the field.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, defer_build=True)

    name: str = ""
    role: str = ""


class BaseState(BaseModel):
    """An actor's resumable state; every change is published as a checkpoint."""

    model_config = ConfigDict(
        extra="forbid", arbitrary_types_allowed=True, validate_assignment=True, defer_build=True
    )
