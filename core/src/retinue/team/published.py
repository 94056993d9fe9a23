"""`PublishingService`: a team service whose state any thread reads without asking it.

A service read far more often than it changes (a task board, a knowledge graph: in every
turn's context) posts each state it takes on its `Published` (`retinue.team.publication`),
so a reader takes the latest with one attribute read and never waits on the service's
mailbox. Its state is a `VersionedState`, whose version counts the changes and never goes
back. A card holds a `PublishedHandle`: the service's typed methods, to change it, and its
publication, to read it; `open_published` finds or starts the service and gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import ConfigDict, Field

from retinue.actors.config import BaseState
from retinue.actors.surface import remote
from retinue.team.publication import Published
from retinue.team.team_service import ServiceConfigT, TeamService

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.actors.runtime_api import Runtime


class VersionedState(BaseState):
    """A frozen state that counts the changes made to it."""

    model_config = ConfigDict(frozen=True)

    version: int = Field(default=0, ge=0)
    """How many changes the state has seen; each adds one."""


VersionedStateT = TypeVar("VersionedStateT", bound=VersionedState)
"""The state of a publishing service."""
ServiceT = TypeVar("ServiceT")
HandleT = TypeVar("HandleT", bound="PublishedHandle[Any, Any]")


class PublishingService(TeamService[ServiceConfigT, VersionedStateT]):
    """A team service that publishes every state it takes (`published`).

    A change sets the next state with `publish_state`; a restored or resumed state is
    published as it is taken back. `changes_made` counts the versions.
    """

    def __init__(self, config: ServiceConfigT, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        self.published = Published(self.state)

    def service_handle(self) -> PublishedHandle[Any, VersionedStateT]:
        """Its handle: this service's typed methods and its publication."""
        return PublishedHandle(type(self), self.system, self.myAddress, self.published)

    def init_state(self, state: VersionedStateT) -> None:
        super().init_state(state)
        self.published.publish(state)

    def publish_state(self, state: VersionedStateT) -> None:
        """Make `state` the service's (checkpointed after this message) and the one read."""
        self.state = state
        self.published.publish(state)

    def changes_made(self) -> str | None:
        """How many changes the state has seen (a restore is refused after the first)."""
        version = self.state.version
        return None if version == 0 else f"{version} change{'s' if version != 1 else ''}"

    @remote
    def handle(self) -> PublishedHandle[Any, VersionedStateT]:
        """Its `service_handle`, for the card that started it (asked once)."""
        return self.service_handle()


@dataclass(frozen=True, slots=True)
class PublishedHandle(Generic[ServiceT, VersionedStateT]):
    """A running publishing service: its typed methods (to change it), its state (to read it)."""

    service: type[ServiceT]
    system: Runtime
    address: ActorAddress
    published: Published[VersionedStateT]

    @property
    def current(self) -> VersionedStateT:
        """The state as of its latest change; no ask."""
        return self.published.current

    def proxy(self, timeout: float | None = None) -> ServiceT:
        """The service's typed methods, each waiting (up to `timeout`) for its answer."""
        return self.system.proxy_ask(self.address, self.service, timeout=timeout)


def open_published(
    system: Runtime,
    service: type[PublishingService[ServiceConfigT, Any]],
    key: str,
    config: ServiceConfigT,
    handle: type[HandleT],
) -> HandleT:
    """The running `service` for `key`, or one started with `config`; its handle.

    Atomic (`Runtime.services`): whoever asks first starts it, everyone else gets that one.
    `handle` is the class of what its `service_handle` gives.
    """

    def start() -> HandleT:
        started = system.ask(system.createActor(service, config), "handle")
        if not isinstance(started, handle):
            raise RuntimeError(f"{service.__name__} gave no {handle.__name__} to use it by")
        return started

    return system.services.open(service, key, start)
