"""`use_skill`, the model's way to a skill's instructions; it never ends the turn.

An unknown name is a pydantic-ai `ModelRetry` listing the known skills while the tool has
retries left, and the same sentence as its answer once they are spent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import ModelRetry, RunContext, Tool
from pydantic_ai.framing import neutralize_tags

from retinue_skills.skill import SkillError

if TYPE_CHECKING:
    from retinue_skills.card import SkillTool


def build_tools(card: SkillTool) -> list[Tool[Any]]:
    """The card's one tool."""

    def use_skill(ctx: RunContext[Any], name: str) -> str:
        """Read the instructions of one of your skills (listed in your instructions); follow them.

        Args:
            name: The skill's name, as the list of skills gives it.
        """
        try:
            skill = card.find(name)
        except SkillError as exc:
            if ctx.retry < ctx.max_retries:
                raise ModelRetry(str(exc)) from None
            return f"Error: {exc}"
        # Escaped message fences only: the body is otherwise exactly the file's text.
        return f"Skill {skill.name}:\n\n{neutralize_tags(skill.body)}"

    return [Tool(use_skill, takes_ctx=True)]
