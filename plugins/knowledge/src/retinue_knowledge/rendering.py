"""How the graph reads: one-line entities, an entity with its neighbourhood, the context items.

Pure functions of the graph's snapshots. Everything returned has been through `neutralize`,
so text agents wrote cannot pass for a message fence wherever it is shown.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from datetime import UTC, datetime

from retinue import FrozenMap

from retinue_knowledge.graph import Entity, KnowledgeGraphState, Relation, entity_key
from retinue_knowledge.text import neutralize, shorten

MORE_KEY = "more"
"""Context item counting the entities past the summary's limit."""
MAX_DEPTH = 3
MAX_SHOWN = 50
"""The most entities a neighbourhood shows."""
_LINKS_SHOWN = 5
_OBSERVATIONS_SHOWN = 10


def entity_line(entity: Entity, outgoing: list[Relation]) -> str:
    """An entity in one line, without its name: `[person] Leads the work; works_on → Parser`."""
    about = shorten(" ".join(entity.description.split()), 120).removesuffix(".")
    parts = [f"[{entity.type}] {about}".rstrip()]
    if outgoing:
        shown = [f"{r.type} → {r.target}" for r in outgoing[:_LINKS_SHOWN]]
        more = len(outgoing) - _LINKS_SHOWN
        parts.append(", ".join(shown) + (f" (+{more} more)" if more > 0 else ""))
    count = entity.observation_count
    if count:
        parts.append(f"{count} observation{'s' if count != 1 else ''}")
    return neutralize("; ".join(parts))


def summary_items(graph: KnowledgeGraphState, limit: int) -> FrozenMap[str, str]:
    """The graph as context items keyed by entity name: the `limit` entities changed last,
    and a count of the rest. Made once per graph version and limit, shared by every agent."""
    key = ("retinue_knowledge.summary", limit)
    return graph.entities.memo_once(key, lambda _: _summary(graph, limit))


def _summary(graph: KnowledgeGraphState, limit: int) -> FrozenMap[str, str]:
    by_name = sorted(graph.entities.values(), key=lambda e: e.key)
    latest = sorted(by_name, key=lambda e: e.updated_at, reverse=True)  # stable: ties by name
    shown = latest[:limit]
    wanted = {e.key for e in shown}
    outgoing: dict[str, list[Relation]] = {}
    for relation in graph.relations.values():
        source = entity_key(relation.source)
        if source in wanted:
            outgoing.setdefault(source, []).append(relation)
    items = {e.name: entity_line(e, outgoing.get(e.key, [])) for e in shown}
    hidden = len(latest) - len(shown)
    if hidden:
        items[MORE_KEY] = f"{hidden} older entities not listed; kg_search finds them"
    return FrozenMap(items)


def neighbourhood(
    graph: KnowledgeGraphState, start: Entity, depth: int
) -> tuple[list[Entity], list[Relation]]:
    """The entities within `depth` relations of `start` (either direction), nearest first,
    at most `MAX_SHOWN`, and the relations between them."""
    adjacent: dict[str, list[Relation]] = {}
    for relation in graph.relations.values():
        adjacent.setdefault(entity_key(relation.source), []).append(relation)
        adjacent.setdefault(entity_key(relation.target), []).append(relation)
    seen = {start.key: 0}
    queue = deque([start.key])
    while queue and len(seen) < MAX_SHOWN:
        key = queue.popleft()
        if seen[key] >= depth:
            continue
        for relation in adjacent.get(key, []):
            for end in (entity_key(relation.source), entity_key(relation.target)):
                if end not in seen and len(seen) < MAX_SHOWN:
                    seen[end] = seen[key] + 1
                    queue.append(end)
    entities = [graph.entities[key] for key in seen]
    relations = [
        r
        for r in graph.relations.values()
        if entity_key(r.source) in seen and entity_key(r.target) in seen
    ]
    return entities, relations


def render_entity(graph: KnowledgeGraphState, entity: Entity, depth: int = 1) -> str:
    """An entity whole (properties, latest observations), its relations to `depth`, and
    each neighbour in one line."""
    lines = [f"{entity.name} [{entity.type}]"]
    if entity.description:
        lines.append(entity.description)
    lines.extend(f"{key}: {value}" for key, value in entity.properties.items())
    lines.append(
        f"created {_when(entity.created_at)} by {entity.created_by}; "
        f"updated {_when(entity.updated_at)} by {entity.updated_by}"
    )
    if entity.observations:
        shown = entity.observations[-_OBSERVATIONS_SHOWN:]
        count = entity.observation_count
        heading = f"observations ({count}" + (
            f", the latest {len(shown)}):" if count > len(shown) else "):"
        )
        lines.append(heading)
        lines.extend(f"- {o.text} ({o.author}, {_when(o.time)})" for o in shown)
    entities, relations = neighbourhood(graph, entity, depth)
    if relations:
        lines.append(f"relations (to depth {depth}):")
        lines.extend(f"- {r.source} —{r.type}→ {r.target}" for r in relations)
    others = [e for e in entities if e.key != entity.key]
    if others:
        lines.append("related entities:")
        lines.extend(f"- {e.name}: {entity_line(e, [])}" for e in others)
        if len(entities) >= MAX_SHOWN:
            lines.append(f"(the first {MAX_SHOWN}; ask for a smaller depth or another entity)")
    return neutralize("\n".join(lines))


def render_hits(graph: KnowledgeGraphState, query: str, keys: Iterable[str]) -> str:
    """Search results, one entity a line, best first."""
    found = [graph.entities[k] for k in keys if k in graph.entities]
    asked = shorten(query.replace("\n", " "), 60)
    if not found:
        return neutralize(f"Nothing found for {asked!r}.")
    lines = [f"{len(found)} found for {asked!r}, best first:"]
    lines.extend(f"- {e.name}: {entity_line(e, [])}" for e in found)
    return neutralize("\n".join(lines))


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
