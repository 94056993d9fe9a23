"""`TeamTool` as a card: its channels, its plugin hook, and an agent outside any team."""

from __future__ import annotations

import pytest
import retinue_team.hooks
from retinue import ActorAddress, Channel, CommandRegistry
from retinue.testing import StubHost, check_plugin_card, loads_model_stack
from retinue_team import MemberInfo, RoleInfo, TeamTool
from retinue_team.card import DEFAULT_MAX_MEMBERS, ROLES_SECTION, ROSTER_SECTION


def test_the_card_is_a_default_plugin_card_named_team_on_all_four_channels() -> None:
    assert TeamTool().max_members == DEFAULT_MAX_MEMBERS
    check_plugin_card(
        retinue_team.hooks,
        TeamTool(max_members=3),
        name="team",
        channels={Channel.TOOL_CALL, Channel.SYSTEM_PROMPT, Channel.LLM_CONTEXT, Channel.COMMAND},
        default=True,
    )


def test_the_commands_are_announced_under_their_own_names() -> None:
    card = TeamTool().bind(StubHost("@Loner"))
    registry = CommandRegistry()
    for command in card.get_commands():
        registry.register(command, owner=card.name)

    usage = {d.name: d.usage for d in registry.descriptors()}
    assert usage == {
        "hire_member": "/hire_member <role> [name=<name>]",
        "fire_member": "/fire_member <name>",
        "team_members": "/team_members",
        "team_roles": "/team_roles",
    }
    assert {d.owner for d in registry.descriptors()} == {"team"}


def test_the_model_tools_are_hire_members_and_fire_members() -> None:
    card = TeamTool().bind(StubHost("@Loner"))

    assert [t.__name__ for t in card.get_tools()] == ["hire_members", "fire_members"]  # type: ignore[union-attr]
    assert list(card.get_context_states()) == [ROSTER_SECTION, ROLES_SECTION]


def test_an_agent_outside_a_team_has_an_empty_team_context() -> None:
    card = TeamTool().bind(StubHost("@Loner"))

    assert card.roster_state() == {}
    assert card.roles_state() == {}


def test_an_agent_outside_a_team_cannot_hire_or_fire() -> None:
    card = TeamTool().bind(StubHost("@Loner"))

    with pytest.raises(ValueError, match="@Loner is not part of a team"):
        card.hire_member("Developer")
    with pytest.raises(ValueError, match="@Loner is not part of a team"):
        card.fire_member("@Developer")
    assert card.hire_members(["Developer"]) == (
        "Could not hire 'Developer': @Loner is not part of a team"
    )
    assert card.hire_members([]) == "No roles given; nobody was hired."
    assert card.fire_members([]) == "No names given; nobody was fired."


@pytest.mark.parametrize("name", ["", "  ", "@"])
def test_a_fire_needs_a_name(name: str) -> None:
    card = TeamTool().bind(StubHost("@Loner"))

    with pytest.raises(ValueError, match="a member name is needed"):
        card.fire_member(name)


def test_a_hire_needs_a_role() -> None:
    card = TeamTool().bind(StubHost("@Loner"))

    with pytest.raises(ValueError, match="a role is needed"):
        card.hire_member("  ")


def test_member_and_role_lines_read_well() -> None:
    address = ActorAddress(name="@Ada", role="Developer")

    assert str(MemberInfo(name="@Ada", role="Developer", busy=True, address=address)) == (
        "@Ada — Developer (busy)"
    )
    assert str(RoleInfo(role="QA", description="Tests", skills=["pytest"], may_hire=False)) == (
        "QA — Tests [pytest] (not hireable by this agent)"
    )


def test_settings_are_validated() -> None:
    with pytest.raises(ValueError):
        TeamTool(max_members=0)
    with pytest.raises(ValueError):
        TeamTool(unknown=1)  # type: ignore[call-arg]


def test_discovering_the_plugin_does_not_load_the_model_stack() -> None:
    # `retinue plugins` imports every hook module; pydantic-ai must wait for the first agent.
    assert not loads_model_stack("retinue_team.hooks")
