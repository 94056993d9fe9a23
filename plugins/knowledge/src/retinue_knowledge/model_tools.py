"""The graph as the model's tools: each answers in text and never ends the turn.

A refusal the model can fix (an unknown entity, an oversize text, a bad relation) is a
pydantic-ai `ModelRetry` while the tool has retries left, then the same sentence as the
tool's answer (`retinue.kit.tool_answer`). Descriptions are short: every word of them is
paid on every request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext, Tool
from retinue import effect_metadata
from retinue.kit import tool_answer

from retinue_knowledge.errors import KnowledgeError
from retinue_knowledge.graph import EntityChanges, NewEntity

if TYPE_CHECKING:
    from retinue_knowledge.card import KnowledgeTool


def build_tools(card: KnowledgeTool) -> list[Tool[Any]]:
    """The six tools of a bound card, each acting on its team's graph as its agent."""

    def kg_add(ctx: RunContext[Any], entities: list[NewEntity]) -> str:
        """Add entities to the team's knowledge graph (all or none).

        Args:
            entities: The entities to add.
        """
        return tool_answer(ctx, lambda: card.add(entities, _me(card)), KnowledgeError)

    def kg_update(
        ctx: RunContext[Any],
        name: str,
        *,
        type: str | None = None,
        description: str | None = None,
        properties: dict[str, str] | None = None,
        observation: str | None = None,
    ) -> str:
        """Change an entity; leave out what stays.

        Args:
            name: The entity.
            type: A new type.
            description: A new description (replaces it).
            properties: Merged in; an empty value removes a key.
            observation: A fact to record about it.
        """
        changes = EntityChanges(
            type=type, description=description, properties=properties, observation=observation
        )
        return tool_answer(ctx, lambda: card.update(name, changes, _me(card)), KnowledgeError)

    def kg_remove(ctx: RunContext[Any], name: str) -> str:
        """Remove an entity and its relations.

        Args:
            name: The entity.
        """
        return tool_answer(ctx, lambda: card.remove(name, _me(card)), KnowledgeError)

    def kg_link(
        ctx: RunContext[Any], source: str, relation: str, target: str, remove: bool = False
    ) -> str:
        """Relate two entities: source -relation-> target (remove=true unlinks).

        Args:
            source: The entity the relation starts from.
            relation: Its type, such as works_on or depends_on.
            target: The entity it points to.
            remove: Take the relation away instead.
        """
        return tool_answer(
            ctx, lambda: card.link(source, relation, target, _me(card), remove), KnowledgeError
        )

    def kg_search(ctx: RunContext[Any], query: str) -> str:
        """Find entities by words and meaning, best first.

        Args:
            query: What to look for.
        """
        return tool_answer(ctx, lambda: card.search(query), KnowledgeError)

    def kg_show(ctx: RunContext[Any], name: str, depth: int = 1) -> str:
        """Show an entity whole with the entities related to it.

        Args:
            name: The entity.
            depth: How many relations away to follow (1 to 3).
        """
        return tool_answer(ctx, lambda: card.show(name, depth), KnowledgeError)

    # What running each twice does (the tool-effect ledger): reads change nothing;
    # a link sets what it sets again; an add or a removal is refused the second time, and an
    # update may record an observation twice.
    read_only, idempotent = effect_metadata("read_only"), effect_metadata("idempotent")
    return [
        Tool(kg_add, takes_ctx=True),
        Tool(kg_update, takes_ctx=True),
        Tool(kg_remove, takes_ctx=True),
        Tool(kg_link, takes_ctx=True, metadata=idempotent),
        Tool(kg_search, takes_ctx=True, metadata=read_only),
        Tool(kg_show, takes_ctx=True, metadata=read_only),
    ]


def _me(card: KnowledgeTool) -> str:
    return card.host.myAddress.name
