"""retinue-skills: skills written as `SKILL.md` files, a menu in the prompt, bodies on demand."""

from retinue_skills.card import MENU_HEADING, SkillTool
from retinue_skills.skill import (
    SKILL_FILE,
    Skill,
    SkillError,
    load_skill_file,
    load_skill_folder,
    parse_skill,
)

__all__ = [
    "MENU_HEADING",
    "SKILL_FILE",
    "Skill",
    "SkillError",
    "SkillTool",
    "load_skill_file",
    "load_skill_folder",
    "parse_skill",
]
