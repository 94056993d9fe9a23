"""`AgentCard`: a role blueprint any actor class can be created from."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_serializer, model_validator

from retinue.actors.config import BaseConfig
from retinue.actors.loader import qualified_name


class AgentCard(BaseModel):
    """What a team may hire: a description, skills, an actor class and its config.

    The role is read from `config.role`, the single source of truth; `role=` is not accepted.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    description: str = ""
    skills: list[str] = Field(default_factory=list)
    agent_class: type[Any] | str
    config: SerializeAsAny[BaseConfig]
    routes_to: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _no_role_keyword(cls, data: Any) -> Any:
        if isinstance(data, dict) and "role" in data:
            raise ValueError("AgentCard takes no role=; set config.role instead")
        return data

    @field_serializer("agent_class")
    def _class_path(self, value: type[Any] | str) -> str:
        return value if isinstance(value, str) else qualified_name(value)

    @property
    def role(self) -> str:
        """The role this card hires, read from its config."""
        return self.config.role

    def get_config_copy(self) -> Any:
        """An independent deep copy of the config, ready for `createActor`."""
        return self.config.model_copy(deep=True)

    def get_agent_class(self) -> type[Any]:
        """The actor class, importing it when it was given as a dotted path."""
        from retinue.actors.system import resolve_actor_class

        return resolve_actor_class(self.agent_class)
