"""`fork_team`: a new team that goes on from a recorded team as it was at a position.

The fork gets a new id and a stream of its own, whose first record is a `TeamForkedEvent`
naming the source and the position; its team metadata says the same (`forked_from`), so a
list of teams shows it without reading records. Then it is resumed like any team: its
record reads through the source's up to that position (`retinue.resume.lineage`), so the
members alive then come back (same names and ids, in the new team), with their histories,
states, the boards, the budget spent and the task chains as they were, and the messages
owed at that point are delivered again. The source's record is only read, never written,
and its lease is not taken: a team another process runs can be forked (one this process
runs cannot: the fork's members have its members' ids).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from retinue.actors.address import new_id
from retinue.actors.messages import EventMessage
from retinue.actors.system import ActorSystem
from retinue.resume.lineage import FORKED_FROM, TeamForkedEvent
from retinue.resume.record import ResumeError, read_team_record
from retinue.resume.team import ResumedTeam, resume_team
from retinue.store import Store
from retinue.team.card import AgentCard
from retinue.team.recorder import to_record


def fork_team(
    store: Store,
    team_id: str,
    *,
    at: int | None = None,
    system: ActorSystem | None = None,
    human_class: type[Any] | str | None = None,
    profiles: Iterable[AgentCard] = (),
    plugin_manager: Any = None,
) -> ResumedTeam:
    """Start a new team from team `team_id`'s record as it was at position `at` (default:
    its end), running in this process; the rest as `resume_team`.

    `system` must record to `store` (the fork reads its source from it). Raises
    `ResumeError` naming the problem when the store has no such team, no such position, or
    the record cannot be resumed there; nothing is then left in the store.
    """
    if system is not None and system.store is not None and system.store is not store:
        raise ResumeError("a fork is recorded in its source's store: give a system on it")
    info = store.team(team_id)
    position = info.last_position if info is not None and at is None else at
    plan = read_team_record(store, team_id, at=position)  # ResumeError: no team, no position
    assert info is not None and position is not None
    running = [actor.address.name for actor in plan.alive if actor.address.is_alive()]
    if running:  # its members keep their ids in the fork: two of one id cannot run here
        raise ResumeError(
            f"team {team_id} runs in this process ({', '.join(running)}): fork it from "
            "another process, or once it has stopped"
        )
    fork_id = new_id()
    origin = plan.orchestrator.address
    address = origin.model_copy(update={"agent_id": fork_id, "team_id": fork_id})
    forked = TeamForkedEvent(source_team_id=team_id, position=position)
    metadata = {**info.metadata, FORKED_FROM: {"team_id": team_id, "position": position}}
    store.take_lease(fork_id)
    try:
        store.create_team(fork_id, metadata)
        first = EventMessage(event=forked, sender=address, recipient=address, team_id=fork_id)
        store.append(fork_id, [to_record(first)])
    finally:
        store.release_lease(fork_id)
    try:
        team = resume_team(
            store,
            fork_id,
            system=system,
            human_class=human_class,
            profiles=profiles,
            plugin_manager=plugin_manager,
        )
    except BaseException:
        store.delete_team(fork_id)  # a fork that could not start leaves nothing behind
        raise
    team.forked_from = forked
    return team
