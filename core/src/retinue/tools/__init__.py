"""retinue.tools: tool cards, their four channels, and context updates.

Importing this package does not import pydantic-ai; that happens when a history is read or
a card's tools are built.
"""

from retinue.tools.card import ToolCard
from retinue.tools.card import card_name as card_name
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
    CardStateError,
    DuplicateContextProviderError,
    DuplicateToolCardError,
    ToolCardError,
    UnknownToolCardError,
)
from retinue.tools.factory import CardSpec as CardSpec
from retinue.tools.factory import ToolFactory as ToolFactory
from retinue.tools.factory import resolve_cards as resolve_cards
from retinue.tools.factory import with_default_cards as with_default_cards
from retinue.tools.host import ToolHost
from retinue.tools.markers import MARKER_KEY as MARKER_KEY
from retinue.tools.markers import MARKER_RE as MARKER_RE
from retinue.tools.markers import ContextMarker as ContextMarker
from retinue.tools.markers import block_content as block_content
from retinue.tools.markers import find_markers as find_markers
from retinue.tools.markers import marker_line as marker_line
from retinue.tools.markers import marker_of as marker_of
from retinue.tools.state import ToolState

__all__ = [
    "COMMAND",
    "LLM_CONTEXT",
    "SYSTEM_PROMPT",
    "TOOL_CALL",
    "CardNotBoundError",
    "CardStateError",
    "Channel",
    "ContextProvider",
    "ContextState",
    "ContextUpdater",
    "DuplicateContextProviderError",
    "DuplicateToolCardError",
    "ToolCard",
    "ToolCardError",
    "ToolHost",
    "ToolState",
    "UnknownToolCardError",
]
