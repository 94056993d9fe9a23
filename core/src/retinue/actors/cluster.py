"""`Cluster`: the hosts beyond this process that one `ActorSystem` spreads its actors over.

`ActorSystem` runs every actor of one process on pykka threads. Given a cluster
(`ActorSystem(cluster=...)`), it becomes one host of several: each host is a process with
an `ActorSystem` of its own, and this protocol is all the kernel asks of what connects
them. The system calls it only where its own process cannot answer: where a new actor
starts (`place`, `start`), and what to do with an address whose `host` is another one (a
message, a call, a stop, the team view of a member whose orchestrator runs elsewhere),
what idle means across hosts and how a shutdown reaches them. Within one host nothing
changes: mail is still one put into a mailbox, and a system without a cluster never calls
it. retinue-ray implements it on Ray actors; see docs/ray.md.

An implementation keeps the runtime's promises: every wait has a timeout, a call to an
actor that is gone (its host too) raises `ActorNotFoundError`, a message to one becomes a
dead letter whose sender is answered on the sender's host, and the messages one host sends
another arrive in the order they were sent.
"""

from __future__ import annotations

import concurrent.futures
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.actors.config import BaseConfig
    from retinue.actors.resumption import Resumption
    from retinue.actors.system import ActorSystem
    from retinue.team.view import Team


@runtime_checkable
class Cluster(Protocol):
    """What one host's `ActorSystem` asks of the others (see the module's docstring)."""

    def attach(self, system: ActorSystem) -> str:
        """Join `system` as a host; returns this host's name (every address it makes says it).

        Called once, from `ActorSystem.__init__`.
        """
        ...

    def place(
        self,
        actor_class: type[Any],
        config: BaseConfig,
        *,
        orchestrator: ActorAddress | None,
        parent: ActorAddress | None,
    ) -> str:
        """The host a new actor will run on (this host's own name: here).

        Asked by `ActorSystem.spawn` in the spawning thread before the actor's address is
        made and admitted; `start` follows in the same thread.
        """
        ...

    def start(
        self,
        actor_class: type[Any],
        config: BaseConfig,
        address: ActorAddress,
        *,
        orchestrator: ActorAddress | None,
        parent: ActorAddress | None,
        resumption: Resumption | None,
    ) -> None:
        """Start the actor admitted under `address` on `address.host`: here through
        `ActorSystem.start_actor`, elsewhere through that host's. Raises what its start
        raised (`ActorNotFoundError` when its host is gone)."""
        ...

    def post(self, recipient: ActorAddress, message: Any, *, bounce: bool) -> bool:
        """Queue `message` for an actor on another host; False when that host is gone.

        With `bounce` (a delivery, not a report), a recipient found stopped there is handed
        back to this host's `ActorSystem.dead_letter`, where its sender runs.
        """
        ...

    def send(self, sender: ActorAddress | None, recipient: ActorAddress, message: Any) -> None:
        """`ActorSystem.send` from code outside the actors, to an actor on another host."""
        ...

    def call(
        self, address: ActorAddress, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> concurrent.futures.Future[Any]:
        """Call a public method of an actor on another host; its answer or error arrives in
        the future (`ActorNotFoundError` when it, or its host, is gone)."""
        ...

    def tell(
        self, address: ActorAddress, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        """As `call`, without an answer; `ActorNotFoundError` when its host is gone."""
        ...

    def stop_actor(self, address: ActorAddress, timeout: float) -> bool:
        """Stop an actor on another host after its queued messages; True once it stopped."""
        ...

    def team_view(self, orchestrator: ActorAddress, member: ActorAddress) -> Team:
        """The `Team` of `member`, whose `orchestrator` runs on another host."""
        ...

    def actors(self) -> list[ActorAddress]:
        """The actors running on the other hosts that this host can list (may be none)."""
        ...

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no host, this one included, has work queued, running or in transit.

        True when that was seen within `timeout`.
        """
        ...

    def shutdown(self, timeout: float) -> bool:
        """Stop the actors of the other hosts this host started; True if all stopped in time.

        Called by `ActorSystem.shutdown` before this host's own actors stop.
        """
        ...
