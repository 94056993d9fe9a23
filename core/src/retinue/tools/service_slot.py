"""`ServiceSlot`: where a card keeps the handle of its team's service (a board, a scheduler).

A card opens its team's service on first use and keeps the handle while it is bound, so a
turn that reads the service often asks the runtime's registry once. The slot is that
habit written once: opened with the service's `open_...` function for the card's host,
emptied when the card is unbound. A copy of a slot is empty, as a copy of a card is unbound,
so two agents configured with the same card never share a handle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from retinue.team.team_service import service_key

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.actors.runtime_api import Runtime
    from retinue.tools.host import ToolHost

HandleT = TypeVar("HandleT")


class ServiceSlot(Generic[HandleT]):
    """The handle of a card's team service, opened on first use (`open`), let go on unbind.

    `opener` finds or starts the service as `open_board(system, key, orchestrator)` does;
    the slot calls it with the host's runtime, `service_key(host.myAddress)` (the team's
    id, or the agent's own outside a team) and the host's orchestrator.
    """

    __slots__ = ("_handle", "_opener")

    def __init__(self, opener: Callable[[Runtime, str, ActorAddress | None], HandleT]) -> None:
        self._opener = opener
        self._handle: HandleT | None = None

    def open(self, host: ToolHost) -> HandleT:
        """The service of `host`'s team, opened (and kept) if this slot holds none yet."""
        handle = self._handle
        if handle is None:
            handle = self._opener(host.system, service_key(host.myAddress), host.orchestrator)
            self._handle = handle
        return handle

    def clear(self) -> None:
        """Let the handle go (the card is unbound); the next `open` opens the service again."""
        self._handle = None

    # A copy or a pickle is empty, and the handle takes no part in a card's equality: what
    # a slot holds belongs to the agent the card acts for, not to the card's value.
    def __copy__(self) -> ServiceSlot[HandleT]:
        return ServiceSlot(self._opener)

    def __deepcopy__(self, memo: dict[int, Any]) -> ServiceSlot[HandleT]:
        return ServiceSlot(self._opener)

    def __reduce__(self) -> tuple[type[ServiceSlot[Any]], tuple[Callable[..., HandleT]]]:
        return (ServiceSlot, (self._opener,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ServiceSlot) and other._opener == self._opener

    def __hash__(self) -> int:
        return hash(self._opener)
