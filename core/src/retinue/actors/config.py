"""`BaseConfig` and `BaseState`: what every actor is configured with and what it keeps."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class BaseConfig(BaseModel):
    """Name and role of an actor; subclasses add their own fields."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    name: str = ""
    role: str = ""


class BaseState(BaseModel):
    """An actor's resumable state; every change is published as a checkpoint."""

    model_config = ConfigDict(
        extra="forbid", arbitrary_types_allowed=True, validate_assignment=True
    )
