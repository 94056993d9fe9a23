"""`KnowledgeTool`: a knowledge graph shared by the team, in every carrier's context.

One feature, four channels:

* TOOL_CALL — `kg_add`, `kg_update`, `kg_remove`, `kg_link`, `kg_search` and `kg_show` for
  the model (see `model_tools`): a mistake it can correct (an unknown entity, an oversize
  text, a bad relation) comes back as a retry with the reason, never as a failed turn;
* SYSTEM_PROMPT — one short paragraph: what the graph is for;
* LLM_CONTEXT — the entities changed last as keyed items (`Parser: [component] ...`), made
  once per graph version and shared by every agent, so a member's next prompt carries what
  changed since its last turn, and an unchanged graph adds nothing;
* COMMAND — `kg_search`, `kg_show` and `kg_stats` for people. Refusals raise
  `KnowledgeError`, a `ValueError` the registry hands back to the operator.

The graph itself is a `KnowledgeGraph` actor, one per team, started by the first card that
needs it (see `retinue_knowledge.service`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, PrivateAttr, field_validator
from retinue import Actor, ToolCard
from retinue.kit import ServiceSlot, clean_line

from retinue_knowledge.embedders import check_spec
from retinue_knowledge.errors import KnowledgeError
from retinue_knowledge.graph import EntityChanges, NewEntity
from retinue_knowledge.index import SearchMode
from retinue_knowledge.rendering import MAX_DEPTH, render_entity, render_hits, summary_items
from retinue_knowledge.rules import find
from retinue_knowledge.service import GraphHandle, GraphOpener, GraphReply, KnowledgeGraph
from retinue_knowledge.text import MAX_QUERY, checked

if TYPE_CHECKING:
    from pydantic_ai import Tool

SECTION = "Knowledge graph"
"""Heading of the graph in context updates."""

SYSTEM_PROMPT = (
    "Your team shares a knowledge graph of entities (people, components, decisions, ...) "
    "with typed relations and observations; the entities changed last are shown under "
    "'Knowledge graph' in context updates. Record what the team should remember with the "
    "kg_* tools, and search it before asking others."
)
_MODES = ("hybrid", "text", "vector")


class KnowledgeTool(ToolCard):
    """A team's knowledge graph: entities, relations, observations; search by words and meaning."""

    name: ClassVar[str] = "knowledge"

    embedder: str | None = None
    """What embeds texts for search by meaning: 'package.module:function', or
    'pydantic-ai:<model>'; None searches by words alone. The graph uses the one of the card
    that started it."""
    summary_limit: int = Field(default=20, ge=1, le=500)
    """The most entities the context lists (those changed last); the rest are counted."""
    search_limit: int = Field(default=10, ge=1, le=50)
    """The most entities one search answers."""
    graph_timeout: float = Field(default=30.0, gt=0)
    """Seconds a change or a search waits for the graph (an embedder may be slow)."""

    _graph: ServiceSlot[GraphHandle] = PrivateAttr()

    @field_validator("embedder")
    @classmethod
    def _embedder_form(cls, value: str | None) -> str | None:
        return None if value is None else check_spec(value) or None

    def model_post_init(self, context: Any, /) -> None:
        self._graph = ServiceSlot(GraphOpener(self.embedder or ""))

    # -- binding ---------------------------------------------------------------------------

    def on_unbind(self) -> None:
        self._graph.clear()

    @property
    def graph(self) -> GraphHandle:
        """The bound agent's graph (its team's), started on first use if need be."""
        return self._graph.open(self.host)

    # -- channels --------------------------------------------------------------------------

    def get_tools(self) -> Sequence[Tool[Any]]:
        from retinue_knowledge.model_tools import build_tools

        return build_tools(self)

    def get_system_prompts(self) -> Sequence[str]:
        return [SYSTEM_PROMPT]

    def get_context_states(self) -> Mapping[str, Callable[[], Mapping[str, str]]]:
        return {SECTION: self.knowledge_state}

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.kg_search, self.kg_show, self.kg_stats]

    def knowledge_state(self) -> Mapping[str, str]:
        """The entities changed last, as context items by name; shared by every agent."""
        return summary_items(self.graph.current, self.summary_limit)

    # -- commands for people ---------------------------------------------------------------

    def kg_search(self, *query: str, mode: str = "hybrid", limit: int | None = None) -> str:
        """Search the knowledge graph: /kg_search parser errors (mode=text or vector: one kind)."""
        return self.search(" ".join(query), mode=mode, limit=limit)

    def kg_show(self, *name: str, depth: int = 1) -> str:
        """One entity whole, with its relations to a depth: /kg_show Parser depth=2."""
        return self.show(" ".join(name), depth)

    def kg_stats(self) -> str:
        """How big the graph is and how it is searched."""
        graph = self.graph.current
        reply = self._search_reply("", 1, "text")
        vectors = (
            f"vectors by {self.graph.embedder} ({reply.vector_backend})"
            if reply.vector_backend
            else "no vectors (no embedder)"
        )
        entities = _count(len(graph.entities), "entity")
        relations = _count(len(graph.relations), "relation")
        return (
            f"Knowledge graph, version {graph.version}: {entities}, {relations}. "
            f"Search: words (SQLite FTS5, BM25) and {vectors}."
        )

    # -- the operations behind tools and commands ------------------------------------------

    def search(self, query: str, *, mode: str = "hybrid", limit: int | None = None) -> str:
        """The entities best matching `query`, one a line; `KnowledgeError` for bad input."""
        text = checked("the query", clean_line(query), MAX_QUERY, required=True)
        if mode not in _MODES:
            raise KnowledgeError(f"{mode[:20]!r} is not a search mode; use hybrid, text or vector")
        count = min(limit or self.search_limit, 50)
        if count < 1:
            raise KnowledgeError("the limit is at least 1")
        reply = self._search_reply(text, count, mode)  # type: ignore[arg-type]
        return render_hits(self.graph.current, text, (hit[0] for hit in reply.hits))

    def show(self, name: str, depth: int = 1) -> str:
        """One entity whole with its neighbourhood to `depth` (1 to 3)."""
        if not 1 <= depth <= MAX_DEPTH:
            raise KnowledgeError(f"the depth is 1 to {MAX_DEPTH}, not {depth}")
        graph = self.graph.current
        return render_entity(graph, find(graph, name), depth)

    def add(self, entities: Sequence[NewEntity], author: str) -> str:
        return self._change(lambda g: g.add_entities(list(entities), author))

    def update(self, name: str, changes: EntityChanges, author: str) -> str:
        return self._change(lambda g: g.update_entity(name, changes, author))

    def remove(self, name: str, author: str) -> str:
        return self._change(lambda g: g.remove_entity(name, author))

    def link(self, source: str, relation: str, target: str, author: str, remove: bool) -> str:
        return self._change(lambda g: g.link(source, relation, target, author, remove))

    # -- helpers ---------------------------------------------------------------------------

    def _change(self, call: Callable[[KnowledgeGraph], GraphReply]) -> str:
        reply = call(self.graph.proxy(self.graph_timeout))
        if reply.error is not None:
            raise KnowledgeError(reply.error)
        return reply.message

    def _search_reply(self, query: str, limit: int, mode: SearchMode) -> Any:
        reply = self.graph.proxy(self.graph_timeout).search(query, limit, mode)
        if reply.error is not None:
            raise KnowledgeError(reply.error)
        return reply

    def author(self) -> str:
        """Who a change is recorded under: the person who sent the command, else this agent."""
        host = self.host
        current = host.current_message if isinstance(host, Actor) else None
        sender = current.sender if current is not None else None
        if sender is not None and sender.is_user_proxy:
            return sender.name
        return host.myAddress.name


def _count(number: int, noun: str) -> str:
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{number} {noun if number == 1 else plural}"
