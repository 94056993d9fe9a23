"""The `retinue` entry point of retinue-notes: only `@hookimpl` functions.

Building a plugin manager (once per actor system) and `retinue plugins` import this module,
so it imports little: the capability, which needs pydantic-ai, is imported only when an
agent asks for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retinue import hookimpl

from retinue_notes.card import NotesTool

if TYPE_CHECKING:
    from pydantic_ai.capabilities import AbstractCapability
    from retinue import AgentConfig


@hookimpl
def retinue_tool_cards() -> Sequence[type[NotesTool]]:
    """The card. Not a default: an agent gets it by naming it in `tools`."""
    return [NotesTool]


@hookimpl
def retinue_capabilities(config: AgentConfig) -> Sequence[AbstractCapability[Any]]:
    """A fresh audit for each agent that carries the card; nothing for the others."""
    names = {tool if isinstance(tool, str) else tool.name for tool in config.tools}
    if NotesTool.name not in names:
        return []
    from retinue_notes.audit import NotesAudit

    return [NotesAudit(agent_name=config.name)]
