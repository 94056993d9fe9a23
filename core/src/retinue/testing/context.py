"""Reading the context updates an agent's model was shown, for tests of cards that keep one.

A card's context state reaches the model as a section (`### <heading>`) of a context-update
block, which rides in a user prompt. These read the prompts' texts as the model got them.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import ModelMessage

from retinue.testing.scripted import user_texts


def context_updates(messages: Sequence[ModelMessage]) -> list[str]:
    """The user-prompt texts of a conversation that carry a context update, oldest first."""
    return [text for text in user_texts(messages) if "**Context update " in text]


def context_section(text: str, heading: str) -> str | None:
    """The section `heading` of a context update: its `### heading` line up to the next blank
    line (or the end), or None when it has none."""
    start = text.find(f"### {heading}")
    if start < 0:
        return None
    end = text.find("\n\n", start)
    return text[start:] if end < 0 else text[start:end]
