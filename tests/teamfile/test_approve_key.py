"""The team file's `approve` key: the team's rules reach every role, a bad rule is one line."""

from __future__ import annotations

from typing import ClassVar

import pytest
from retinue import AgentConfig, ApprovalRule, ToolCard, hookimpl
from retinue.agent.approval_policy import describe_rule
from retinue.plugins import get_plugin_manager
from retinue.teamfile import TeamFileError, loads_team_file


class FilesCard(ToolCard):
    name: ClassVar[str] = "files"


class Cards:
    @hookimpl
    def retinue_tool_cards(self) -> list[type[ToolCard]]:
        return [FilesCard]


@pytest.fixture
def pm() -> object:
    return get_plugin_manager(autoload=False, plugins=[Cards()])


TEAM = """
[team]
entry = "Lead"
approve = ["files.delete", "mcp.*"]

[roles.Lead]
model = "test"
approve = ["files.write*"]

[roles.Aide]
model = "test"
"""


def problems_of(text: str, pm: object) -> list[str]:
    with pytest.raises(TeamFileError) as caught:
        loads_team_file(text, plugin_manager=pm)
    return caught.value.problems


def test_the_team_rules_follow_each_roles_own(pm: object) -> None:
    text = TEAM.replace('"mcp.*"', '"files.list"')
    spec = loads_team_file(text, plugin_manager=pm)
    lead, aide = (card.config for card in spec.cards())
    assert isinstance(lead, AgentConfig) and isinstance(aide, AgentConfig)
    assert lead.approve == ["files.write*", "files.delete", "files.list"]
    assert aide.approve == ["files.delete", "files.list"]
    assert spec.team.approve == ["files.delete", "files.list"]


def test_a_rule_of_a_card_not_installed_is_one_line(pm: object) -> None:
    assert problems_of(TEAM, pm) == [
        "team.approve[1] (line 4): rule 'mcp.*' names no installed card 'mcp'; "
        "installed cards: files"
    ]


def test_a_rule_without_a_card_is_one_line_at_its_place(pm: object) -> None:
    text = TEAM.replace('"mcp.*"', '"files.list"').replace('"files.write*"', '"files."')
    assert problems_of(text, pm) == [
        "roles.Lead.approve (line 8): approval rule 'files.' must be CARD.TOOL (a glob over "
        "the card's tools), e.g. 'workspace.write*' or 'mcp.*', or CARD alone (its tools "
        "that change something)"
    ]
    text = TEAM.replace('"mcp.*"', '"files.list"').replace('"files.write*"', '"write"')
    assert problems_of(text, pm) == [  # a card alone: its tools that change something
        "roles.Lead.approve[0] (line 8): rule 'write' names no installed card 'write'; "
        "installed cards: files"
    ]


def test_a_rule_with_a_reviewer_and_a_timeout_is_a_table(pm: object) -> None:
    text = TEAM.replace(
        '"mcp.*"',
        '{ rule = "files.list", reviewer = "Aide", timeout = 600, on_timeout = "remind" }',
    )
    spec = loads_team_file(text, plugin_manager=pm)
    lead = spec.cards()[0].config
    assert isinstance(lead, AgentConfig)
    assert lead.approve == [
        "files.write*",
        "files.delete",
        ApprovalRule(rule="files.list", reviewer="Aide", timeout=600, on_timeout="remind"),
    ]
    assert [describe_rule(rule) for rule in lead.approve][-1] == (
        "files.list (reviewer Aide, remind after 600 s)"
    )


def test_a_bad_option_of_a_rule_is_one_line(pm: object) -> None:
    text = TEAM.replace('"mcp.*"', '{ rule = "files.list", on_timeout = "ignore" }')
    assert problems_of(text, pm) == [
        "team.approve (line 4): approval rule on_timeout: Input should be 'deny' or 'remind'"
    ]
    text = TEAM.replace('"mcp.*"', '{ rule = "nothing.list" }')
    assert problems_of(text, pm) == [
        "team.approve[1] (line 4): rule 'nothing.list' names no installed card 'nothing'; "
        "installed cards: files"
    ]
