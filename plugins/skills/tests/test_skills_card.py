"""The skills card in a real team: the menu, `use_skill` and `/skill`, on scripted models."""

from __future__ import annotations

import pytest
import retinue_skills.hooks
from pydantic_ai.messages import ModelRequest
from retinue import ActorAddress, Channel
from retinue.testing import (
    TeamHarness,
    call_directive,
    check_plugin_card,
    script,
    scripted_card,
    tool_returns,
)
from retinue_skills import MENU_HEADING, Skill, SkillTool

BODY = "Step 1: read {the_form}.\nStep 2: {{ never_rendered }} stays {{as}} is; so does {0}.\n"
SKILLS = [
    Skill(name="pdf-forms", description="Fill in PDF forms {like this}", body=BODY),
    Skill(name="release", description="Cut a release", body="Tag it, then announce it."),
]


@pytest.fixture
def lead(retinue_team: TeamHarness) -> ActorAddress:
    """@Lead, carrying the skills card over `SKILLS`."""
    return retinue_team.add(scripted_card("Lead", tools=[SkillTool(skills=SKILLS)]))


def test_the_card_is_a_plugin_card_named_skills_and_no_default() -> None:
    check_plugin_card(
        retinue_skills.hooks,
        SkillTool(skills=SKILLS),
        name="skills",
        channels={Channel.TOOL_CALL, Channel.SYSTEM_PROMPT, Channel.COMMAND},
    )


def test_the_menu_is_in_the_system_prompt_and_the_body_comes_verbatim_on_demand(
    retinue_team: TeamHarness, lead: ActorAddress
) -> None:
    team = retinue_team

    team.say(lead, script(call_directive("use_skill", {"name": "pdf-forms"}), answer="read it"))
    team.wait_idle(20)

    [first] = team.model_requests("@Lead")[:1]
    instructions = [m.instructions for m in first if isinstance(m, ModelRequest) and m.instructions]
    assert instructions
    assert (
        f"{MENU_HEADING}\n- pdf-forms: Fill in PDF forms {{like this}}\n- release: Cut a release"
        in instructions[0]
    )
    assert BODY.strip() not in instructions[0]  # bodies only on demand
    assert team.tool_results("@Lead") == [f"Skill pdf-forms:\n\n{BODY}"]
    assert [m.content for m in team.received_by("@Human")] == ["read it"]


def test_an_unknown_skill_is_a_retry_listing_the_known_ones_then_the_answer(
    retinue_team: TeamHarness, lead: ActorAddress
) -> None:
    team = retinue_team
    wrong = call_directive("use_skill", {"name": "tax-returns"})

    team.say(lead, script(wrong, wrong, answer="went on"))
    team.wait_idle(20)

    known = "there is no skill 'tax-returns'; the skills are pdf-forms, release"
    assert team.tool_results("@Lead") == [known, f"Error: {known}"]
    last = team.model_requests("@Lead")[-1]
    retried = [part for part in tool_returns(last) if part.outcome == "retried"]
    assert len(retried) == 1
    assert [m.content for m in team.received_by("@Human")] == ["went on"]


def test_a_person_reads_a_skill_and_the_menu_with_slash_skill(
    retinue_team: TeamHarness, lead: ActorAddress
) -> None:
    team = retinue_team

    assert team.command(lead, "/skill pdf-forms") == BODY
    assert team.command(lead, "/skill  RELEASE") == "Tag it, then announce it."
    assert team.command(lead, "/skill") == (
        "- pdf-forms: Fill in PDF forms {like this}\n- release: Cut a release"
    )
    answer = team.command(lead, "/skill nope")
    assert "there is no skill 'nope'; the skills are pdf-forms, release" in answer
