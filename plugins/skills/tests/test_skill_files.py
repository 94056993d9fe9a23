"""`SKILL.md` files: the front matter read, the body kept exactly, bad files named in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from retinue import AgentConfig, ConfigError
from retinue_skills import Skill, SkillError, SkillTool, load_skill_folder, parse_skill

BODY = "Fill {field} with the value.\nNever render {{ jinja }} or ${shell} or %(printf)s.\n"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_desktop_assistant_skill_file_loads_with_its_extra_keys_ignored(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pdf-forms",
        "---\n"
        "name: pdf-forms\n"
        "description: >\n"
        "  Fill in PDF forms: use it when a task\n"
        "  hands you a form.\n"
        "license: MIT\n"
        'allowed-tools: "Bash(git:*)", Read\n'
        "metadata:\n"
        "  version: 1.0\n"
        "---\n\n" + BODY,
    )
    write(tmp_path, "changelog", "---\nname: 'changelog'\ndescription: \"Write: the log\"\n---\nX")
    (tmp_path / "not-a-skill").mkdir()

    skills = load_skill_folder(tmp_path)

    assert skills == [
        Skill(name="changelog", description="Write: the log", body="X"),
        Skill(
            name="pdf-forms",
            description="Fill in PDF forms: use it when a task hands you a form.",
            body=BODY.rstrip("\n"),
        ),
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("name: x\n", "a skill file must start with a '---' front matter line"),
        ("---\nname: x\ndescription: y\n", "the front matter has no closing '---' line"),
        ("---\nname: x\n---\nbody", "the front matter has no description"),
        ("---\n---\nbody", "the front matter has no name and no description"),
        ("---\nname: Bad Name\ndescription: y\n---\n", "name: skill name 'Bad Name' must be"),
        ("---\nname: x\nname: y\ndescription: z\n---\n", "the front matter gives 'name' twice"),
        ("---\njust words\n---\n", "line 2 of the front matter is not 'key: value'"),
        ("---\nname: 'x\ndescription: y\n---\n", "the name in the front matter has an unclosed"),
    ],
)
def test_a_bad_file_is_refused_in_one_line_naming_it(text: str, problem: str) -> None:
    with pytest.raises(SkillError) as caught:
        parse_skill(text, "skills/x/SKILL.md")

    message = str(caught.value)
    assert message.startswith("skills/x/SKILL.md: ")
    assert problem in message
    assert "\n" not in message


def test_a_card_over_a_folder_with_a_bad_file_fails_where_it_is_made(tmp_path: Path) -> None:
    bad = write(tmp_path, "broken", "---\nname: broken\n---\nno description")

    with pytest.raises(ConfigError) as caught:
        SkillTool(folder=str(tmp_path))
    assert str(caught.value) == f"SkillTool: {bad}: the front matter has no description"

    # From plain data (a team file) the same line, under the config's own path.
    data = {"card": "skills", "card_class": "retinue_skills.card.SkillTool", "folder": str(bad)}
    with pytest.raises(ConfigError) as nested:
        AgentConfig(name="@A", role="A", tools=[data])
    assert len(str(nested.value).splitlines()) == 1
    assert "not a folder of skills" in str(nested.value)


def test_a_card_refuses_two_skills_of_one_name_and_an_empty_folder(tmp_path: Path) -> None:
    empty_card = SkillTool()  # a card without skills is valid (a team file may name "skills")
    assert empty_card.get_system_prompts() == []
    assert empty_card.skill("") == "No skills."
    with pytest.raises(SkillError, match="there is no skill 'x'; this agent has no skills"):
        empty_card.find("x")
    write(tmp_path, "a", "---\nname: dup\ndescription: one\n---\n")
    with pytest.raises(ConfigError, match="two skills are named 'dup'"):
        SkillTool(skills=[Skill(name="dup", description="two", body="")], folder=str(tmp_path))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match=re.escape("no SKILL.md in it")):
        SkillTool(folder=str(empty))


def test_the_card_round_trips_as_data(tmp_path: Path) -> None:
    write(tmp_path, "release", "---\nname: release\ndescription: Ship it\n---\nTag {version}.")
    inline = Skill(name="inline", description="d", body="{{x}}")
    card = SkillTool(skills=[inline], folder=str(tmp_path))

    again = SkillTool.model_validate(card.model_dump())

    assert again == card
    assert again.model_dump() == card.model_dump()
    assert [s.name for s in again.available] == ["inline", "release"]
    assert SkillTool.model_validate_json(card.model_dump_json()) == card
