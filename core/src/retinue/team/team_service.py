"""`TeamService`: an actor a team has one of (a task board, a scheduler), found by key.

What a team shares lives in one actor, so changes from any number of agents arrive in its
mailbox and apply one at a time. The service reports to the team's orchestrator (its events,
checkpoints and errors are recorded, and a resumed team starts it again) without being a
member: the roster does not list it, `max_members` does not count it, and nobody can
message or fire it. Cards find it through their runtime's registry (`Runtime.services`),
under the service's class and `service_key`, and start it there if it is not running yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from retinue.actors.actor import Actor, StateT
from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig
from retinue.actors.messages import StartMessage
from retinue.actors.surface import remote

if TYPE_CHECKING:
    from retinue.actors.resumption import Resumption
    from retinue.actors.services import ServiceHandle


def service_key(member: ActorAddress) -> str:
    """Which service a member uses: its team's, or its own outside any team."""
    return member.team_id if member.team_id is not None else f"agent-{member.agent_id}"


class TeamServiceConfig(BaseConfig):
    """Whose orchestrator records the service."""

    team_orchestrator: ActorAddress | None = None
    """The team's orchestrator; None for the service of an agent outside any team."""


ServiceConfigT = TypeVar("ServiceConfigT", bound=TeamServiceConfig)


class TeamService(Actor[ServiceConfigT, StateT]):
    """Attached to its team's orchestrator, registered under `service_key` while it runs.

    A subclass says its key (kept in its config, so a resumed service has it) and what the
    registry keeps for it (`service_handle`); cards open it with `Runtime.services.open`.
    Every service answers `get_state` and takes a saved state back with `restore`.
    """

    def __init__(self, config: ServiceConfigT, **kwargs: Any) -> None:
        orchestrator = config.team_orchestrator
        if orchestrator is not None:
            # Reports go to the team's orchestrator, which never admitted the service as a
            # member, so the roster does not list it.
            kwargs["orchestrator"] = orchestrator
            kwargs["address"] = kwargs["address"].model_copy(
                update={"team_id": orchestrator.team_id}
            )
        super().__init__(config, **kwargs)

    @property
    def service_key(self) -> str:
        """The key this service is registered under (`service_key` of a member)."""
        raise NotImplementedError(f"{type(self).__name__} does not say its service_key")

    def service_handle(self) -> ServiceHandle:
        """What the registry keeps for this service, registering itself when resumed."""
        raise NotImplementedError(f"{type(self).__name__} does not say its service_handle")

    def changes_made(self) -> str | None:
        """What the service has changed since it started, in words ("6 changes"), or None.

        By default, "changes" once the state is not the fresh one (`default_state`).
        """
        return None if self.state == self.default_state() else "changes"

    @remote
    def get_state(self) -> StateT:
        """The state now: what a checkpoint holds, and what `restore` takes back."""
        return self.state

    @remote
    def restore(self, state: StateT) -> None:
        """Start from `state` (a resumed team's, saved before); only before the first change,
        so that nothing the service did meanwhile is lost."""
        made = self.changes_made()
        if made is not None:
            raise ValueError(
                f"{self.myAddress.name} already has {made}; a team service is restored only "
                "before its first change"
            )
        self.init_state(state)

    def on_start(self) -> None:
        # Recorded as attached, not as a member: a resumed team restarts it, and the roster
        # never lists it.
        cls = type(self)
        self._tell_orchestrator(
            StartMessage(
                config=self.config, actor_class=f"{cls.__module__}:{cls.__qualname__}", member=False
            )
        )

    def on_resume(self, resumption: Resumption) -> None:
        """The state as last checkpointed; the team's cards find the service again."""
        super().on_resume(resumption)
        self.system.services.remember(type(self), self.service_key, self.service_handle())

    def on_stop(self) -> None:
        self.system.services.forget(type(self), self.service_key, self.myAddress)
