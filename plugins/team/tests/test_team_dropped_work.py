"""Work the team's own rules drop is told: a full team, a chain cut at `max_members`, a
requester fired by the member working for it.

The sender's model reads one kernel line on its next request (read from what its
`FunctionModel` function received); the person's inbox gets one line per task chain.
"""

from __future__ import annotations

import threading

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import FailureNotice
from retinue.testing import (
    TeamHarness,
    agent_name,
    call_directive,
    follow,
    incoming,
    scripted_card,
    send,
    send_directive,
    user_texts,
)
from retinue_team import TeamTool
from retinue_team.card import DEFAULT_MAX_MEMBERS


class Listening:
    """`follow`, keeping what each agent's model received."""

    def __init__(self) -> None:
        self.seen: dict[str, list[list[ModelMessage]]] = {}
        self._lock = threading.Lock()

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        with self._lock:
            self.seen.setdefault(agent_name(info), []).append(list(messages))
        return follow(messages, info)

    def notes_after(self, team: TeamHarness, name: str) -> list[str]:
        """The person writes to `name` once more: the kernel notes its model then receives."""
        team.say(team.orchestrator_proxy.get_team_member(name), "anything else?")
        team.wait_idle(30)
        with self._lock:
            texts = user_texts(self.seen[name][-1])
        return [text for text in texts if text.startswith("[retinue] ")]


def told(team: TeamHarness) -> list[str]:
    """The kernel's lines in the person's inbox."""
    return [m.content for m in team.received_by("@Human") if isinstance(m, FailureNotice)]


def test_a_hire_into_a_full_team_is_told(retinue_team: TeamHarness) -> None:
    team = retinue_team
    model = Listening()
    team.register(scripted_card("Developer"))
    lead = team.add(scripted_card("Lead", tools=[TeamTool(max_members=1)]), model=model)

    team.say(lead, send_directive("Developer", "request", "build it"))
    team.wait_idle(20)

    full = "the team is full: it has 1 agents and allows at most 1 (fire a member first)"
    assert told(team) == [f"A message from @Lead to Developer was not delivered: {full}"]
    assert model.notes_after(team, "@Lead") == [f"[retinue] Not delivered to Developer: {full}."]


def test_a_chain_of_hires_cut_at_max_members_is_told_once(retinue_team: TeamHarness) -> None:
    team = retinue_team
    model = Listening()
    first = team.add(scripted_card("Worker"), model=model)

    # Each Worker hires the next and hands it the rest; the team holds 20 agents at most.
    team.say(first, "send Worker request: " * DEFAULT_MAX_MEMBERS + "done")
    team.wait_idle(60)

    last = f"@Worker{DEFAULT_MAX_MEMBERS}"
    assert len(team.roster()) == DEFAULT_MAX_MEMBERS + 1  # and the person
    full = (
        f"the team is full: it has {DEFAULT_MAX_MEMBERS} agents and allows at most "
        f"{DEFAULT_MAX_MEMBERS} (fire a member first)"
    )
    assert told(team) == [f"A message from {last} to Worker was not delivered: {full}"]
    assert model.notes_after(team, last) == [f"[retinue] Not delivered to Worker: {full}."]


def test_a_developer_that_fires_its_manager_is_told_its_answer_went_nowhere(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    model = Listening()
    team.add(scripted_card("Developer"), model=model)
    dev_script = (
        call_directive("fire_members", {"names": ["@Manager"]})
        + "\n"
        + send_directive("@Manager", "response", "done, and you are fired")
    )

    def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if incoming(messages).sender == "@Human":
            return send(info, ("@Developer", "request", dev_script))
        return send(info)

    boss = team.add(scripted_card("Manager"), model=manager)
    team.say(boss, "get it done")
    team.wait_idle(20)

    assert "@Manager" not in team.roster()
    assert told(team) == [
        "A message from @Developer to @Manager was not delivered: it has left the team"
    ]
    assert model.notes_after(team, "@Developer") == [
        "[retinue] Not delivered to @Manager: it has left the team."
    ]
