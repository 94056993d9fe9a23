"""The card needs nothing of the team but the typed `Team` view, so any runtime can host it."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence

import pytest
import retinue_team.card
from pydantic import BaseModel
from retinue import (
    ActorAddress,
    AgentCard,
    ChainLedger,
    EventMessage,
    FrozenMap,
    LocalTeamBudget,
    Team,
    TeamBudget,
    TeamDirectory,
    TeamMember,
    ToolHost,
)
from retinue.testing import StubHost, scripted_card
from retinue_team import TeamTool

LEAD = ActorAddress(name="@Lead", role="Lead")
HUMAN = ActorAddress(name="@Human", role="Human", is_user_proxy=True)


class PaperTeam:
    """A `Team` kept in plain data, as another runtime might keep it: no actors at all."""

    def __init__(self, profiles: Sequence[AgentCard]) -> None:
        self.directory = TeamDirectory(
            members=FrozenMap({"@Human": HUMAN, "@Lead": LEAD}),
            profiles=FrozenMap({p.role: p for p in profiles}),
        )
        self.busy: set[str] = set()
        self.stopped: list[str] = []
        self.budget: TeamBudget = LocalTeamBudget()  # a counter its hosts would share
        self.chains = ChainLedger()  # plain data too: another runtime keeps its own

    @property
    def members(self) -> Mapping[str, ActorAddress]:
        return self.directory.members

    @property
    def profiles(self) -> Mapping[str, AgentCard]:
        return self.directory.profiles

    def roster(self) -> list[TeamMember]:
        return [
            TeamMember(address=a, busy=a.name in self.busy) for a in self.directory.members.values()
        ]

    def hire(self, role: str, name: str | None = None) -> ActorAddress:
        address = ActorAddress(name=name or f"@{role}", role=role)
        self._publish(self.directory.members.evolve(put={address.name: address}))
        return address

    def fire(self, member: ActorAddress, timeout: float | None = None) -> bool:
        self.stop(member, timeout)
        self._publish(self.directory.members.evolve(drop=[member.name]))
        return True

    def stop(
        self, member: ActorAddress, timeout: float | None = None, *, recursive: bool = False
    ) -> bool:
        self.stopped.append(member.name)
        return member != LEAD

    def states(self) -> dict[str, BaseModel]:
        return {}

    def events(
        self, agent_id: str | None = None, event_class: type[object] | str | None = None
    ) -> list[EventMessage]:
        return []

    def _publish(self, members: FrozenMap[str, ActorAddress]) -> None:
        self.directory = TeamDirectory(
            version=self.directory.version + 1, members=members, profiles=self.directory.profiles
        )


@pytest.fixture
def paper() -> PaperTeam:
    return PaperTeam(
        [
            scripted_card("Lead", routes_to=["Developer"]),
            scripted_card("Developer", description="Writes code", skills=["python"]),
            scripted_card("Auditor"),
        ]
    )


def test_the_paper_team_is_a_team_and_its_host_a_tool_host(paper: PaperTeam) -> None:
    assert isinstance(paper, Team)
    assert isinstance(StubHost(LEAD, team=paper), ToolHost)


def test_every_channel_of_the_card_works_on_any_team(paper: PaperTeam) -> None:
    card = TeamTool(max_members=2).bind(StubHost(LEAD, team=paper))

    assert card.hire_member("Developer", name="Ada").name == "@Ada"
    assert "@Ada" in paper.members
    with pytest.raises(ValueError, match="@Lead may not hire 'Auditor'; it may hire: Developer"):
        card.hire_member("Auditor")
    with pytest.raises(ValueError, match="the team is full: it has 2 agents"):
        card.hire_member("Developer")

    paper.busy.add("@Ada")
    assert [str(m) for m in card.team_members()] == [
        "@Human — Human (a person)",
        "@Lead — Lead (idle)",
        "@Ada — Developer (busy)",
    ]
    assert [r.role for r in card.team_roles() if r.may_hire] == ["Developer"]
    assert card.roster_state() == {
        "@Human": "a person",
        "@Lead": "",
        "@Ada": "Developer",
    }

    assert card.fire_member("Ada") == "Fired @Ada (Developer); it has left the team."
    assert "@Ada" not in paper.members
    with pytest.raises(ValueError, match="@Human is a person"):
        card.fire_member("@Human")
    assert "fired itself" in card.fire_member("@Lead")
    assert paper.stopped == ["@Ada", "@Lead"]


def test_the_context_is_shared_until_the_team_changes(paper: PaperTeam) -> None:
    one = TeamTool().bind(StubHost(LEAD, team=paper))
    other = TeamTool().bind(StubHost(LEAD, team=paper))

    roster = one.roster_state()
    assert other.roster_state() is roster  # the same object for every agent
    assert one.roster_state() is roster  # and on every turn while nothing changes
    assert other.roles_state() is one.roles_state()

    one.hire_member("Developer")
    changed = one.roster_state()
    assert changed is not roster
    assert isinstance(changed, FrozenMap)
    assert changed.changed_since(roster) == ("@Developer",)
    assert one.roles_state() is other.roles_state()  # the profiles did not change


def test_the_card_never_names_an_orchestrator_method_in_a_string() -> None:
    source = inspect.getsource(retinue_team.card)

    assert "ask_orchestrator" not in source
    assert ".system" not in source
