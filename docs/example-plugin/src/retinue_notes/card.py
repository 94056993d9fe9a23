"""`NotesTool`: a notebook for each agent, served on all four channels of a tool card.

* TOOL_CALL: `take_note(text)`, the model writes something down.
* SYSTEM_PROMPT: one fixed sentence telling the model the notebook exists.
* LLM_CONTEXT: the notes keyed by number, so a new note reaches the model as a one-line
  delta instead of the whole notebook again.
* COMMAND: `/notes`, a person reads the notebook (`/notes launch last=3`: the newest three
  notes holding "launch"); code calls `agent.command_registry.callable("notes")()`.

The card in an agent's config is a blueprint: every agent binds its own copy. The notes are
the card's own state, kept in the agent's checkpoints, so a team resumed from its record
finds every agent's notes again. Replace the notebook with your plugin's feature.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field
from retinue import ContextProvider, ToolCard

SECTION = "Notes"
"""The heading of the notes in context updates; unique among an agent's sections."""

SYSTEM_PROMPT = (
    "You keep a notebook: call take_note to write down anything you will need later. "
    f"Your notes come back to you in context updates, under '{SECTION}'."
)


class Notebook(BaseModel):
    """The card's own state, kept in its agent's checkpoints: the notes, oldest first."""

    notes: list[str] = Field(default_factory=list)


class NotesTool(ToolCard):
    """A notebook: the model takes notes and sees them again; a person reads them."""

    name: ClassVar[str] = "notes"
    """How team files and `AgentConfig.tools` name this card: `tools = ["notes"]`."""

    max_notes: int = Field(default=100, ge=1)
    """A setting, given per agent (`NotesTool(max_notes=20)`): the most notes kept."""

    def notebook(self) -> Notebook:
        """This agent's notebook, read afresh on every use: a resume replaces it."""
        return self.card_state(Notebook)

    # -- the channels: one piece of the feature for each consumer -------------------------

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [self.take_note]

    def get_system_prompts(self) -> Sequence[str]:
        return [SYSTEM_PROMPT]

    def get_context_states(self) -> Mapping[str, ContextProvider]:
        return {SECTION: self.notes_by_number}

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.notes]

    # -- the tool, for the model -----------------------------------------------------------

    def take_note(self, text: str) -> str:
        """Write down something you will need later; your notes are shown to you again.

        Args:
            text: The note, in a sentence or two.
        """
        text = text.strip()
        if not text:
            return "Nothing was noted: the note is empty."
        notes = self.notebook().notes
        if len(notes) >= self.max_notes:
            return f"Nothing was noted: the notebook is full (max_notes={self.max_notes})."
        notes.append(text)  # changed in place: the agent's next checkpoint keeps it
        return f"Noted as #{len(notes)}."

    # -- the context section, read before every run ----------------------------------------

    def notes_by_number(self) -> Mapping[str, str]:
        """The notes keyed by number: a new note shows as one added line."""
        return {f"#{number}": note for number, note in enumerate(self.notebook().notes, 1)}

    # -- the command, for a person (or code) -----------------------------------------------

    def notes(self, *words: str, last: int | None = None) -> str:
        """List this agent's notes: those holding every word given, the newest `last`."""
        if last is not None and last < 1:
            return f"/notes: last= takes a count of notes, 1 or more (got {last})."
        found = [
            f"#{number} {note}"
            for number, note in enumerate(self.notebook().notes, 1)
            if all(word.casefold() in note.casefold() for word in words)
        ]
        if last is not None:
            found = found[-last:]
        owner = self.host.myAddress.name
        if not found:
            return f"{owner} has no notes" + (f" holding {' '.join(words)}." if words else ".")
        return "\n".join([f"Notes of {owner}:", *found])
