"""The four channels a tool card can serve, and what flows on the context channel.

A card never talks to the model or the operator directly: it hands pieces to the agent
through these channels, and each channel has exactly one consumer (see `ToolFactory`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import TypeAlias


class Channel(StrEnum):
    """Where a piece a card provides ends up."""

    TOOL_CALL = "tool_call"
    """Tools and toolsets the model may call."""
    SYSTEM_PROMPT = "system_prompt"
    """Text for the frozen system block; it must stay stable so the prompt cache survives."""
    LLM_CONTEXT = "llm_context"
    """Named state providers, diffed and delivered as a context-update block before a run."""
    COMMAND = "command"
    """Callables for the command registry: typed calls from code, slash commands from operators."""


TOOL_CALL = Channel.TOOL_CALL
SYSTEM_PROMPT = Channel.SYSTEM_PROMPT
LLM_CONTEXT = Channel.LLM_CONTEXT
COMMAND = Channel.COMMAND

ContextState: TypeAlias = str | Mapping[str, str]
"""What a state provider returns: one text, or keyed items (members, task ids, ...).

Keyed items let a delta say which items were added, changed or removed instead of
repeating the whole text. A provider whose state is large and rarely changes should answer
with a `retinue.FrozenMap`, the same object while nothing changed and `evolve()`d when
something did: the updater then neither copies nor compares it on unchanged turns.
"""

ContextProvider: TypeAlias = Callable[[], ContextState]
"""Reads one piece of shared state now; called once per composed block."""
