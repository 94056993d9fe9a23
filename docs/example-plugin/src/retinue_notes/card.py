"""`NotesTool`: a notebook for one agent, served on all four channels of a tool card.

* TOOL_CALL — `take_note(text)`: the model writes something down.
* SYSTEM_PROMPT — one fixed sentence telling the model the notebook exists.
* LLM_CONTEXT — the notes, keyed by number, so a new note reaches the model as a one-line
  delta ("Added: - #2: ...") instead of the whole notebook again.
* COMMAND — `notes()`: an operator types `/notes` to read the notebook; code calls
  `agent.command_registry.callable("notes")()`.

The card in an agent's config is a blueprint: every agent binds its own deep copy, so each
agent has its own notebook. The notes are the card's own state, kept in the agent's state
checkpoints: a team resumed from its record finds every agent's notes again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field
from retinue import ContextProvider, ToolCard

NOTES_SECTION = "Notes"
"""Heading of the notebook in context updates; section names are unique within an agent."""

SYSTEM_PROMPT = (
    "You keep a notebook: call take_note to write down anything you will need later. "
    f"Your notes come back to you in context updates, under '{NOTES_SECTION}'."
)


class Notebook(BaseModel):
    """What the card keeps in its agent's checkpoints: the notes, oldest first."""

    notes: list[str] = Field(default_factory=list)


class NotesTool(ToolCard):
    """An agent's notebook: the model takes notes, sees them again, and operators read them."""

    name: ClassVar[str] = "notes"
    """How team files and `AgentConfig.tools` name this card: `tools=["notes"]`."""

    max_notes: int = Field(default=100, ge=1)
    """The most notes one agent may keep; `take_note` refuses more, in words."""

    def notebook(self) -> list[str]:
        """This agent's notes: the card's own state, read afresh on every use."""
        return self.card_state(Notebook).notes

    # -- channels ------------------------------------------------------------------------

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [self.take_note]

    def get_system_prompts(self) -> Sequence[str]:
        return [SYSTEM_PROMPT]

    def get_context_states(self) -> Mapping[str, ContextProvider]:
        return {NOTES_SECTION: self.notes_state}

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.notes]

    # -- the tool ------------------------------------------------------------------------

    def take_note(self, text: str) -> str:
        """Write down something you will need later; your notes are shown to you again.

        Args:
            text: The note, in a sentence or two.
        """
        text = text.strip()
        if not text:
            return "Nothing was noted: the note is empty."
        notes = self.notebook()
        if len(notes) >= self.max_notes:
            return f"Nothing was noted: the notebook is full (max_notes={self.max_notes})."
        notes.append(text)
        return f"Noted as #{len(notes)}."

    # -- the context provider ------------------------------------------------------------

    def notes_state(self) -> Mapping[str, str]:
        """The notes keyed by number, read before every run."""
        return {f"#{number}": note for number, note in enumerate(self.notebook(), start=1)}

    # -- the command ---------------------------------------------------------------------

    def notes(self) -> str:
        """List the notes this agent has taken, oldest first."""
        owner = self.host.myAddress.name
        notes = self.notebook()
        if not notes:
            return f"{owner} has taken no notes yet."
        lines = [f"#{number} {note}" for number, note in enumerate(notes, start=1)]
        return "\n".join([f"Notes of {owner}:", *lines])
