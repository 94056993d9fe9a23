"""`resume_team`: a team brought back from its record, in this process.

The orchestrator comes back first, under the team's own id, with the role profiles; then
every actor that was alive when the record ends, each under its own `@name` and id (so every
address in the record reaches it again), with its last checkpoint (tool state and card
states included) and its events (a `BaseAgent` rebuilds its model history and its lifetime
usage from them); then the messages it was owed are delivered again, oldest first, before
anything new. The new process records on in the same stream.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig
from retinue.actors.loader import add_import_folders
from retinue.actors.messages import EventMessage, Message
from retinue.actors.resumption import Resumption
from retinue.actors.system import ActorSystem, resolve_actor_class
from retinue.agent.messages import AgentMessage
from retinue.llm.team_usage import team_limits_from_events, team_usage_from_events
from retinue.resume.chains import replay_chains
from retinue.resume.lineage import TeamForkedEvent
from retinue.resume.record import RecordedActor, ResumeError, TeamRecord, read_team_record
from retinue.store import Store
from retinue.team.card import AgentCard
from retinue.team.config import TeamConfig
from retinue.team.orchestrator import IMPORT_PATH, Orchestrator
from retinue.validation import ConfigError

logger = logging.getLogger(__name__)


class TeamResumedEvent(BaseModel):
    """Recorded by a resume: who came back, and which messages were delivered again."""

    members: list[str]
    attached: list[str] = []
    redelivered: list[str] = []
    """Ids of the messages delivered again (each was delivered before and never handled)."""
    after_position: int = 0
    """The last position of the record the resume read."""


@dataclass(slots=True)
class ResumedTeam:
    """A team running again: its system, orchestrator, members, and what it was owed."""

    system: ActorSystem
    orchestrator: ActorAddress
    roster: dict[str, ActorAddress]
    """Every member back in the team, by `@name` (`team.get_team_members()` asks for now)."""
    human: ActorAddress | None
    """The person's proxy, if the team had one."""
    entry: ActorAddress | None
    """Where the person's words go by default: the member they last wrote to, if it is back."""
    redelivered: list[Message] = field(default_factory=list)
    """The messages delivered again, oldest first."""
    forked_from: TeamForkedEvent | None = None
    """Set when this team is a new fork (`fork_team`): the team and position it began at."""

    @property
    def team_id(self) -> str:
        return self.orchestrator.team_id or self.orchestrator.agent_id

    @property
    def team(self) -> Orchestrator:
        """The orchestrator's methods, each an ask (`get_team_members()`, ...)."""
        return self.system.proxy_ask(self.orchestrator, Orchestrator)

    def send(self, text: str, to: ActorAddress | None = None, intent: str = "request") -> None:
        """Say `text` as the person, to `to` or to the entry member."""
        if self.human is None:
            raise ResumeError(f"team {self.team_id} has no person's proxy to speak as")
        recipient = to or self.entry
        if recipient is None:
            raise ResumeError(f"team {self.team_id} has no member to speak to")
        self.system.proxy_ask(self.human).send(recipient, AgentMessage(content=text, type=intent))

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Until every mailbox is empty and no handler runs (`IdleTimeoutError` otherwise)."""
        self.system.wait_idle(timeout)

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Stop every actor; True when all stopped in time (the record stays resumable)."""
        return self.system.shutdown(timeout)


def resume_team(
    store: Store,
    team_id: str,
    *,
    system: ActorSystem | None = None,
    human_class: type[Any] | str | None = None,
    profiles: Iterable[AgentCard] = (),
    plugin_manager: Any = None,
) -> ResumedTeam:
    """Bring team `team_id` back from its record in `store`, running in this process.

    - `system`: the actor system to resume in (recording to `store`, or the new messages
      would be lost to the record); by default a new one on `store`.
    - `human_class`: the class of the person's seat (a console's proxy), instead of the one
      recorded.
    - `profiles`: role cards to use instead of the recorded ones, by role. The record never
      holds a credential (configs are redacted): give a team file's cards, or keep keys in
      environment variables (`ModelConfig.api_key_env`), which a resumed agent reads again.

    One process runs a team at a time: the team's lease is taken before its record is read,
    and a team another live process runs is refused with `LeaseHeldError` (a `StoreError`)
    naming it. Raises `ResumeError` when the record holds no such team or cannot be resumed,
    a member among them whose configuration cannot work here (its model's code cannot be
    imported: the team file's folder moved away, an SDK missing; one line naming it), and
    whatever else an actor's start raises (a system made here is shut down then).
    """
    # held on the store the team will record to, whose recorder holds it from its start on
    holder = system.store if system is not None and system.store is not None else store
    holder.take_lease(team_id)
    try:
        _find_its_code(store, team_id)
        plan = read_team_record(store, team_id, load_classes=True)
        owns_system = system is None
        if system is None:
            system = ActorSystem(store=store, plugin_manager=plugin_manager)
        try:
            orchestrator, members, attached = _restart(system, plan, profiles, human_class)
            stopped = _restore_chains(system, orchestrator, plan)  # before anything routes
        except BaseException:
            if owns_system:  # nothing of a team that could not come back is left running
                system.shutdown()
            raise
    finally:
        holder.release_lease(team_id)
    for address in (*members.values(), *attached):  # all back: each may now reach the others
        system.tell(address, "on_team_resumed")
    system.post(  # recorded before anything the owed messages cause
        orchestrator,
        EventMessage(
            event=TeamResumedEvent(
                members=sorted(members),
                attached=[address.name for address in attached],
                redelivered=[m.id for m in plan.owed],
                after_position=plan.last_position,
            ),
            sender=orchestrator,
            recipient=orchestrator,
            team_id=orchestrator.team_id,
        ),
    )
    _restore_budget(system, orchestrator, plan)
    redelivered = _redeliver(system, plan.owed)
    human = next((a for a in members.values() if a.is_user_proxy), None)
    logger.info(
        "team %s resumed: %d member(s), %d message(s) delivered again, %d task chain(s) stopped",
        plan.team_id,
        len(members),
        len(redelivered),
        stopped,
    )
    return ResumedTeam(
        system=system,
        orchestrator=orchestrator,
        roster=members,
        human=human,
        entry=_entry(plan, members),
        redelivered=redelivered,
    )


def _restart(
    system: ActorSystem,
    plan: TeamRecord,
    profiles: Iterable[AgentCard],
    human_class: type[Any] | str | None,
) -> tuple[ActorAddress, dict[str, ActorAddress], list[ActorAddress]]:
    """The orchestrator with its profiles, then every actor alive when the record ends."""
    given = {card.role: card for card in profiles}
    orchestrator = _resume_orchestrator(system, plan)
    cards = {**plan.profiles, **given}
    if cards:
        system.ask(orchestrator, "register_agent_profiles", list(cards.values()))
    members: dict[str, ActorAddress] = {}
    attached: list[ActorAddress] = []
    for actor in plan.alive:
        try:
            address = _resume_actor(system, orchestrator, actor, given, human_class)
        except ConfigError as exc:
            raise _cannot_start(plan, actor.address.name, exc) from exc
        if actor.is_member:
            members[address.name] = address
        else:
            attached.append(address)
    return orchestrator, members, attached


def _cannot_start(plan: TeamRecord, name: str, exc: ConfigError) -> ResumeError:
    """One line: who cannot start and why, and the team's code folders that are gone."""
    problem = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    config = plan.orchestrator.start.config
    folders = config.import_path if isinstance(config, TeamConfig) else []
    gone = [folder for folder in folders if not Path(folder).is_dir()]
    where = f" (its team file's folder {', '.join(gone)} is no longer there)" if gone else ""
    return ResumeError(f"team {plan.team_id}: {name} cannot start: {problem}{where}")


def _find_its_code(store: Store, team_id: str) -> None:
    """The folders the team's code was imported from (its team file's), searched again after
    the installed packages, wherever this process runs; read before the record's classes."""
    info = store.team(team_id)
    folders = info.metadata.get(IMPORT_PATH) if info is not None else None
    if isinstance(folders, list):
        add_import_folders(folder for folder in folders if isinstance(folder, str))


def _restore_budget(system: ActorSystem, orchestrator: ActorAddress, plan: TeamRecord) -> None:
    """The team budget goes on from what the record says was spent and allowed."""
    start = plan.orchestrator.start
    initial = start.config.budget if isinstance(start.config, TeamConfig) else None
    limits = team_limits_from_events(plan.events, initial)
    system.proxy_ask(orchestrator, Orchestrator).restore_budget(
        team_usage_from_events(plan.events), limits
    )


def _restore_chains(system: ActorSystem, orchestrator: ActorAddress, plan: TeamRecord) -> int:
    """The task chains' stops, held messages and delegations, as the record left them."""
    actor = system.local_actor(orchestrator)
    if not isinstance(actor, Orchestrator):  # a runtime whose orchestrator runs elsewhere
        raise ResumeError(f"the orchestrator {orchestrator.name} is not running in this process")
    return replay_chains(actor.chain_ledger, plan.history)


def _resume_orchestrator(system: ActorSystem, plan: TeamRecord) -> ActorAddress:
    start = plan.orchestrator.start
    config = start.config if isinstance(start.config, BaseConfig) else None
    return system.spawn(
        resolve_actor_class(start.actor_class),
        config,
        orchestrator=None,
        parent=None,
        resumption=Resumption(address=plan.orchestrator.address),
    )


def _resume_actor(
    system: ActorSystem,
    orchestrator: ActorAddress,
    actor: RecordedActor,
    given: Mapping[str, AgentCard],
    human_class: type[Any] | str | None,
) -> ActorAddress:
    start = actor.start
    address = actor.address
    parent = start.parent
    team_id = orchestrator.team_id
    if address.team_id != team_id:  # a fork: its members are its own team's now
        address = address.model_copy(update={"team_id": team_id})
        if parent is not None and parent.agent_id == parent.team_id:  # hired by the origin
            parent = orchestrator
    cls = resolve_actor_class(
        human_class if human_class is not None and address.is_user_proxy else start.actor_class
    )
    config = _config_for(cls, start.config, given.get(address.role), address.name)
    resumption = Resumption(address=address, state=actor.state, events=actor.events)
    if not actor.is_member:  # attached: it finds its team's orchestrator in its config
        config = _attached_to(config, orchestrator)
        return system.spawn(cls, config, orchestrator=None, parent=None, resumption=resumption)
    return system.spawn(
        cls, config, orchestrator=orchestrator, parent=parent, resumption=resumption
    )


def _attached_to(config: BaseConfig, orchestrator: ActorAddress) -> BaseConfig:
    """An attached actor's config, naming this team's orchestrator: a fork's, not its
    origin's; a key that named the origin team (a service's, `service_key`) names the fork."""
    named = getattr(config, "team_orchestrator", None)
    if not isinstance(named, ActorAddress) or named.agent_id == orchestrator.agent_id:
        return config
    update: dict[str, Any] = {"team_orchestrator": orchestrator}
    for name in type(config).model_fields:
        if name != "name" and getattr(config, name) == named.agent_id:
            update[name] = orchestrator.agent_id
    return config.model_copy(update=update)


def _config_for(
    cls: type[Any], recorded: BaseModel, card: AgentCard | None, name: str
) -> BaseConfig:
    """The recorded config (validated as the class's), or the given card's under `name`."""
    if card is not None:
        config: BaseConfig = card.get_config_copy()
        return config.model_copy(update={"name": name})
    config_class: type[BaseConfig] = getattr(cls, "config_class", BaseConfig)
    if isinstance(recorded, config_class):
        return recorded
    return config_class.model_validate(recorded.model_dump())


def _redeliver(system: ActorSystem, owed: Iterable[Message]) -> list[Message]:
    """Put each owed message back in its recipient's mailbox, with its own id."""
    delivered = []
    for message in owed:
        recipient = message.recipient
        assert recipient is not None
        if system.post(recipient, message):
            delivered.append(message)
        else:
            system.dead_letter(message.sender, recipient, message)
    return delivered


def _entry(plan: TeamRecord, members: Mapping[str, ActorAddress]) -> ActorAddress | None:
    """The member the person last wrote to, if it is back; else the first agent."""
    wrote_to = plan.person_wrote_to
    back = {address.agent_id: address for address in members.values()}
    if wrote_to is not None and wrote_to.agent_id in back:
        return back[wrote_to.agent_id]
    return next((a for a in members.values() if not a.is_user_proxy), None)
