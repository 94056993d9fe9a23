"""The graph's rules: what an add, an update, a removal or a link does, and what it refuses.

Pure functions of the graph as it is and the change asked for: each returns the `Change` to
make, or raises `KnowledgeError` with a reason a model can act on, and changes nothing
itself. The graph actor applies what they return, one call at a time.

The rules the graph keeps:

* an entity's name is unique whatever its case, one line, at most `MAX_NAME` characters;
* a relation links two existing, different entities with a type that is a word or a few
  (`works_on`, `depends on` becomes `depends_on`); the same link twice is one relation;
* removing an entity removes every relation it is in;
* every text is cleaned and capped (see `retinue_knowledge.text`); an entity keeps its
  latest `MAX_OBSERVATIONS` observations and counts the rest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from retinue.kit import clean_block, clean_line

from retinue_knowledge.errors import KnowledgeError
from retinue_knowledge.graph import (
    Entity,
    EntityChanges,
    KnowledgeGraphState,
    NewEntity,
    Observation,
    Relation,
    entity_key,
    relation_key,
)
from retinue_knowledge.text import (
    MAX_DESCRIPTION,
    MAX_NAME,
    MAX_OBSERVATION,
    MAX_PROPERTY_KEY,
    MAX_PROPERTY_VALUE,
    MAX_TYPE,
    checked,
    quoted,
)

MAX_ENTITIES = 10_000
MAX_RELATIONS = 50_000
MAX_BATCH = 50
"""The most entities one call adds."""
MAX_PROPERTIES = 30
MAX_OBSERVATIONS = 50
"""The most observations an entity keeps; older ones are let go and counted."""
_RELATION_TYPE = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(slots=True)
class Change:
    """What one operation does to the graph, and one sentence saying it."""

    message: str
    entities: dict[str, Entity] = field(default_factory=dict)
    """Entities added or changed, by key."""
    removed: list[str] = field(default_factory=list)
    """Keys of the entities removed."""
    relations: dict[str, Relation] = field(default_factory=dict)
    unlinked: list[str] = field(default_factory=list)
    """Keys of the relations removed."""

    @property
    def empty(self) -> bool:
        return not (self.entities or self.removed or self.relations or self.unlinked)

    @property
    def touched(self) -> set[str]:
        """The entities whose searchable text this changes (their relations are in it)."""
        keys = set(self.entities) | set(self.removed)
        for relation in self.relations.values():
            keys.update((entity_key(relation.source), entity_key(relation.target)))
        for key in self.unlinked:
            source, _, target = key.split("\n")
            keys.update((source, target))
        return keys


def find(graph: KnowledgeGraphState, name: str) -> Entity:
    """The entity called `name` (any case), or an error naming a few close ones."""
    wanted = clean_line(name)
    entity: Entity | None = graph.entities.get(entity_key(wanted))
    if entity is not None:
        return entity
    if not wanted:
        raise KnowledgeError("no entity name was given")
    folded = entity_key(wanted)
    close = sorted(e.name for k, e in graph.entities.items() if folded in k or k in folded)[:5]
    hint = f"; did you mean {', '.join(close)}?" if close else "; kg_search finds entities"
    raise KnowledgeError(f"there is no entity {quoted(wanted)}{hint}")


def add_entities(
    graph: KnowledgeGraphState, drafts: Sequence[NewEntity], author: str, when: datetime
) -> Change:
    """The entities `drafts` describe, all or none."""
    if not drafts:
        raise KnowledgeError("no entities were given; give at least one with a name and a type")
    if len(drafts) > MAX_BATCH:
        raise KnowledgeError(f"{len(drafts)} entities were given; the most is {MAX_BATCH} a call")
    if len(graph.entities) + len(drafts) > MAX_ENTITIES:
        raise KnowledgeError(f"the graph holds at most {MAX_ENTITIES:,} entities; nothing added")
    made: dict[str, Entity] = {}
    for position, draft in enumerate(drafts, start=1):
        label = f"entity {position} ({quoted(draft.name)}): " if len(drafts) > 1 else ""
        try:
            entity = _new_entity(draft, author, when)
        except KnowledgeError as exc:
            raise KnowledgeError(f"{label}{exc}") from None
        existing = graph.entities.get(entity.key) or made.get(entity.key)
        if existing is not None:
            raise KnowledgeError(f"{label}{existing.name} already exists; kg_update changes it")
        made[entity.key] = entity
    names = ", ".join(e.name for e in made.values())
    return Change(f"Added {names}.", entities=made)


def update_entity(
    graph: KnowledgeGraphState, name: str, changes: EntityChanges, author: str, when: datetime
) -> Change:
    """One entity changed as asked (an empty `Change` when it already is)."""
    entity = find(graph, name)
    update: dict[str, object] = {}
    if changes.type is not None:
        update["type"] = _type(changes.type)
    if changes.description is not None:
        update["description"] = _description(changes.description)
    if changes.properties is not None:
        merged = dict(entity.properties)
        for key, value in _properties(changes.properties, allow_empty=True).items():
            if value:
                merged[key] = value
            else:
                merged.pop(key, None)
        if len(merged) > MAX_PROPERTIES:
            raise KnowledgeError(f"an entity has at most {MAX_PROPERTIES} properties")
        update["properties"] = merged
    if changes.observation is not None:
        update.update(_observed(entity, [changes.observation], author, when))
    after = Entity.model_validate({**entity.model_dump(), **update})
    if after == entity:
        return Change(f"{entity.name} already is as asked; nothing changed.")
    after = after.model_copy(update={"updated_at": when, "updated_by": author})
    return Change(f"Updated {entity.name}.", entities={entity.key: after})


def remove_entity(graph: KnowledgeGraphState, name: str, author: str, when: datetime) -> Change:
    """One entity gone, with every relation it is in (the entities at their other ends
    count as changed)."""
    entity = find(graph, name)
    key = entity.key
    gone = [
        k
        for k, r in graph.relations.items()
        if entity_key(r.source) == key or entity_key(r.target) == key
    ]
    count = f" and {len(gone)} relation{'s' if len(gone) != 1 else ''}" if gone else ""
    others = {entity_key(r.source) for r in (graph.relations[k] for k in gone)}
    others |= {entity_key(r.target) for r in (graph.relations[k] for k in gone)}
    others.discard(key)
    touched = {k: _stamped(graph.entities[k], author, when) for k in sorted(others)}
    return Change(f"Removed {entity.name}{count}.", entities=touched, removed=[key], unlinked=gone)


def link(
    graph: KnowledgeGraphState,
    source: str,
    relation: str,
    target: str,
    *,
    author: str,
    when: datetime,
    remove: bool = False,
) -> Change:
    """`source` —`relation`→ `target` added (or, with `remove`, taken away); both entities
    count as changed."""
    kind = relation_type(relation)
    start, end = find(graph, source), find(graph, target)
    if start.key == end.key:
        raise KnowledgeError(f"{start.name} cannot be related to itself; link two entities")
    key = relation_key(start.name, kind, end.name)
    said = f"{start.name} —{kind}→ {end.name}"
    if remove:
        if key not in graph.relations:
            raise KnowledgeError(f"there is no relation {said}; kg_show {start.name} lists them")
        return Change(f"Unlinked {said}.", entities=_both(start, end, author, when), unlinked=[key])
    if key in graph.relations:
        return Change(f"{said} already exists; nothing changed.")
    if len(graph.relations) >= MAX_RELATIONS:
        raise KnowledgeError(f"the graph holds at most {MAX_RELATIONS:,} relations")
    made = Relation(source=start.name, type=kind, target=end.name, author=author, time=when)
    return Change(
        f"Linked {said}.", entities=_both(start, end, author, when), relations={key: made}
    )


def relation_type(relation: str) -> str:
    """A relation type as the graph writes it (`Works On` is `works_on`), or an error."""
    kind = clean_line(relation).lower().replace(" ", "_").replace("-", "_")
    checked("the relation type", kind, MAX_TYPE, required=True)
    if _RELATION_TYPE.fullmatch(kind) is None:
        raise KnowledgeError(
            f"{quoted(relation)} is not a relation type; use a word or a few, such as "
            "works_on or depends_on (letters, digits, underscores)"
        )
    return kind


# ---------------------------------------------------------------------- helpers


def _stamped(entity: Entity, author: str, when: datetime) -> Entity:
    return entity.model_copy(update={"updated_at": when, "updated_by": author})


def _both(start: Entity, end: Entity, author: str, when: datetime) -> dict[str, Entity]:
    return {e.key: _stamped(e, author, when) for e in (start, end)}


def _new_entity(draft: NewEntity, author: str, when: datetime) -> Entity:
    name = checked("the name", clean_line(draft.name), MAX_NAME, required=True)
    entity = Entity(
        name=name,
        type=_type(draft.type),
        description=_description(draft.description),
        properties=_properties(draft.properties),
        created_at=when,
        created_by=author,
        updated_at=when,
        updated_by=author,
    )
    if draft.observations:
        entity = entity.model_copy(update=_observed(entity, draft.observations, author, when))
    return entity


def _type(text: str) -> str:
    return checked("the type", clean_line(text).lower(), MAX_TYPE, required=True)


def _description(text: str) -> str:
    return checked("the description", clean_block(text), MAX_DESCRIPTION)


def _properties(given: Mapping[str, str], *, allow_empty: bool = False) -> dict[str, str]:
    if len(given) > MAX_PROPERTIES:
        raise KnowledgeError(f"{len(given)} properties were given; the most is {MAX_PROPERTIES}")
    cleaned: dict[str, str] = {}
    for raw_key, raw_value in given.items():
        key = checked("a property name", clean_line(raw_key), MAX_PROPERTY_KEY, required=True)
        value = clean_line(raw_value)
        what = f"the property {quoted(key)}"
        cleaned[key] = checked(what, value, MAX_PROPERTY_VALUE, required=not allow_empty)
    return cleaned


def _observed(
    entity: Entity, texts: Sequence[str], author: str, when: datetime
) -> dict[str, object]:
    """The observation fields of `entity` with `texts` recorded, the oldest let go past the cap."""
    new = [
        Observation(
            text=checked("an observation", clean_block(text), MAX_OBSERVATION, required=True),
            author=author,
            time=when,
        )
        for text in texts
    ]
    kept = (*entity.observations, *new)
    dropped = max(0, len(kept) - MAX_OBSERVATIONS)
    return {
        "observations": kept[dropped:],
        "earlier_observations": entity.earlier_observations + dropped,
    }
