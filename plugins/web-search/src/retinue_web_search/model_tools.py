"""The two tools for the model; each answers in text and never ends the turn.

Their descriptions are sent on every model request: they say what the tool does, in a line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext, Tool
from retinue import effect_metadata
from retinue.kit import tool_answer

from retinue_web_search.errors import WebSearchError

if TYPE_CHECKING:
    from retinue_web_search.card import WebSearchTool


def build_tools(card: WebSearchTool, *, search: bool) -> list[Tool[Any]]:
    """`web_fetch`, and `web_search` when a search backend is set up."""

    def web_search(ctx: RunContext[Any], query: str, n: int = 5) -> str:
        """Search the web: titles, URLs and snippets of the top results.

        Args:
            query: What to search for.
            n: How many results.
        """
        return tool_answer(ctx, lambda: card.web_search(query, n), WebSearchError)

    def web_fetch(ctx: RunContext[Any], url: str) -> str:
        """Read a web page (http or https): its main text as markdown.

        Args:
            url: The page's full URL.
        """
        return tool_answer(ctx, lambda: card.web_fetch(url), WebSearchError)

    read_only = effect_metadata("read_only")
    tools = [Tool(web_search, takes_ctx=True, metadata=read_only)] if search else []
    return [*tools, Tool(web_fetch, takes_ctx=True, metadata=read_only)]
