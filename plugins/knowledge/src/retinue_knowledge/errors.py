"""The one error the knowledge graph speaks in."""

from __future__ import annotations


class KnowledgeError(ValueError):
    """A change or a question the graph refuses, with the reason in one sentence.

    The model's tools turn it into a retry it can act on; commands raise it, and the
    command registry answers the operator with it. The reason often quotes what was asked
    (a name, a relation type), so it reads with every message fence escaped.
    """

    def __str__(self) -> str:
        from retinue_knowledge.text import neutralize

        return neutralize(super().__str__())
