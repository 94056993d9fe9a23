"""retinue-knowledge: one knowledge graph per team, shared by its agents, searched by words
and meaning, and kept in their context."""

from retinue_knowledge.card import SECTION, SYSTEM_PROMPT, KnowledgeTool
from retinue_knowledge.embedders import Embedder, load_embedder
from retinue_knowledge.errors import KnowledgeError
from retinue_knowledge.graph import (
    Entity,
    EntityChanges,
    KnowledgeGraphState,
    NewEntity,
    Observation,
    Relation,
)
from retinue_knowledge.index import Hit, SearchIndex, fuse
from retinue_knowledge.service import (
    GraphHandle,
    KnowledgeGraph,
    KnowledgeGraphConfig,
    open_graph,
)

__all__ = [
    "SECTION",
    "SYSTEM_PROMPT",
    "Embedder",
    "Entity",
    "EntityChanges",
    "GraphHandle",
    "Hit",
    "KnowledgeError",
    "KnowledgeGraph",
    "KnowledgeGraphConfig",
    "KnowledgeGraphState",
    "KnowledgeTool",
    "NewEntity",
    "Observation",
    "Relation",
    "SearchIndex",
    "fuse",
    "load_embedder",
    "open_graph",
]
