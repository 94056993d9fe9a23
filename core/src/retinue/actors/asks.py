"""Asks and tells to an actor of this process: a method called by name, checked first.

What `ActorSystem.ask`, `ask_future` and `tell` do once the actor runs here (an actor on
another host is the cluster's): the method must be on the actor's remote surface, a
self-ask is answered inline or refused, and the call joins the actor's mailbox.
"""

from __future__ import annotations

import concurrent.futures
import sys
from typing import TYPE_CHECKING, Any

import pykka

from retinue.actors import runtime
from retinue.actors.errors import ActorNotFoundError, AskTimeoutError, SelfAskError
from retinue.actors.messages import ProxyCall
from retinue.actors.surface import remote_surface
from retinue.actors.turn_handling import member_at

if TYPE_CHECKING:
    from retinue.actors.actor import Actor
    from retinue.actors.address import ActorAddress


class ReplyBridge:
    """A pykka reply slot that resolves a `concurrent.futures.Future` (for non-blocking asks)."""

    def __init__(self) -> None:
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def set(self, value: Any = None) -> None:
        if not self.future.done():
            self.future.set_result(value)

    def set_exception(self, exc_info: Any = None) -> None:
        if not self.future.done():
            self.future.set_exception((exc_info or sys.exc_info())[1])


def target(address: ActorAddress, method: str) -> Actor[Any, Any]:
    """The running actor at `address`, once `method` is on its remote surface."""
    actor = runtime.lookup(address.agent_id)
    if actor is None:
        raise ActorNotFoundError(f"{address.name} is not running")
    cls = type(actor)
    head, dot, rest = method.partition(".")
    member = getattr(cls, head, None)
    if dot:  # a method of what the actor holds: reached through a public property
        reachable = (callable(member) or isinstance(member, property)) and not any(
            part.startswith("_") for part in rest.split(".")
        )
    else:
        reachable = callable(member)
    if not reachable or head.startswith("_"):
        raise AttributeError(f"{cls.__name__} has no public method {method!r}")
    if head not in remote_surface(cls):
        raise AttributeError(
            f"{cls.__name__}.{head} is not offered to other actors: a method called by "
            "name is marked @remote (retinue.remote)"
        )
    return actor


def ask_here(address: ActorAddress, call: ProxyCall, *, wait: float) -> Any:
    """Make `call` on the actor at `address` and wait up to `wait` seconds for its answer.

    A self-ask from the actor's own thread runs inline instead of deadlocking; one from
    work the actor is waiting for (a tool of its run) raises `SelfAskError` at once.
    """
    actor = target(address, call.method)
    if actor.intake.in_own_thread():
        return member_at(actor, call.method)(*call.args, **call.kwargs)
    refuse_self_ask(actor, call.method)
    future: pykka.ThreadingFuture[Any] = pykka.ThreadingFuture()
    offer(actor, address, call, future)
    name, method = address.name, call.method
    try:
        return future.get(timeout=wait)
    except pykka.Timeout:
        raise AskTimeoutError(f"{name}.{method}() gave no answer within {wait:g}s") from None
    except pykka.ActorDeadError:
        raise ActorNotFoundError(f"{name} stopped before answering {method}()") from None


def ask_future_here(address: ActorAddress, call: ProxyCall) -> concurrent.futures.Future[Any]:
    """Make `call` on the actor at `address` without blocking; the answer arrives in the future."""
    actor = target(address, call.method)
    if actor.intake.in_own_thread():
        raise RuntimeError(f"{address.name} cannot wait on an ask to itself")
    refuse_self_ask(actor, call.method)
    bridge = ReplyBridge()
    offer(actor, address, call, bridge)
    return bridge.future


def tell_here(address: ActorAddress, call: ProxyCall) -> None:
    """Make `call` (one that wants no reply) on the actor at `address` without waiting."""
    offer(target(address, call.method), address, call)


def offer(
    actor: Actor[Any, Any], address: ActorAddress, call: ProxyCall, reply: object = None
) -> None:
    """Put `call` in the actor's mailbox (its answer to go to `reply`), or say it has stopped."""
    if not actor.intake.offer(call, reply):
        raise ActorNotFoundError(f"{address.name} is not running")


def refuse_self_ask(actor: Actor[Any, Any], method: str) -> None:
    """Refuse an ask that the asked actor could only answer after the asker is done."""
    if runtime.acting_for() != actor.myAddress.agent_id:
        return
    name = actor.myAddress.name
    raise SelfAskError(
        f"{name}.{method}() was asked by work running for {name} itself (a tool of its run); "
        f"{name} cannot answer until that work is done, so the ask was refused"
    )
