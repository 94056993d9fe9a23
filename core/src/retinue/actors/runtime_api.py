"""`Runtime`: the one interface agents, cards and the orchestrator use to reach their actors.

An actor's code never holds another actor; it holds an `ActorAddress` and asks the runtime
to start, reach, stop or wait for actors. This protocol names every such request, so a
second runtime (Ray hosts, say) is one more implementation of it and agents and cards stay
as they are. `ActorSystem` implements it with pykka threads in one process; the members
listed here are the whole surface agents, cards and plugins may rely on.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, cast, runtime_checkable

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.actors.config import BaseConfig
    from retinue.actors.messages import Message
    from retinue.actors.resumption import Resumption
    from retinue.actors.services import TeamServices
    from retinue.team.view import Team

T = TypeVar("T")


@runtime_checkable
class Runtime(Protocol):
    """Starts actors, carries their messages and calls, waits for quiet and shuts down.

    Addresses are plain data and every call takes one, so an implementation may run the
    addressed actor anywhere. Every wait has a timeout; a call to an actor that is not
    running raises `ActorNotFoundError`, one that gets no answer in time `AskTimeoutError`.
    """

    #: Seconds an ask waits for its answer when the caller gives no timeout.
    ask_timeout: float
    #: The pluggy manager this runtime's agents take their cards from; None: discover once.
    plugin_manager: Any
    #: The team services (a task board, a scheduler) running here, found by class and key.
    services: TeamServices

    # ------------------------------------------------------------------ creation
    def createActor(
        self, actor_class: type[Any] | str, config: BaseConfig | None = None
    ) -> ActorAddress:
        """Start an actor outside any team (an `Orchestrator` starts a team of its own)."""
        ...

    def spawn(
        self,
        actor_class: type[Any] | str,
        config: BaseConfig | None,
        *,
        orchestrator: ActorAddress | None,
        parent: ActorAddress | None,
        resumption: Resumption | None = None,
    ) -> ActorAddress:
        """Start an actor; in a team, the orchestrator admits it under a unique name first.

        With `resumption` (a team resumed from its record), the actor comes back under its
        old name and id, and takes back its state and events before its first message.

        Raises `ActorClassError` for a class that is not an actor, `RuntimeError` once the
        runtime shuts down, and whatever the actor's start raised.
        """
        ...

    # ------------------------------------------------------------------ delivery
    def route(self, orchestrator: ActorAddress | None, message: Message) -> None:
        """Deliver a stamped message to its recipient; the orchestrator hears of it first.

        Never raises for a stopped recipient: the message becomes a dead letter, recorded,
        and its sender gets the notice it is owed.
        """
        ...

    def send(
        self, recipient: ActorAddress, message: Message, sender: ActorAddress | None = None
    ) -> None:
        """Send from code that is not an actor (a script, a test); `sender` may be None."""
        ...

    # ------------------------------------------------------------------ asks and tells
    def ask(
        self,
        address: ActorAddress,
        method: str,
        *args: Any,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call a public method of the actor (dotted: of what it holds) and wait for it.

        `timeout` None means `ask_timeout`. An ask from work the asked actor itself waits
        for raises `SelfAskError` at once instead of deadlocking.
        """
        ...

    def ask_future(
        self, address: ActorAddress, method: str, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[Any]:
        """Ask without blocking: the answer arrives in the future (await `wrap_future`)."""
        ...

    def tell(self, address: ActorAddress, method: str, *args: Any, **kwargs: Any) -> None:
        """Call a public method of the actor without waiting; its errors are reported."""
        ...

    def proxy_ask(
        self,
        address: ActorAddress,
        actor_class: type[T] | None = None,
        timeout: float | None = None,
    ) -> T:
        """An object whose method calls are asks to the actor (typed as `actor_class`)."""
        ...

    def proxy_tell(self, address: ActorAddress, actor_class: type[T] | None = None) -> T:
        """An object whose method calls are tells to the actor."""
        ...

    def team_view(self, orchestrator: ActorAddress, member: ActorAddress) -> Team:
        """The team of `member`, run by `orchestrator`, as that member reads and changes it.

        Reads never wait; where the orchestrator runs is this runtime's business.
        """
        ...

    # ------------------------------------------------------------------ quiet and stop
    def actors(self) -> list[ActorAddress]:
        """The addresses of the actors running in this runtime now."""
        ...

    def wait_idle(self, timeout: float = 30.0) -> None:
        """Return once no message is queued or handled anywhere; `IdleTimeoutError` if not."""
        ...

    def stop_actor(self, address: ActorAddress, timeout: float | None = None) -> bool:
        """Stop one actor after its queued messages; True once it has stopped in time.

        From the actor's own thread it never waits: the stop follows the current message.
        """
        ...

    @property
    def shutting_down(self) -> bool:
        """Whether `shutdown` has begun: failures from now on are ends, not news."""
        ...

    def shutdown(self, timeout: float = 10.0) -> bool:
        """Stop every actor, dropping queued mail; True if all stopped within `timeout`.

        Returns by the deadline whatever the actors do, so the process can exit after it.
        """
        ...


#: How a team's members get their view of it: `(runtime, orchestrator, member) -> Team`.
TeamViews = Callable[["Runtime", "ActorAddress", "ActorAddress"], "Team"]


class TeamOwner(Protocol):
    """What the runtime asks of an actor that starts a team (`Orchestrator`), so the runtime
    needs nothing from the team layer above it: it admits a new member from any thread, and
    its class says how the team's members see the team (`Runtime.team_view`)."""

    starts_team: ClassVar[bool]
    team_views: ClassVar[TeamViews]

    def admit(
        self, address: ActorAddress, parent: ActorAddress | None, *, resumed: bool
    ) -> ActorAddress:
        """The member's address in the team (its name made unique), from any thread."""
        ...


def team_owner(actor: object) -> TeamOwner | None:
    """`actor` when its class starts a team (`starts_team`), else None."""
    return cast("TeamOwner", actor) if getattr(actor, "starts_team", False) else None
