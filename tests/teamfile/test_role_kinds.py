"""A plugin's role key in team files (`retinue_role_kinds`): the agent class it names, the
config field it fills, and the keys it may not claim."""

from __future__ import annotations

from typing import ClassVar

import pytest
from retinue import AgentConfig, BaseAgent, RoleKind, hookimpl
from retinue.plugins import get_plugin_manager
from retinue.teamfile import TeamFileError, loads_team_file


class RemoteConfig(AgentConfig):
    endpoint: str


class Remote(BaseAgent):
    config_class: ClassVar[type[AgentConfig]] = RemoteConfig


class Kinds:
    def __init__(self, *kinds: RoleKind) -> None:
        self.kinds = list(kinds)

    @hookimpl
    def retinue_role_kinds(self) -> list[RoleKind]:
        return self.kinds


REMOTE = RoleKind(
    key="remote", agent_class="tests.teamfile.test_role_kinds:Remote", field="endpoint"
)
TEAM = """
[roles.Scout]
remote = "tcp://127.0.0.1:9"
description = "looks far"
"""


def test_a_role_key_names_the_class_and_fills_its_field() -> None:
    pm = get_plugin_manager(autoload=False, plugins=[Kinds(REMOTE)])
    (card,) = loads_team_file(TEAM, plugin_manager=pm).cards()
    assert card.get_agent_class() is Remote
    assert isinstance(card.config, RemoteConfig)
    assert (card.config.endpoint, card.config.name, card.description) == (
        "tcp://127.0.0.1:9",
        "@Scout",
        "looks far",
    )


def test_without_the_plugin_the_key_is_unknown() -> None:
    pm = get_plugin_manager(autoload=False, plugins=[])
    with pytest.raises(TeamFileError) as caught:
        loads_team_file(TEAM, plugin_manager=pm)
    (problem,) = caught.value.problems
    assert problem.startswith("roles.Scout.remote (line 3): unknown key; a role takes: ")


@pytest.mark.parametrize(
    ("plugins", "problem"),
    [
        (
            [Kinds(RoleKind(key="model", agent_class="x:Y", field="f"))],
            "role key 'model' is already a role key",
        ),
        (
            [Kinds(REMOTE), Kinds(RoleKind(key="remote", agent_class="x:Y", field="f"))],
            "role key 'remote' is provided twice",
        ),
        ([Kinds(RoleKind(key="Bad Key", agent_class="x:Y", field="f"))], "lowercase keys"),
    ],
)
def test_a_plugin_may_not_claim_a_taken_or_malformed_key(
    plugins: list[Kinds], problem: str
) -> None:
    pm = get_plugin_manager(autoload=False, plugins=plugins)
    with pytest.raises(TeamFileError) as caught:
        loads_team_file(TEAM, plugin_manager=pm)
    (line,) = caught.value.problems
    assert line.startswith("plugins: ") and problem in line
