"""retinue-notes: a notebook for each agent, shown back to it in context updates."""

from retinue_notes.card import NOTES_SECTION, NotesTool

__all__ = ["NOTES_SECTION", "NotesTool"]
