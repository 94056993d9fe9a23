"""The `retinue` entry point of retinue-skills: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_skills.card import SkillTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[SkillTool]]:
    """The skills card. Not a default: an agent gets it by naming it in `tools`."""
    return [SkillTool]
