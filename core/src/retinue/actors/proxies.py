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
        return AskMember(self, name)


class AskMember:
    """A method of the actor, or of an object it holds (`proxy.command_registry.has`).

    Calling it runs the call in the actor's thread and waits; reaching further names the
    attribute's own method, so `proxy.command_registry.descriptors()` works as it reads.
    """

    __slots__ = ("__name__", "_path", "_proxy")

    def __init__(self, proxy: AskProxy, path: str) -> None:
        self._proxy = proxy
        self._path = path
        self.__name__ = path.rpartition(".")[2]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        proxy = self._proxy
        return proxy._runtime.ask(
            proxy._address, self._path, *args, timeout=proxy._timeout, **kwargs
        )

    def __getattr__(self, name: str) -> AskMember:
        if name.startswith("_"):
            raise AttributeError(name)
        return AskMember(self._proxy, f"{self._path}.{name}")


class TellProxy:
    """Calls an actor's public methods without waiting."""

    __slots__ = ("_address", "_runtime")

    def __init__(self, runtime: Runtime, address: ActorAddress) -> None:
        self._runtime = runtime
        self._address = address

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return TellMember(self, name)


class TellMember:
    """As `AskMember`, without waiting for the call to run."""

    __slots__ = ("__name__", "_path", "_proxy")

    def __init__(self, proxy: TellProxy, path: str) -> None:
        self._proxy = proxy
        self._path = path
        self.__name__ = path.rpartition(".")[2]

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self._proxy._runtime.tell(self._proxy._address, self._path, *args, **kwargs)

    def __getattr__(self, name: str) -> TellMember:
        if name.startswith("_"):
            raise AttributeError(name)
        return TellMember(self._proxy, f"{self._path}.{name}")
