"""The rules `read_team_record` reads a record by: alive, handled, owed.

The records are written with the recorder's own `to_record`, into a real `MemoryStore`; the
messages are the ones the runtime reports, built here to put each rule's case on its own.
"""

from __future__ import annotations

from typing import cast

from retinue import (
    ActorAddress,
    AgentMessage,
    BaseConfig,
    HandledMessage,
    Message,
    SentMessage,
    StartMessage,
    StopMessage,
)
from retinue.resume import read_team_record
from retinue.store import MemoryStore
from retinue.team.recorder import to_record

TEAM = "team-1"
ORCHESTRATOR = ActorAddress(name="@Orchestrator", role="Orchestrator", agent_id=TEAM, team_id=TEAM)


def member(name: str, person: bool = False) -> ActorAddress:
    return ActorAddress(
        name=name, role=name.strip("@"), agent_id=f"id-{name}", team_id=TEAM, is_user_proxy=person
    )


def start(who: ActorAddress) -> StartMessage:
    return StartMessage(
        config=BaseConfig(name=who.name, role=who.role),
        actor_class="retinue.BaseAgent",
        sender=who,
        recipient=ORCHESTRATOR,
    )


def delivered(sender: ActorAddress, recipient: ActorAddress, text: str) -> AgentMessage:
    return AgentMessage(content=text, sender=sender, recipient=recipient, team_id=TEAM)


def store_of(*messages: Message) -> MemoryStore:
    store = MemoryStore()
    store.create_team(TEAM)
    store.append(TEAM, [to_record(m) for m in messages])
    return store


def sent(message: AgentMessage) -> SentMessage:
    return SentMessage(message=message, sender=message.sender, recipient=message.recipient)


def test_who_is_alive_when_the_record_ends() -> None:
    stays, fired, shut, back = (member(n) for n in ("@Stays", "@Fired", "@Shut", "@Back"))
    store = store_of(
        start(ORCHESTRATOR),
        *(start(who) for who in (stays, fired, shut, back)),
        StopMessage(sender=fired, recipient=ORCHESTRATOR),  # fired: gone
        StopMessage(sender=shut, recipient=ORCHESTRATOR, shutdown=True),  # the process ended
        StopMessage(sender=back, recipient=ORCHESTRATOR, shutdown=False),
        start(back),  # started again (an earlier resume): alive
    )

    plan = read_team_record(store, TEAM)

    assert [a.address.name for a in plan.alive] == ["@Stays", "@Shut", "@Back"]
    assert plan.orchestrator.address.agent_id == TEAM


def test_a_message_is_owed_when_delivered_to_an_alive_member_and_never_handled() -> None:
    human, lead, gone = member("@Human", person=True), member("@Lead"), member("@Gone")
    done = delivered(human, lead, "done")
    owed_first = delivered(human, lead, "owed 1")
    to_gone = delivered(human, gone, "too late")
    owed_second = delivered(lead, human, "owed 2")
    store = store_of(
        start(ORCHESTRATOR),
        start(human),
        start(lead),
        start(gone),
        sent(done),
        sent(owed_first),
        HandledMessage(message_id=done.id, sender=lead, recipient=ORCHESTRATOR),
        sent(to_gone),
        StopMessage(sender=gone, recipient=ORCHESTRATOR),
        sent(owed_second),
    )

    plan = read_team_record(store, TEAM)

    assert [m.id for m in plan.owed] == [owed_first.id, owed_second.id]  # in delivery order
    owed = [cast(AgentMessage, m) for m in plan.owed]
    assert [m.content for m in owed] == ["owed 1", "owed 2"]  # decoded, ids kept
    assert plan.person_wrote_to == gone  # the last one the person wrote to (gone now)
