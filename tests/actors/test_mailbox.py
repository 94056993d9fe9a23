"""The `Mailbox` on its own, and an actor's start and stop around it."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import pykka
from retinue import remote
from retinue.actors import (
    Actor,
    ActorAddress,
    BaseConfig,
    DeadLetterEvent,
    ErrorMessage,
    EventMessage,
    Letter,
    Mailbox,
    Message,
    StopMessage,
    runtime,
)


class Note(Message):
    text: str


def _letters(*texts: str) -> list[Letter]:
    return [Letter(Note(text=t)) for t in texts]


def _texts(messages: list[Any]) -> list[str]:
    return [m.text for m in messages]


def test_letters_come_out_in_arrival_order_around_what_is_taken() -> None:
    box = Mailbox()
    for letter in _letters("a", "b", "c", "d"):
        box.put(letter)
    taken = box.take(lambda m: m.text in {"b", "d"})
    assert _texts([t.message for t in taken]) == ["b", "d"]
    assert _texts(box.peek()) == ["a", "c"]
    assert box.get().message.text == "a"
    box.put(Letter(Note(text="e")))
    assert [box.get().message.text for _ in range(2)] == ["c", "e"]
    assert box.empty()


def test_flagged_letters_are_indexed_on_arrival_and_taken_alone() -> None:
    box = Mailbox()
    box.watch(lambda letter: letter.message.text.startswith("!"))
    for letter in _letters("a", "!stop", "b", "!halt"):
        box.put(letter)
    assert bool(box.has_flagged)  # bool(): mypy would keep the property True for the next line
    assert _texts([t.message for t in box.take_flagged()]) == ["!stop", "!halt"]
    assert not box.has_flagged
    assert box.take_flagged() == []
    assert _texts(box.peek()) == ["a", "b"]


def test_a_flagged_letter_that_is_read_in_turn_leaves_the_index() -> None:
    box = Mailbox()
    box.watch(lambda letter: letter.message.text == "!stop")
    box.put(Letter(Note(text="!stop")))
    assert box.has_flagged
    assert box.get().message.text == "!stop"
    assert not box.has_flagged


def test_arrived_since_returns_only_newer_unflagged_letters_still_waiting() -> None:
    box = Mailbox()
    box.watch(lambda letter: letter.message.text == "!stop")
    for letter in _letters("old", "older"):
        box.put(letter)
    mark = box.last_arrival
    for letter in _letters("new", "!stop", "taken", "newer"):
        box.put(letter)
    box.take(lambda m: m.text == "taken")
    fresh, mark = box.arrived_since(mark)
    assert _texts([f.message for f in fresh]) == ["new", "newer"]
    assert box.arrived_since(mark) == ([], mark)


def test_drain_takes_every_letter_and_leaves_pykkas_own_requests() -> None:
    box = Mailbox()
    foreign = object()  # what pykka's ActorRef puts (its stop request), never a Letter
    box.put(Letter(Note(text="a")))
    box.put(foreign)
    box.put(Letter(Note(text="b")))
    assert _texts([d.message for d in box.drain()]) == ["a", "b"]
    assert box.qsize() == 1
    assert box.get() is foreign


class Ping(Message):
    n: int


class SlowStarter(Actor[BaseConfig, Any]):
    entered = threading.Event()
    release = threading.Event()

    def on_start(self) -> None:
        SlowStarter.entered.set()
        SlowStarter.release.wait(10)
        raise RuntimeError("cannot start")

    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        raise AssertionError("a message reached an actor that never started")


class Sink(Actor[BaseConfig, Any]):
    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        pass


def test_an_actor_that_fails_to_start_says_so_and_its_mail_is_dead(team: Any) -> None:
    SlowStarter.entered.clear()
    SlowStarter.release.clear()
    sender = team.spawn(Sink, "@Sender")
    broken = team.spawn(SlowStarter, "@Broken")
    assert SlowStarter.entered.wait(5)
    sender.send(broken, Ping(n=1))  # queued while on_start runs
    SlowStarter.release.set()
    team.system.wait_idle(5)

    errors = team.recorder.of(ErrorMessage)
    assert [(e.sender.name, e.exception_value) for e in errors] == [("@Broken", "cannot start")]
    assert [m.sender.name for m in team.recorder.of(StopMessage)] == ["@Broken"]
    dead = [m.event for m in team.recorder.of(EventMessage) if isinstance(m.event, DeadLetterEvent)]
    assert [(d.sender, d.recipient, d.message_type) for d in dead] == [
        ("@Sender", "@Broken", "Ping")
    ]
    assert broken not in team.proxy.get_team_members()


class Recorded(Actor[BaseConfig, Any]):
    """Notes, in `on_stop`, whether it could still be reached."""

    stops: ClassVar[list[bool]] = []

    @remote
    def on_stop(self) -> None:
        Recorded.stops.append(runtime.lookup(self.myAddress.agent_id) is not None)

    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        if message.n == 0:
            self.stop()

    @remote
    def alive(self) -> bool:
        return True


def test_on_stop_runs_before_the_actor_leaves_and_wait_idle_waits_for_it(team: Any) -> None:
    Recorded.stops.clear()
    actor = team.spawn(Recorded, "@Recorded")
    actor.send(actor, Ping(n=0))
    team.system.wait_idle(5)
    assert Recorded.stops == [True]  # on_stop ran, while the actor was still registered
    assert actor not in team.proxy.get_team_members()
    assert runtime.lookup(actor.agent_id) is None


def test_asking_for_on_stop_by_name_runs_the_hook_and_stops_nothing(team: Any) -> None:
    Recorded.stops.clear()
    actor = team.spawn(Recorded, "@Recorded")
    proxy = team.system.proxy_ask(actor, Recorded)
    proxy.on_stop()
    assert Recorded.stops == [True]
    assert proxy.alive()
    assert team.system.stop_actor(actor, timeout=5)
    assert Recorded.stops == [True, True]


def test_pykkas_own_stop_request_is_answered_once_the_actor_stopped(team: Any) -> None:
    actor = team.spawn(Sink, "@Sink")
    for n in range(3):
        actor.send(actor, Ping(n=n))
    live = runtime.lookup(actor.agent_id)
    assert live is not None
    future: pykka.Future[bool] = live.actor_ref.stop(block=False)
    assert future.get(timeout=5) is True
    team.system.wait_idle(5)
    assert actor not in team.proxy.get_team_members()
