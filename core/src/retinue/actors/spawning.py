"""Starting an actor: its class checked, its address made and admitted, its start announced.

The steps of `ActorSystem.spawn` and `start_actor` that need nothing of the system's own
bookkeeping, kept apart so the system holds delivery, asks and stopping.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from retinue.actors import runtime
from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress, new_id
from retinue.actors.config import BaseConfig
from retinue.actors.errors import ActorClassError
from retinue.actors.loader import import_object, qualified_name
from retinue.actors.messages import StartMessage, StopMessage
from retinue.actors.redaction import redact_credentials
from retinue.actors.runtime_api import team_owner
from retinue.validation import shown

if TYPE_CHECKING:
    from retinue.actors.resumption import Resumption
    from retinue.actors.system import ActorSystem


def resolve_actor_class(actor_class: type[Any] | str) -> type[Actor[Any, Any]]:
    """A class, or a dotted path to one, checked to be an `Actor`."""
    obj = import_object(actor_class) if isinstance(actor_class, str) else actor_class
    if not (isinstance(obj, type) and issubclass(obj, Actor)):
        given = qualified_name(obj) if isinstance(obj, type) else shown(actor_class)
        raise ActorClassError(f"{given} is not a retinue Actor class (subclass retinue.Actor)")
    return obj


def name_and_id(
    cls: type[Actor[Any, Any]], config: BaseConfig | None, resumption: Resumption | None
) -> tuple[BaseConfig, str, str]:
    """The config (a default one for none), the name asked for and the new actor's id.

    A resumed actor comes back under its old name and id, unless it runs already.
    """
    if config is None:
        config = BaseConfig(name=f"@{cls.__name__}", role=cls.__name__)
    name = config.name or f"@{config.role or cls.__name__}"
    agent_id = new_id()
    if resumption is not None:
        name, agent_id = resumption.address.name, resumption.address.agent_id
        if runtime.lookup(agent_id) is not None:
            raise RuntimeError(f"{name} ({agent_id[:8]}) is already running; not resumed")
    return config, name, agent_id


def new_address(
    system: ActorSystem,
    cls: type[Actor[Any, Any]],
    config: BaseConfig,
    name: str,
    agent_id: str,
    *,
    orchestrator: ActorAddress | None,
    parent: ActorAddress | None,
) -> ActorAddress:
    """The new actor's address, before admission: its host (placed by the cluster, if
    any) and its team (the orchestrator's, or its own when it starts a team)."""
    host = system.host
    if system.cluster is not None:  # where it runs is part of its address
        host = system.cluster.place(cls, config, orchestrator=orchestrator, parent=parent)
    team_id = orchestrator.team_id if orchestrator is not None else None
    if orchestrator is None and getattr(cls, "starts_team", False):
        team_id = agent_id
    return ActorAddress(
        name=name,
        role=config.role,
        agent_id=agent_id,
        team_id=team_id,
        is_user_proxy=cls.is_user_proxy,
        host=host,
    )


def admit(
    system: ActorSystem,
    orchestrator: ActorAddress,
    address: ActorAddress,
    parent: ActorAddress | None,
    *,
    resumed: bool,
) -> ActorAddress:
    """The orchestrator's admission of a new member, made in this thread.

    `Orchestrator.admit` is safe from any thread, so a start never waits for the
    orchestrator's own thread; any other team owner is asked as before.
    """
    owner = team_owner(runtime.lookup(orchestrator.agent_id))
    if owner is not None:
        return owner.admit(address, parent, resumed=resumed)
    admitted: ActorAddress = system.ask(orchestrator, "admit", address, parent, resumed=resumed)
    return admitted


def start_message(
    cls: type[Actor[Any, Any]],
    config: BaseConfig,
    address: ActorAddress,
    orchestrator: ActorAddress,
    parent: ActorAddress | None,
) -> StartMessage:
    """The report of a start, for the orchestrator: the record never holds a secret."""
    return StartMessage(
        config=redact_credentials(config),
        actor_class=qualified_name(cls),
        parent=parent,
        sender=address,
        recipient=orchestrator,
        team_id=address.team_id,
    )


def start_here(
    system: ActorSystem,
    cls: type[Actor[Any, Any]],
    config: BaseConfig,
    address: ActorAddress,
    *,
    orchestrator: ActorAddress | None,
    parent: ActorAddress | None,
    resumption: Resumption | None,
) -> Actor[Any, Any] | None:
    """Start the actor admitted under `address` in this process; the running actor.

    When its start fails, it leaves its team again and the error is raised.
    """
    system.tracker.add()  # the start itself is owed work until on_start returns
    try:
        cls.start(
            config,
            system=system,
            address=address,
            orchestrator=orchestrator,
            parent=parent,
            resumption=resumption,
        )
    except BaseException:
        system.tracker.done()
        runtime.unregister(address.agent_id)
        if orchestrator is not None:
            stop = StopMessage(  # a resumed member that cannot come back did not leave
                sender=address, recipient=orchestrator, shutdown=resumption is not None
            )
            system.post(orchestrator, stop)
        raise
    return runtime.lookup(address.agent_id)
