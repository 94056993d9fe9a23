"""A large team's record, written straight into a store: 200 members, 10,000 messages.

Made of the kernel's own messages turned into records by its recorder (`to_record`), so the
view reads it exactly as it reads a team that ran: the orchestrator's start, each member's
start, then messages between members with a run and its usage for each.
"""

from __future__ import annotations

from retinue import (
    ActorAddress,
    AgentMessage,
    BaseConfig,
    EventMessage,
    LlmUsageEvent,
    RunFinishedEvent,
    RunStartedEvent,
    SentMessage,
    StartMessage,
    TeamConfig,
)
from retinue.store import Record, Store
from retinue.team.recorder import to_record


def _batch(store: Store, team_id: str, records: list[Record]) -> None:
    for start in range(0, len(records), 2_000):
        store.append(team_id, records[start : start + 2_000])


def write_team(store: Store, members: int = 200, messages: int = 10_000) -> str:
    """Record a team of `members` agents and a person exchanging `messages`; its team id."""
    orchestrator = ActorAddress(name="@Orchestrator", role="Orchestrator")
    team_id = orchestrator.agent_id
    orchestrator = orchestrator.model_copy(update={"team_id": team_id})
    store.create_team(team_id, {"name": "a big team"})
    records = [
        to_record(
            StartMessage(
                config=TeamConfig(name="@Orchestrator"),
                actor_class="retinue.team.orchestrator:Orchestrator",
                sender=orchestrator,
                recipient=orchestrator,
                team_id=team_id,
            )
        )
    ]
    person = ActorAddress(name="@Human", role="Human", team_id=team_id, is_user_proxy=True)
    agents = [
        ActorAddress(name=f"@Agent{n}", role=f"Role{n % 7}", team_id=team_id)
        for n in range(members)
    ]
    for member in [person, *agents]:
        records.append(
            to_record(
                StartMessage(
                    config=BaseConfig(name=member.name, role=member.role),
                    actor_class="retinue.agent.agent:BaseAgent",
                    sender=member,
                    recipient=orchestrator,
                    parent=orchestrator,
                    team_id=team_id,
                )
            )
        )
    _batch(store, team_id, records)
    add_messages(store, team_id, (person, agents), 0, messages)
    return team_id


def add_messages(
    store: Store,
    team_id: str,
    people: tuple[ActorAddress, list[ActorAddress]],
    first: int,
    count: int,
) -> None:
    """Append `count` messages (numbered from `first`), each with a run of its recipient."""
    person, agents = people
    records: list[Record] = []
    for n in range(first, first + count):
        sender = person if n % 50 == 0 else agents[n % len(agents)]
        recipient = agents[(n * 7 + 1) % len(agents)]
        said = AgentMessage(
            content=f"message {n}: " + "words " * (n % 20),
            type="request" if n % 2 else "response",
            sender=sender,
            recipient=recipient,
            team_id=team_id,
        )
        said.chain_id = said.id
        records.append(to_record(SentMessage(message=said, sender=sender, recipient=recipient)))
        run = f"run-{n}"
        for event in (
            RunStartedEvent(agent_name=recipient.name, run_id=run),
            LlmUsageEvent(
                agent_name=recipient.name,
                run_id=run,
                input_tokens=100,
                output_tokens=20,
                total_tokens=120,
            ),
            RunFinishedEvent(agent_name=recipient.name, run_id=run, status="completed"),
        ):
            records.append(
                to_record(
                    EventMessage(
                        event=event,
                        sender=recipient,
                        team_id=team_id,
                        parent_id=said.id,
                        chain_id=said.chain_id,
                    )
                )
            )
    _batch(store, team_id, records)
