"""Nothing escapes its actor: `SystemExit` and `KeyboardInterrupt` from a handler or an ask.

pykka answers a `BaseException` that is not an `Exception` by stopping every actor in the
process; retinue's actor turns it into an ordinary failure of that one message.
"""

from __future__ import annotations

from typing import Any

import pytest
from retinue import remote
from retinue.actors import (
    Actor,
    ActorAddress,
    ActorError,
    BaseConfig,
    ErrorMessage,
    Message,
)


class Order(Message):
    what: str


RAISED: dict[str, type[BaseException]] = {
    "exit": SystemExit,
    "ctrl-c": KeyboardInterrupt,
    "value": ValueError,
}


class Careless(Actor[BaseConfig, Any]):
    """Raises whatever an order names, from a handler or from an asked method."""

    def on_start(self) -> None:
        self.done: list[str] = []

    def receiveMsg_Order(self, message: Order, sender: ActorAddress | None) -> None:
        if message.what in RAISED:
            raise RAISED[message.what](f"from the handler: {message.what}")
        self.done.append(message.what)

    @remote
    def explode(self, what: str) -> str:
        raise RAISED[what](f"from an ask: {what}")

    @remote
    def get_done(self) -> list[str]:
        return list(self.done)


@pytest.mark.parametrize("what", ["exit", "ctrl-c"])
def test_a_base_exception_in_a_handler_fails_that_message_only(team: Any, what: str) -> None:
    careless = team.spawn(Careless, "@Careless")
    bystander = team.spawn(Careless, "@Bystander")
    careless.send(careless, Order(what=what))
    careless.send(careless, Order(what="after"))
    bystander.send(bystander, Order(what="still here"))
    team.system.wait_idle(5)

    assert careless.is_alive() and bystander.is_alive()
    assert team.system.proxy_ask(careless).get_done() == ["after"]
    assert team.system.proxy_ask(bystander).get_done() == ["still here"]
    (error,) = team.recorder.of(ErrorMessage)
    assert error.exception_type == RAISED[what].__name__
    assert error.sender == careless


@pytest.mark.parametrize("what", ["exit", "ctrl-c"])
def test_a_base_exception_in_an_asked_method_reaches_the_asker_only(team: Any, what: str) -> None:
    careless = team.spawn(Careless, "@Careless")
    with pytest.raises(ActorError, match=rf"{RAISED[what].__name__}.*from an ask: {what}"):
        team.system.proxy_ask(careless).explode(what)
    careless.send(careless, Order(what="after"))
    team.system.wait_idle(5)
    assert team.system.proxy_ask(careless).get_done() == ["after"]
    assert team.proxy.get_team_members()  # the orchestrator answers too


@pytest.mark.parametrize("what", ["exit", "ctrl-c"])
def test_a_base_exception_in_a_told_method_is_reported(team: Any, what: str) -> None:
    careless = team.spawn(Careless, "@Careless")
    team.system.tell(careless, "explode", what)
    careless.send(careless, Order(what="after"))
    team.system.wait_idle(5)
    assert team.system.proxy_ask(careless).get_done() == ["after"]
    (error,) = team.recorder.of(ErrorMessage)
    assert error.exception_type == RAISED[what].__name__


class ExitsOnStart(Actor[BaseConfig, Any]):
    def on_start(self) -> None:
        raise SystemExit("not today")


def test_a_base_exception_in_on_start_stops_that_actor_only(team: Any) -> None:
    bystander = team.spawn(Careless, "@Bystander")
    quitter = team.spawn(ExitsOnStart, "@Quitter")
    team.system.wait_idle(5)
    assert not quitter.is_alive()
    assert quitter not in team.proxy.get_team_members()
    assert [e.exception_type for e in team.recorder.of(ErrorMessage)] == ["SystemExit"]
    bystander.send(bystander, Order(what="still here"))
    team.system.wait_idle(5)
    assert team.system.proxy_ask(bystander).get_done() == ["still here"]


def test_every_actor_thread_survives_a_neighbours_exit(team: Any) -> None:
    crowd = [team.spawn(Careless, f"@C{n}") for n in range(20)]
    crowd[0].send(crowd[0], Order(what="exit"))
    team.system.wait_idle(5)
    for member in crowd:
        member.send(member, Order(what="ok"))
    team.system.wait_idle(5)
    assert [team.system.proxy_ask(m).get_done() for m in crowd] == [["ok"]] * 20
