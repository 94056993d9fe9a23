"""A shutdown asked for from inside a handler keeps its deadline and stops everyone else."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from retinue.actors import Actor, ActorAddress, BaseConfig, Message


class Quit(Message):
    pass


class Quitter(Actor[BaseConfig, Any]):
    answers: ClassVar[list[bool]] = []
    answered = threading.Event()

    def receiveMsg_Quit(self, message: Quit, sender: ActorAddress | None) -> None:
        Quitter.answers.append(self.system.shutdown(timeout=0.2))
        Quitter.answered.set()


def test_shutdown_from_a_handler_returns_and_the_others_stop(make_team: Any) -> None:
    team = make_team()
    quitter = team.spawn(Quitter, "@Quitter")
    others = [team.spawn(Quitter, f"@Other{n}") for n in range(5)]
    Quitter.answers.clear()
    Quitter.answered.clear()
    quitter.send(quitter, Quit())
    assert Quitter.answered.wait(10)
    assert Quitter.answers == [False]  # it could not wait for its own thread, and said so
    assert not any(other.is_alive() for other in others)
    assert team.system.shutdown(timeout=10)  # its own stop follows its handler
    assert not quitter.is_alive()
