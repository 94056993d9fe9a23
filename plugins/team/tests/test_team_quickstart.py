"""The spec's Quick Start, with the plugin installed: the manager hires a Developer by role."""

from __future__ import annotations

import team_scripted
from retinue import ActorSystem, AgentMessage, BaseAgent
from team_scripted import Team, inbox, role_card


def test_quick_start_hires_a_bare_role_and_the_answer_comes_back() -> None:
    # A default system discovers the installed plugins: the entry point is what is tested.
    system = ActorSystem()
    try:
        team = Team.start(system)
        manager_card = role_card(
            "Manager",
            model="team_scripted:manager",
            description="Project manager who coordinates specialists",
            skills=["coordination", "delegation"],
            routes_to=["Developer", "QA"],
        )
        developer_card = role_card("Developer", model="team_scripted:developer")
        team.register(manager_card, developer_card)
        manager = team.orchestrator_proxy.createActor(
            BaseAgent, config=manager_card.get_config_copy()
        )

        team.system.proxy_tell(team.human).send(
            manager, AgentMessage(content="Plan the next sprint.")
        )
        system.wait_idle(20)

        assert inbox() == ["Sprint planned. Implemented the sprint plan."]
        members = {m.address.name: m for m in team.orchestrator_proxy.get_team()}
        assert set(members) == {"@Human", "@Manager", "@Developer"}
        assert members["@Developer"].address.role == "Developer"
        assert members["@Developer"].parent == manager  # hired by the manager
        assert len(team_scripted.REQUESTS["@Developer"]) == 1
    finally:
        assert system.shutdown(timeout=10)
