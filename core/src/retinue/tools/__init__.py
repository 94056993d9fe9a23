"""retinue.tools: tool cards, their four channels, and context updates.

Importing this package does not import pydantic-ai; that happens when a history is read or
a card's tools are built.
"""

from retinue.tools.card import ToolCard, card_name
from retinue.tools.channels import (
    COMMAND,
    LLM_CONTEXT,
    SYSTEM_PROMPT,
    TOOL_CALL,
    Channel,
    ContextProvider,
    ContextState,
)
from retinue.tools.context_updates import ContextUpdater
from retinue.tools.errors import (
    CardNotBoundError,
    DuplicateContextProviderError,
    DuplicateToolCardError,
    ToolCardError,
    UnknownToolCardError,
)
from retinue.tools.factory import CardSpec, ToolFactory, resolve_cards, with_default_cards
from retinue.tools.host import ToolHost
from retinue.tools.markers import (
    MARKER_KEY,
    MARKER_RE,
    ContextMarker,
    block_content,
    find_markers,
    marker_line,
    marker_of,
)
from retinue.tools.state import ToolState

__all__ = [
    "COMMAND",
    "LLM_CONTEXT",
    "MARKER_KEY",
    "MARKER_RE",
    "SYSTEM_PROMPT",
    "TOOL_CALL",
    "CardNotBoundError",
    "CardSpec",
    "Channel",
    "ContextMarker",
    "ContextProvider",
    "ContextState",
    "ContextUpdater",
    "DuplicateContextProviderError",
    "DuplicateToolCardError",
    "ToolCard",
    "ToolCardError",
    "ToolFactory",
    "ToolHost",
    "ToolState",
    "UnknownToolCardError",
    "block_content",
    "card_name",
    "find_markers",
    "marker_line",
    "marker_of",
    "resolve_cards",
    "with_default_cards",
]
