"""`TeamServices`: the team services one runtime runs, each found by its class and a key.

A team service (`retinue.team.team_service`) is an actor a team has one of, found by the
cards that need it. The registry is the runtime's (`Runtime.services`), not the process's:
two systems in one process, such as two test teams or a Ray host beside its driver, never
find each other's services.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress


class ServiceHandle(Protocol):
    """What the registry keeps for a running service: at least its address."""

    @property
    def address(self) -> ActorAddress:
        """The service actor's address."""
        ...


HandleT = TypeVar("HandleT", bound=ServiceHandle)


class TeamServices:
    """Handles of running team services by (service class, key); finding or starting is atomic."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handles: dict[tuple[type[Any], str], ServiceHandle] = {}

    def open(self, service: type[Any], key: str, start: Callable[[], HandleT]) -> HandleT:
        """The running `service` for `key`, or the one `start()` starts and hands back.

        Whoever asks first starts it, everyone else gets that one. `start` runs under the
        registry's lock, so it must not open another service.
        """
        with self._lock:
            found = self._handles.get((service, key))
            if found is not None and found.address.is_alive():
                return cast(HandleT, found)  # one service class, one kind of handle
            handle = start()
            self._handles[(service, key)] = handle
            return handle

    def running(self, service: type[Any], key: str) -> ServiceHandle | None:
        """The handle of the running `service` for `key`; never starts one."""
        with self._lock:
            found = self._handles.get((service, key))
        return found if found is not None and found.address.is_alive() else None

    def remember(self, service: type[Any], key: str, handle: ServiceHandle) -> None:
        """Register a service that started on its own (a resumed team's)."""
        with self._lock:
            self._handles[(service, key)] = handle

    def forget(self, service: type[Any], key: str, address: ActorAddress) -> None:
        """The service at `address` stopped: drop it, unless another took its key since."""
        with self._lock:
            found = self._handles.get((service, key))
            if found is not None and found.address == address:
                del self._handles[(service, key)]
