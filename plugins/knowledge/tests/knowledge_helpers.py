"""Helpers for the knowledge tests: roles that carry the graph, and reading what they saw."""

from __future__ import annotations

from typing import Any

from retinue import ActorAddress, AgentCard
from retinue.testing import TeamHarness, call_directive, context_section, scripted_card
from retinue_knowledge import SECTION, KnowledgeGraphState, KnowledgeTool, open_graph
from retinue_knowledge.service import GraphHandle

EMBEDDER = "retinue.testing:hashing_embedder"
PARSER = {
    "name": "Parser",
    "type": "component",
    "description": "Reads config files.",
    "properties": {"language": "Python"},
    "observations": ["fails on tabs"],
}
"""An entity with every field set."""


def keeper(role: str, **settings: Any) -> AgentCard:
    """A role on the `follow` model whose agent carries the knowledge card."""
    card: KnowledgeTool | str = KnowledgeTool(**settings) if settings else "knowledge"
    return scripted_card(role, tools=[card])


def handle(team: TeamHarness) -> GraphHandle:
    """The team's graph (started if no card has needed it yet)."""
    return open_graph(team.system, team.team_id, team.orchestrator)


def graph_of(team: TeamHarness) -> KnowledgeGraphState:
    """The team's graph as its actor published it last."""
    return handle(team).current


def add(team: TeamHarness, member: ActorAddress, *entities: dict[str, Any]) -> None:
    """`member` adds `entities` with its model's tool; the team works until quiet."""
    team.say(member, call_directive("kg_add", {"entities": list(entities)}))
    team.wait_idle(20)


def link(team: TeamHarness, member: ActorAddress, source: str, relation: str, target: str) -> None:
    """`member` relates two entities with its model's tool; the team works until quiet."""
    team.say(
        member,
        call_directive("kg_link", {"source": source, "relation": relation, "target": target}),
    )
    team.wait_idle(20)


def section(text: str) -> str | None:
    """The Knowledge graph section of a context update, or None."""
    return context_section(text, SECTION)


def _pydantic_ai_embedder() -> object:
    from pydantic_ai.embeddings import Embedder, TestEmbeddingModel

    return Embedder(TestEmbeddingModel())


pydantic_ai_embedder = _pydantic_ai_embedder()
"""pydantic-ai's `Embedder` over its offline test model (every vector all ones), by import path
`knowledge_helpers:pydantic_ai_embedder`."""
