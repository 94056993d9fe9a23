"""Errors of the tools layer, each naming what to fix."""

from __future__ import annotations


class ToolCardError(Exception):
    """Base of the tools layer's own errors."""


class CardNotBoundError(ToolCardError, RuntimeError):
    """A card was asked for its agent before it was bound to one."""


class UnknownToolCardError(ToolCardError, ValueError):
    """A card name in a team file or config matches no installed card."""


class DuplicateToolCardError(ToolCardError, ValueError):
    """Two cards of the same name were given to one agent."""


class DuplicateContextProviderError(ToolCardError, ValueError):
    """Two cards of one agent register a context-state provider under the same name."""


class CardStateError(ToolCardError, ValueError):
    """A card's state read back from a checkpoint does not fit the card's state model."""
