"""Members of a team send the same leading instructions, so a provider's prompt cache (which
reuses only an unchanged prefix, across an account) serves every member: what differs
between members or between days comes after the shared part."""

from __future__ import annotations

from datetime import date

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.agent.incoming import TEAM_PROTOCOL
from retinue.testing import TeamHarness, agent_name, incoming, scripted_card, send


def test_two_members_send_identical_leading_instructions_and_their_own_part_last(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    instructions: dict[str, str] = {}

    def member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        instructions[agent_name(info)] = info.instructions or ""
        return send(info, (incoming(messages).sender, "response", "ok"))

    ada = team.add(scripted_card("Developer"), model=member)
    bob = team.add(scripted_card("Reviewer"), model=member)
    team.say(ada, "hello")
    team.say(bob, "hello")
    team.wait_idle(20)

    first, second = instructions["@Developer"], instructions["@Reviewer"]
    shared = first[: next(i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b)]
    assert shared.startswith(TEAM_PROTOCOL)
    today = date.today().isoformat()
    for name, text in instructions.items():
        # The member's name and the date come after the shared part, at the very end.
        assert text.index(name) >= len(shared) and text.index(today) >= len(shared)
        assert text.endswith(f"You are {name}; today is {today}.")
        # The roster is volatile: it travels in context updates, never in the instructions.
        assert "@Human" not in text and "Team roster" not in text
