"""A host that died: each team told which members it lost, and those members restored.

`report_lost_members` records a `HostLostEvent` with the team and tells its people. With
`RayCluster(restore=True)`, with a store (`ActorSystem(store=...)`): when a host dies, each
member of a team recorded by an orchestrator in the driver comes back on the least-loaded
live host, under its own name and id, with its last checkpoint and its events (a
`BaseAgent` rebuilds its history from them), and the messages it had been given and had not
handled are delivered to it again, oldest first: what `retinue.resume` does for a whole
team, for the members of one host. Work in flight on the lost host is lost; a turn cut
short runs again from its message.
"""

from __future__ import annotations

import logging
import pkgutil
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from retinue import (
    ActorAddress,
    AgentMessage,
    BaseConfig,
    EventMessage,
    Orchestrator,
    Resumption,
    StopMessage,
)
from retinue.resume import read_team_record

from retinue_ray.events import HostLostEvent, MembersRestoredEvent

if TYPE_CHECKING:
    from retinue import ActorSystem

logger = logging.getLogger(__name__)


def restore_members(
    system: ActorSystem, orchestrator: Orchestrator, host: str, lost: list[ActorAddress]
) -> dict[str, ActorAddress]:
    """Start `lost` (members of `orchestrator`'s team that ran on `host`) again elsewhere.

    Returns the new address of each member started again, by `@name`. A member the record
    does not hold (or that fails to start) stays lost, and is logged.
    """
    store = system.store
    me = orchestrator.myAddress
    team_id = me.team_id or me.agent_id
    if store is None:
        logger.warning("team %s has no store: its members lost with %s stay lost", me.name, host)
        return {}
    system.ask(me, "get_directory")  # its mailbox drained: the record is committed so far
    plan = read_team_record(store, team_id, load_classes=True)  # it starts what it names
    for member in lost:  # they leave the roster as a shutdown would: their names are free
        stop = StopMessage(sender=member, recipient=me, team_id=team_id, shutdown=True)
        system.post(me, stop)
    system.ask(me, "get_directory")
    back: dict[str, ActorAddress] = {}
    given_again = 0
    for member in lost:
        recorded = plan.actors.get(member.agent_id)
        if recorded is None:
            logger.warning("%s is not in the record of team %s: not restored", member.name, me.name)
            continue
        start = recorded.start
        config = _config(start.actor_class, start.config)
        try:
            address = system.spawn(
                start.actor_class,
                config,
                orchestrator=me,
                parent=start.parent,
                resumption=Resumption(address=member, state=recorded.state, events=recorded.events),
            )
        except Exception as exc:  # noqa: BLE001 - a start may raise anything: restore the others
            logger.warning("%s could not be restored: %s", member.name, exc)
            continue
        back[address.name] = address
        for message in plan.owed:
            recipient = message.recipient
            if recipient is not None and recipient.agent_id == member.agent_id:
                given_again += system.post(address, message)
    if back:
        event = MembersRestoredEvent(
            host=host,
            members={name: str(a.host) for name, a in back.items()},
            redelivered=given_again,
        )
        system.post(me, EventMessage(event=event, sender=me, recipient=me, team_id=team_id))
        logger.warning("restored %s from the record", ", ".join(sorted(back)))
    return back


def _config(actor_class: str, recorded: Any) -> BaseConfig:
    """The recorded config, as the actor class's own config (the record may hold it as data)."""
    cls = pkgutil.resolve_name(actor_class)
    config_class: type[BaseConfig] = getattr(cls, "config_class", BaseConfig)
    if isinstance(recorded, config_class):
        return recorded
    data = recorded.model_dump() if isinstance(recorded, BaseModel) else recorded
    return config_class.model_validate(data)


def report_lost_members(
    system: ActorSystem, orchestrator: Orchestrator, host: str, *, leave: bool
) -> list[ActorAddress]:
    """Record that `host` died with members of `orchestrator`'s team; with `leave`, they
    leave the team. Returns them."""
    me = orchestrator.myAddress
    lost = [a for a in orchestrator.directory.members.values() if a.host == host]
    if not lost:
        return []
    names = [a.name for a in lost]
    logger.warning("host %s was lost with %s of team %s", host, ", ".join(names), me.name)
    event = EventMessage(
        event=HostLostEvent(host=host, members=names), sender=me, recipient=me, team_id=me.team_id
    )
    system.post(me, event)
    if leave:
        for member in lost:  # as if each had stopped: the roster and directory let it go
            system.post(me, StopMessage(sender=member, recipient=me, team_id=me.team_id))
        what = "messages to them come back as undeliverable"
    else:
        what = "they are being started again on another host from the team's record"
    text = (
        f"Host {host} was lost, and with it {', '.join(names)}: their work in progress and "
        f"queued mail are gone, and {what}."
    )
    for person in orchestrator.directory.members.values():
        if person.is_user_proxy and person.host != host:
            system.send(person, AgentMessage(content=text, type="notification"), sender=me)
    return lost
