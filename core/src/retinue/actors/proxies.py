"""Proxies: an actor's methods called like a local object's, each call an ask or a tell.

They hold only an address and the runtime, so they work with any `Runtime`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.actors.runtime_api import Runtime


class AskProxy:
    """Calls an actor's public methods and waits for each answer."""

    __slots__ = ("_address", "_runtime", "_timeout")

    def __init__(self, runtime: Runtime, address: ActorAddress, timeout: float | None) -> None:
        self._runtime = runtime
        self._address = address
        self._timeout = timeout

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return AskMember(self._runtime, self._address, self._timeout, name)


class AskMember:
    """A method of the actor, or of an object it holds (`proxy.command_registry.has`).

    Calling it runs the call in the actor's thread and waits; reaching further names the
    attribute's own method, so `proxy.command_registry.descriptors()` works as it reads.
    """

    __slots__ = ("__name__", "_address", "_path", "_runtime", "_timeout")

    def __init__(
        self, runtime: Runtime, address: ActorAddress, timeout: float | None, path: str
    ) -> None:
        self._runtime = runtime
        self._address = address
        self._timeout = timeout
        self._path = path
        self.__name__ = path.rpartition(".")[2]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._runtime.ask(self._address, self._path, *args, timeout=self._timeout, **kwargs)

    def __getattr__(self, name: str) -> AskMember:
        if name.startswith("_"):
            raise AttributeError(name)
        return AskMember(self._runtime, self._address, self._timeout, f"{self._path}.{name}")


class TellProxy:
    """Calls an actor's public methods without waiting."""

    __slots__ = ("_address", "_runtime")

    def __init__(self, runtime: Runtime, address: ActorAddress) -> None:
        self._runtime = runtime
        self._address = address

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return TellMember(self._runtime, self._address, name)


class TellMember:
    """As `AskMember`, without waiting for the call to run."""

    __slots__ = ("__name__", "_address", "_path", "_runtime")

    def __init__(self, runtime: Runtime, address: ActorAddress, path: str) -> None:
        self._runtime = runtime
        self._address = address
        self._path = path
        self.__name__ = path.rpartition(".")[2]

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self._runtime.tell(self._address, self._path, *args, **kwargs)

    def __getattr__(self, name: str) -> TellMember:
        if name.startswith("_"):
            raise AttributeError(name)
        return TellMember(self._runtime, self._address, f"{self._path}.{name}")
