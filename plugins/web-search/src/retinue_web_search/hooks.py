"""The `retinue` entry point of retinue-web-search: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_web_search.card import WebSearchTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[WebSearchTool]]:
    """The web search card. Not a default: an agent gets it by naming it in `tools`."""
    return [WebSearchTool]
