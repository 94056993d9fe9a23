"""The one error the knowledge graph speaks in."""

from __future__ import annotations


class KnowledgeError(ValueError):
    """A change or a question the graph refuses, with the reason in one sentence.

    The model's tools turn it into a retry it can act on; commands raise it, and the
    command registry answers the operator with it.
    """
