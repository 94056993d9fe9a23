"""`AgentCard`: a role blueprint any actor class can be created from."""

from __future__ import annotations

from typing import Any

from pydantic import (
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializeAsAny,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from retinue.actors.config import BaseConfig
from retinue.actors.errors import ActorClassError
from retinue.actors.loader import imported_object, is_reading_record, public_name
from retinue.validation import ConfigError, ConfigModel


class AgentCard(ConfigModel):
    """What a team may hire: a description, skills, an actor class and its config.

    The role is read from `config.role`, the single source of truth; `role=` is not accepted.
    The actor class is checked when the card is built (a dotted path is imported then), and
    a config given as data is validated as that class's `config_class`, so a card read back
    from `model_dump()` equals the card written. The class is written back as the path it
    was given, or, given as a class, as its public path (`retinue.BaseAgent`), so a stored
    card does not depend on the kernel's module layout. A card read from a record finds
    its class among the modules already imported, else keeps the path as a string (reading
    imports nothing; `get_agent_class` imports it then). `metadata` is free data for
    applications (a UI's icon, a cost centre); the kernel never reads it.
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, defer_build=True)

    description: str = ""
    skills: list[str] = Field(default_factory=list)
    agent_class: type[Any] | str
    config: SerializeAsAny[BaseConfig]
    routes_to: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: The class and the path it is written as (given, or its public path).
    _class_path: tuple[type[Any] | str, str] | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _no_role_keyword(cls, data: Any) -> Any:
        if isinstance(data, dict) and "role" in data:
            raise ValueError("AgentCard takes no role=; set config.role instead")
        return data

    @model_validator(mode="wrap")
    @classmethod
    def _keep_class_path(cls, data: Any, handler: ModelWrapValidatorHandler[AgentCard]) -> Any:
        card = handler(data)
        given = data.get("agent_class") if isinstance(data, dict) else None
        agent_class = card.agent_class
        # the card this validator just built: the class's own private attribute
        if isinstance(given, str):
            card._class_path = (agent_class, given)  # noqa: SLF001
        elif card._class_path is None and isinstance(agent_class, type):  # noqa: SLF001
            card._class_path = (agent_class, public_name(agent_class))  # noqa: SLF001
        return card

    @field_validator("agent_class", mode="before")
    @classmethod
    def _actor_class(cls, value: Any) -> type[Any] | str:
        from retinue.actors.system import resolve_actor_class

        if isinstance(value, str) and is_reading_record():  # find it, never import it
            found = imported_object(value)
            if not isinstance(found, type):
                return value
            try:
                return resolve_actor_class(found)
            except ActorClassError:
                return value
        return resolve_actor_class(value)

    @field_validator("config", mode="before")
    @classmethod
    def _config_of_the_class(cls, value: Any, info: ValidationInfo) -> Any:
        agent_class = info.data.get("agent_class")
        if not isinstance(agent_class, type):
            # The class was refused, so its config class is unknown: a stand-in keeps the
            # config from being checked against another class's fields (never built).
            return BaseConfig.model_construct()
        config_class: type[BaseConfig] = getattr(agent_class, "config_class", BaseConfig)
        if isinstance(value, config_class):
            return value
        if isinstance(value, BaseConfig):
            raise ConfigError(
                f"{agent_class.__name__} is configured with {config_class.__name__}, "
                f"not {type(value).__name__}"
            )
        return config_class.model_validate(value)

    @field_serializer("agent_class")
    def _write_class_path(self, value: type[Any] | str) -> str:
        if isinstance(value, str):
            return value
        kept = self._class_path
        return kept[1] if kept is not None and kept[0] is value else public_name(value)

    @property
    def role(self) -> str:
        """The role this card hires, read from its config."""
        return self.config.role

    def has_skill(self, skill: str) -> bool:
        """Whether the card lists `skill`, ignoring case and surrounding spaces."""
        wanted = skill.strip().casefold()
        return any(own.strip().casefold() == wanted for own in self.skills)

    def get_config_copy(self) -> Any:
        """An independent deep copy of the config, ready for `createActor`."""
        return self.config.model_copy(deep=True)

    def get_agent_class(self) -> type[Any]:
        """The actor class (checked when the card was built; imported now if it was read
        from a record)."""
        from retinue.actors.system import resolve_actor_class

        return resolve_actor_class(self.agent_class)
