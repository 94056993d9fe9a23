"""The graph's data: entities with their observations, typed relations, the whole graph.

Plain frozen pydantic models: nothing is changed in place (a change makes new objects), so a
published graph can be read by any thread and put into checkpoints as it is, and each
round-trips through JSON to an equal value, which is what resuming a team relies on.

Entities are keyed by their name folded to lower case (`entity_key`), so `Parser` and
`parser` are one entity; it keeps the spelling it was created with. A relation is keyed by
its source, type and target (`relation_key`): the same link twice is one relation.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field
from retinue import FrozenMap
from retinue.kit import VersionedState


def now() -> datetime:
    """The time stamped on a change (UTC)."""
    return datetime.now(UTC)


def entity_key(name: str) -> str:
    """The key an entity is found by: its name, case folded."""
    return name.casefold()


def relation_key(source: str, relation: str, target: str) -> str:
    """The key of one relation (names are one line, so a newline cannot occur in them)."""
    return f"{entity_key(source)}\n{relation}\n{entity_key(target)}"


class Observation(BaseModel):
    """A fact about an entity: what, who recorded it (`@Ada`), and when."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    author: str
    time: datetime


class Entity(BaseModel):
    """One entity, as of one version of the graph."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    type: str
    description: str = ""
    properties: FrozenMap[str, str] = Field(default_factory=FrozenMap)
    observations: tuple[Observation, ...] = ()
    """The latest observations, oldest first (see `earlier_observations`)."""
    earlier_observations: int = 0
    """How many older observations were let go to keep the entity small."""
    created_at: datetime
    created_by: str
    updated_at: datetime
    updated_by: str

    @property
    def key(self) -> str:
        return entity_key(self.name)

    @property
    def observation_count(self) -> int:
        """Every observation ever recorded, the ones let go included."""
        return self.earlier_observations + len(self.observations)


class Relation(BaseModel):
    """`source` —`type`→ `target`: directed and typed, with who linked them and when."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    type: str
    target: str
    author: str
    time: datetime

    @property
    def key(self) -> str:
        return relation_key(self.source, self.type, self.target)


def _no_entities() -> FrozenMap[str, Entity]:
    return FrozenMap()


def _no_relations() -> FrozenMap[str, Relation]:
    return FrozenMap()


class KnowledgeGraphState(VersionedState):
    """A whole graph as of one version (how many changes it has seen): the graph actor's
    checkpointed state and every reader's snapshot."""

    model_config = ConfigDict(frozen=True)

    entities: FrozenMap[str, Entity] = Field(default_factory=_no_entities)
    relations: FrozenMap[str, Relation] = Field(default_factory=_no_relations)


class NewEntity(BaseModel):
    """An entity to add: a name and a type are required."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Unique, such as 'Parser' or 'Ada Lovelace'.")
    type: str = Field(description="Such as person, component, decision.")
    description: str = ""
    properties: dict[str, str] = Field(default_factory=dict)
    observations: list[str] = Field(default_factory=list, description="Facts, one each.")


class EntityChanges(BaseModel):
    """What to change on an entity; None leaves a field as it is."""

    model_config = ConfigDict(extra="forbid")

    type: str | None = None
    description: str | None = None
    properties: dict[str, str] | None = None
    """Merged into the entity's; an empty value removes that key."""
    observation: str | None = None
    """An observation to record in the same change."""
