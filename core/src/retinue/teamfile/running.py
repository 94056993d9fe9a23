"""`RunningTeam`: a team file's team, started on an actor system, and the person's seat in it."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig
from retinue.actors.errors import describe_error
from retinue.actors.loader import add_import_folders
from retinue.actors.system import ActorSystem
from retinue.agent.failures import FailureNotice, start_failed_line
from retinue.agent.human_proxy import HumanProxy
from retinue.agent.messages import AgentMessage
from retinue.team.card import AgentCard
from retinue.team.orchestrator import Orchestrator

if TYPE_CHECKING:
    from pathlib import Path

    from retinue.llm.config import ModelConfig
    from retinue.store import Store
    from retinue.teamfile.schema import TeamFile

logger = logging.getLogger(__name__)

ORCHESTRATOR_NAME = "@Orchestrator"
PERSON_ROLE = "Human"


@dataclass
class RunningTeam:
    """A started team: its system, orchestrator, the person's proxy and the entry agent.

    `team` is the orchestrator's ask proxy (`team.get_team_members()`, `team.subscribe(...)`).
    `started` maps every role started at launch to its member. Use it as a context manager,
    or call `shutdown()`: a system this team created is shut down with it.
    """

    spec: TeamFile
    system: ActorSystem
    orchestrator: ActorAddress
    team: Any
    human: ActorAddress
    entry: ActorAddress
    started: dict[str, ActorAddress] = field(default_factory=dict)
    owns_system: bool = True

    def send(
        self,
        text: str,
        to: ActorAddress | None = None,
        intent: str = "request",
        *,
        chain_id: str | None = None,
    ) -> None:
        """Send `text` as the person, to the entry agent unless `to` says otherwise.

        Returns once the message is in the recipient's mailbox; a `/command` is read as one.
        `chain_id` names the task chain the message starts (by default its own id): whatever
        the team sends while working on it, the answer to the person included, carries it.
        """
        recipient = to if to is not None else self.entry
        self.system.proxy_ask(self.human, HumanProxy).send(
            recipient, AgentMessage(content=text, type=intent, chain_id=chain_id)
        )

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Until every mailbox is empty and no handler runs (`TimeoutError` otherwise)."""
        self.system.wait_idle(timeout)

    def members(self) -> list[ActorAddress]:
        """The team's members now, the person's proxy included."""
        members: list[ActorAddress] = self.team.get_team_members()
        return members

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Stop the team; True when every actor stopped within `timeout`.

        A system this team created is shut down; a system handed in is left running, with
        this team's members and orchestrator stopped.
        """
        if self.owns_system:
            return self.system.shutdown(timeout)
        stopped = True
        try:
            members = self.members()
        # the orchestrator is gone already: nothing left to list
        except Exception as exc:  # noqa: BLE001
            logger.warning(
                "team %s: cannot list its members to stop them: %s", self.spec.team.name, exc
            )
            members = []
        for member in [*members, self.orchestrator]:
            stopped = self.system.stop_actor(member, timeout) and stopped
        return stopped

    def __enter__(self) -> RunningTeam:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()


def start_team(
    spec: TeamFile,
    *,
    model: ModelConfig | None = None,
    human_class: type[Any] | None = None,
    system: ActorSystem | None = None,
    plugin_manager: Any = None,
    store: Store | str | Path | None = None,
) -> RunningTeam:
    """Start `spec`: an orchestrator with every role hireable, the person, the started roles.

    `model` replaces every role's model (what `--model` does); `human_class` is the person's
    seat (a `HumanProxy` subclass showing messages somewhere); `system` an actor system to
    start in (recording where it records), else a new one with `plugin_manager`'s cards,
    recording into `store` (a `Store`, a path or a URL) if given. A failure while starting
    stops whatever was started and raises; a member that cannot start (a plugin failing in
    its capability hook, say) is told to the person's seat first, in one line.
    """
    owns_system = system is None
    if system is None:
        system = ActorSystem(plugin_manager=plugin_manager, store=store)
    seat = human_class if human_class is not None else HumanProxy
    import_path = [spec.folder] if spec.folder is not None else []
    add_import_folders(import_path)
    orchestrator: ActorAddress | None = None
    human: ActorAddress | None = None
    starting: AgentCard | None = None
    try:
        orchestrator = system.createActor(
            Orchestrator, spec.team.team_config(ORCHESTRATOR_NAME, import_path)
        )
        team: Any = system.proxy_ask(orchestrator, Orchestrator)
        cards = {card.role: card for card in spec.cards(model)}
        team.register_agent_profiles(list(cards.values()))
        human = team.createActor(seat, BaseConfig(name=spec.team.person_name, role=PERSON_ROLE))
        started: dict[str, ActorAddress] = {}
        for role in spec.started_roles():
            starting = cards[role]
            started[role] = team.createActor(starting.get_agent_class(), starting.get_config_copy())
    except BaseException as exc:
        if isinstance(exc, Exception) and human is not None and starting is not None:
            _tell_start_failed(system, human, starting, exc)
        if owns_system:
            system.shutdown()
        elif orchestrator is not None:
            system.stop_actor(orchestrator)
        raise
    logger.info(
        "team %s started: %s; %s talks to %s",
        spec.team.name,
        ", ".join(address.name for address in started.values()),
        human.name,
        started[spec.entry_role].name,
    )
    assert human is not None
    return RunningTeam(
        spec=spec,
        system=system,
        orchestrator=orchestrator,
        team=team,
        human=human,
        entry=started[spec.entry_role],
        started=started,
        owns_system=owns_system,
    )


def _tell_start_failed(
    system: ActorSystem, person: ActorAddress, card: AgentCard, error: Exception
) -> None:
    """The person's seat hears why the team could not start (a plugin at fault is named in
    `error`), as it hears of a hire that could not start, before the team stops."""
    member = card.config.name or f"@{card.role}"
    reason = describe_error(error)
    notice = FailureNotice(
        failure="start",
        member=member,
        reason=reason,
        content=start_failed_line(member, reason),
        type="notification",
    )
    try:
        system.send(person, notice)
        system.wait_idle(system.ask_timeout)  # read before the stop drops queued mail
    except Exception as exc:  # noqa: BLE001 - best effort: the start's own error is what is raised
        logger.warning("could not tell %s the team failed to start: %s", person.name, exc)
