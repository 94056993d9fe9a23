"""`SkillTool`: skills an agent can pull in when a task calls for them.

A skill is a set of instructions too long to sit in every prompt (how to fill a PDF form,
the team's release checklist). The card keeps the prompt small and the instructions at
hand:

* SYSTEM_PROMPT — the menu, one line per skill (name and description), rendered once;
* TOOL_CALL — `use_skill(name)`, which answers with the skill's instructions; an unknown
  name is a retry listing the known ones while the tool has retries left;
* COMMAND — `/skill NAME` for people (the body), `/skill` alone for the menu.

Bodies are never formatted or templated: what the file says is what the model reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import Field, PrivateAttr, model_validator
from retinue import ToolCard

from retinue_skills.skill import Skill, SkillError, check_unique, load_skill_folder

if TYPE_CHECKING:
    from pydantic_ai import Tool

MENU_HEADING = (
    "You have skills: instructions for particular tasks, kept out of this prompt until you "
    "need them. When a task matches one, call use_skill with its name and follow what it "
    "says. The skills:"
)
_SHOWN_NAMES = 30


class SkillTool(ToolCard):
    """Skills from `skills=[...]` and/or a `folder` of `SKILL.md` files: a menu and bodies."""

    name: ClassVar[str] = "skills"

    skills: list[Skill] = Field(default_factory=list)
    """Skills given in code (or a team file), before those of the folder."""
    folder: str | None = None
    """A folder whose subfolders each hold a `SKILL.md`; read when the card is made."""

    _loaded: dict[str, Skill] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _load(self) -> Self:
        found = list(self.skills)
        if self.folder is not None:
            found.extend(load_skill_folder(Path(self.folder)))
        check_unique(found)
        self._loaded = {skill.name: skill for skill in found}
        return self

    # -- reading ---------------------------------------------------------------------------

    @property
    def available(self) -> tuple[Skill, ...]:
        """Every skill this card offers, in menu order."""
        return tuple(self._loaded.values())

    def find(self, name: str) -> Skill:
        """The skill called `name`; `SkillError` listing the known ones when there is none."""
        found = self._loaded.get(name.strip().lower())
        if found is None:
            raise SkillError(f"there is no skill {name.strip()[:80]!r}; {self._known()}")
        return found

    def menu(self) -> str:
        """One line per skill: `- name: description` (a card may have none)."""
        if not self._loaded:
            return "No skills."
        return "\n".join(f"- {s.name}: {s.description}" for s in self._loaded.values())

    # -- channels --------------------------------------------------------------------------

    def get_system_prompts(self) -> Sequence[str]:
        return [f"{MENU_HEADING}\n{self.menu()}"] if self._loaded else []

    def get_tools(self) -> Sequence[Tool[Any]]:
        from retinue_skills.model_tools import build_tools

        return build_tools(self)

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.skill]

    # -- the command -----------------------------------------------------------------------

    def skill(self, name: str = "") -> str:
        """Show a skill's instructions (/skill NAME), or the list of skills (/skill)."""
        if not name.strip():
            return self.menu()
        return self.find(name).body

    def _known(self) -> str:
        names = list(self._loaded)
        if not names:
            return "this agent has no skills"
        shown = ", ".join(names[:_SHOWN_NAMES])
        more = len(names) - _SHOWN_NAMES
        return f"the skills are {shown}" + (f" and {more} more" if more > 0 else "")
