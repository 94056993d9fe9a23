"""`switch_model`, the model's way to another model of its roster; it never ends the turn.

A name outside the roster, or a model that cannot be built here (a missing SDK or key), is a
pydantic-ai `ModelRetry` listing the roster while the tool has retries left, and the same
sentence as its answer once they are spent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import ModelRetry, RunContext, Tool

from retinue_models.card import ModelError

if TYPE_CHECKING:
    from retinue_models.card import ModelTool


def build_tools(card: ModelTool) -> list[Tool[Any]]:
    """The card's one tool."""

    def switch_model(ctx: RunContext[Any], name: str) -> str:
        """Switch the model you run on, from your next turn on.

        Args:
            name: A model of your roster, as your instructions list it.
        """
        try:
            return card.switch(name)
        except ModelError as exc:
            if ctx.retry < ctx.max_retries:
                raise ModelRetry(str(exc)) from None
            return f"Error: {exc}"

    return [Tool(switch_model, takes_ctx=True)]
