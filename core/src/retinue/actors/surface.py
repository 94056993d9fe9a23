"""An actor's remote surface: the methods other actors may call by name.

`ActorSystem.ask`, `ask_future`, `tell` and the proxies call a method of an actor by its name,
from another thread, another actor or another host. Not every public method of an actor is
meant for that: its hooks, its mailbox, its own stop are for it and its runtime. A method is
on the surface when it is marked `@remote` on its class or on a base class (an override
stays on it); a marked property leads on to the public methods of what it returns, as
pykka's `traversable` attributes do (`proxy.command_registry.descriptors()`). Anything
else is refused with one line naming the method and the mark, before the actor is bothered.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_MARK = "__retinue_remote__"
_surfaces: dict[type[Any], frozenset[str]] = {}
_lock = threading.Lock()


def remote(function: F) -> F:
    """Offer a method (or a property's getter) to other actors, by name."""
    setattr(function, _MARK, True)
    return function


def is_remote(member: Any) -> bool:
    """Whether a class attribute is marked: a method, or a property whose getter is."""
    if isinstance(member, property):
        member = member.fget
    return bool(getattr(member, _MARK, False))


def remote_surface(cls: type[Any]) -> frozenset[str]:
    """The names other actors may call on an actor of class `cls` (computed once a class)."""
    found = _surfaces.get(cls)
    if found is None:
        names = {
            name
            for klass in cls.__mro__
            for name, member in vars(klass).items()
            if not name.startswith("_") and is_remote(member)
        }
        found = frozenset(names)
        with _lock:
            _surfaces[cls] = found
    return found
