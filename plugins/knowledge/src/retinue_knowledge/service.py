"""`KnowledgeGraph`: the one actor that owns a team's graph, and how cards find it.

Every change goes through the actor's mailbox, so writes from any number of agents are
applied one at a time, each against the graph as the previous one left it: none is lost.
The graph is the actor's state, a frozen `KnowledgeGraphState` the kernel checkpoints in the
team's record after every change (SQLite or PostgreSQL, whichever store the team has), so a
resumed team gets it back exactly; the search index is rebuilt from it on first use.

Reading the graph never waits on the actor: after each change it publishes the new state,
which any thread reads with one attribute access. Searching asks the actor, which owns the
index and the embedder (one thread for an embedder's HTTP client and event loop).

Like the planning board, the graph is a team service that publishes its state
(`retinue.kit.PublishingService`): attached to its team's orchestrator but not a member,
found or started atomically by key.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict
from retinue import ActorAddress, Runtime, remote
from retinue.kit import PublishedHandle, PublishingService, TeamServiceConfig, open_published

from retinue_knowledge import rules
from retinue_knowledge.embedders import Embedder, load_embedder
from retinue_knowledge.errors import KnowledgeError
from retinue_knowledge.graph import EntityChanges, KnowledgeGraphState, NewEntity, now
from retinue_knowledge.index import Hit, SearchIndex, SearchMode
from retinue_knowledge.rules import Change

logger = logging.getLogger(__name__)

GRAPH_NAME = "@Knowledge"
GRAPH_ROLE = "KnowledgeGraph"


class KnowledgeGraphConfig(TeamServiceConfig):
    """Which graph an actor keeps, and the embedder its searches by meaning use."""

    name: str = GRAPH_NAME
    role: str = GRAPH_ROLE
    graph_key: str = ""
    """The team id (or `agent-<id>` for an agent outside any team)."""
    embedder: str = ""
    """As the card's `embedder` setting; "" for search by words alone."""


class GraphReply(BaseModel):
    """What a change did: the version after it and one sentence, or why it was refused."""

    model_config = ConfigDict(frozen=True)

    version: int
    message: str = ""
    error: str | None = None


class SearchReply(BaseModel):
    """What a search found (`hits`, best first) and how it searched, or why it could not."""

    model_config = ConfigDict(frozen=True)

    hits: tuple[tuple[str, float, int | None, int | None], ...] = ()
    vector_backend: str | None = None
    error: str | None = None


class KnowledgeGraph(PublishingService[KnowledgeGraphConfig, KnowledgeGraphState]):
    """Owns one team's graph: applies changes one at a time, publishes each, answers searches."""

    def __init__(self, config: KnowledgeGraphConfig, **kwargs: object) -> None:
        super().__init__(config, **kwargs)
        self._index: SearchIndex | None = None
        self._embedder: Embedder | None = None
        self._embedder_error: str | None = None
        try:
            self._embedder = load_embedder(config.embedder)
        except ValueError as exc:
            self._embedder_error = str(exc)
            logger.warning("%s: %s; searching by words alone", GRAPH_NAME, exc)

    @property
    def service_key(self) -> str:
        return self.config.graph_key

    def service_handle(self) -> GraphHandle:
        return GraphHandle(
            KnowledgeGraph, self.system, self.myAddress, self.published, self.config.embedder
        )

    def default_state(self) -> KnowledgeGraphState:
        return KnowledgeGraphState()

    def init_state(self, state: KnowledgeGraphState) -> None:
        super().init_state(state)  # a restored or resumed graph: a new index on first search
        self._drop_index()

    def on_stop(self) -> None:
        self._drop_index()
        super().on_stop()

    # ------------------------------------------------------------------ changes
    @remote
    def add_entities(self, drafts: list[NewEntity], author: str) -> GraphReply:
        """Add the entities `drafts` describe, all or none."""
        return self._apply(lambda graph, when: rules.add_entities(graph, drafts, author, when))

    @remote
    def update_entity(self, name: str, changes: EntityChanges, author: str) -> GraphReply:
        """Change one entity (nothing when it already is as asked)."""
        return self._apply(
            lambda graph, when: rules.update_entity(graph, name, changes, author, when)
        )

    @remote
    def remove_entity(self, name: str, author: str) -> GraphReply:
        """Remove one entity and every relation it is in."""
        return self._apply(lambda graph, when: rules.remove_entity(graph, name, author, when))

    @remote
    def link(
        self, source: str, relation: str, target: str, author: str, remove: bool = False
    ) -> GraphReply:
        """Relate two entities (or, with `remove`, take the relation away)."""
        return self._apply(
            lambda graph, when: rules.link(
                graph, source, relation, target, author=author, when=when, remove=remove
            )
        )

    def _apply(self, make: Callable[[KnowledgeGraphState, datetime], Change]) -> GraphReply:
        """The change `make` finds for the graph now, applied and published."""
        graph = self.state
        try:
            change = make(graph, now())
        except KnowledgeError as exc:
            return GraphReply(version=graph.version, error=str(exc))
        if change.empty:
            return GraphReply(version=graph.version, message=change.message)
        entities = graph.entities.evolve(put=change.entities, drop=change.removed)
        relations = graph.relations.evolve(put=change.relations, drop=change.unlinked)
        version = graph.version + 1
        self.publish_state(
            KnowledgeGraphState(version=version, entities=entities, relations=relations)
        )
        if self._index is not None:
            self._index.update(self.state, change.touched)
        return GraphReply(version=version, message=change.message)

    # ------------------------------------------------------------------ reads
    @remote
    def search(self, query: str, limit: int, mode: SearchMode = "hybrid") -> SearchReply:
        """The best `limit` entities for `query`; an embedder's failure falls back to words."""
        index = self._open_index()
        if mode == "vector" and self._embedder is None:
            why = self._embedder_error or "no embedder is configured"
            return SearchReply(error=f"cannot search by meaning: {why}")
        try:
            hits = index.search(query, limit, mode)
        except Exception as exc:  # the embedder is someone else's code
            if mode != "hybrid":
                return SearchReply(error=f"the search failed ({type(exc).__name__}: {exc})")
            logger.warning(
                "%s: search by meaning failed; by words alone", GRAPH_NAME, exc_info=True
            )
            hits = index.search(query, limit, "text")
        return SearchReply(
            hits=tuple(_hit_row(hit) for hit in hits), vector_backend=index.vector_backend
        )

    # ------------------------------------------------------------------ helpers
    def _open_index(self) -> SearchIndex:
        if self._index is None:
            self._index = SearchIndex(self.state, self._embedder)
        return self._index

    def _drop_index(self) -> None:
        index = getattr(self, "_index", None)
        if index is not None:
            index.close()
        self._index = None


def _hit_row(hit: Hit) -> tuple[str, float, int | None, int | None]:
    return (hit.key, hit.score, hit.text_rank, hit.vector_rank)


# ---------------------------------------------------------------------- finding a graph


@dataclass(frozen=True, slots=True)
class GraphHandle(PublishedHandle[KnowledgeGraph, KnowledgeGraphState]):
    """A running graph: its address (to change or search it), its state (to read it), and the
    embedder it searches with."""

    embedder: str


@dataclass(frozen=True, slots=True)
class GraphOpener:
    """Finds or starts a team's graph with this embedder (a card's `ServiceSlot` opener;
    equal by value, so two equal cards stay equal)."""

    embedder: str = ""

    def __call__(
        self, system: Runtime, key: str, orchestrator: ActorAddress | None = None
    ) -> GraphHandle:
        handle = open_graph(system, key, orchestrator, embedder=self.embedder)
        if handle.embedder != self.embedder:
            logger.warning(
                "the knowledge graph %s searches with the embedder %r it was started with, not %r",
                key,
                handle.embedder,
                self.embedder,
            )
        return handle


def open_graph(
    system: Runtime, key: str, orchestrator: ActorAddress | None = None, *, embedder: str = ""
) -> GraphHandle:
    """The running graph for `key`, started (reporting to `orchestrator`) if there is none.

    Atomic: whoever asks first starts it, everyone else gets that one.
    """
    config = KnowledgeGraphConfig(graph_key=key, team_orchestrator=orchestrator, embedder=embedder)
    return open_published(system, KnowledgeGraph, key, config, GraphHandle)
