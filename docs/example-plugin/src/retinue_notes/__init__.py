"""retinue-notes: a retinue plugin, a notebook for each agent."""

from retinue_notes.card import NotesTool

__all__ = ["NotesTool"]
