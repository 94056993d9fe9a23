"""Actors and scripted models the Ray tests start on hosts: imported there by name.

They keep no state outside their actors: what happened is read back through the team's
record in the driver, or asked of the actor.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import Actor, ActorAddress, BaseConfig, BaseState, Message, remote
from retinue.testing import incoming, send


class Numbered(Message):
    """The `n`th message of a burst."""

    n: int


class Hop(Message):
    """One hop of a relay: `left` more to go between the two relays."""

    left: int


class Counter(Actor[BaseConfig, BaseState]):
    """Keeps the numbers it received, in arrival order, and relays hops back."""

    def on_start(self) -> None:
        self.seen: list[int] = []
        self.hops = 0

    def receiveMsg_Numbered(self, message: Numbered, sender: ActorAddress | None) -> None:
        self.seen.append(message.n)

    def receiveMsg_Hop(self, message: Hop, sender: ActorAddress | None) -> None:
        self.hops += 1
        if message.left > 0 and sender is not None:
            self.send(sender, Hop(left=message.left - 1))

    @remote
    def burst(self, target: ActorAddress, count: int) -> None:
        """Send `count` numbered messages to `target`, as fast as they go."""
        for n in range(count):
            self.send(target, Numbered(n=n))

    @remote
    def relay(self, target: ActorAddress, hops: int) -> None:
        self.send(target, Hop(left=hops - 1))

    @remote
    def received(self) -> list[int]:
        return list(self.seen)

    @remote
    def hop_count(self) -> int:
        return self.hops

    @remote
    def host_name(self) -> Any:
        return self.myAddress.host


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Delegates the human's request to a (hired) Developer, then answers the human."""
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("Developer", "request", "Write the sprint plan"))
    return send(info, ("@Human", "response", "Sprint planned: " + got.content))


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers whoever asked."""
    return send(info, (incoming(messages).sender, "response", "plan ready"))


async def stuck(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A model that answers only after a minute: the run is there to be stopped."""
    await asyncio.sleep(60)  # sleep-ok: a model request that outlasts the test, to be stopped
    return send(info, ("@Human", "response", "too late"))
