"""The actor runtime with real pykka actors: delivery, order, failures, quiet, shutdown."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import Field
from retinue import remote
from retinue.actors import (
    Actor,
    ActorAddress,
    ActorClassError,
    ActorNotFoundError,
    ActorSystem,
    BaseConfig,
    BaseState,
    DeadLetterEvent,
    ErrorMessage,
    EventMessage,
    IdleTimeoutError,
    Message,
    SentMessage,
    StateChangedMessage,
)
from retinue.team import AgentCard


class Ping(Message):
    n: int


class Pong(Ping):
    """A subclass: dispatch walks the MRO to `receiveMsg_Ping`."""


class Counter(Actor[BaseConfig, Any]):
    def on_start(self) -> None:
        self.seen: list[int] = []
        self.limit = 0

    @remote
    def set_limit(self, limit: int) -> None:
        self.limit = limit

    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        self.seen.append(message.n)
        if sender is not None and message.n + 1 < self.limit:
            self.send(sender, Ping(n=message.n + 1))

    @remote
    def get_seen(self) -> list[int]:
        return list(self.seen)


def test_ping_pong_10000_messages_complete_and_in_order(team: Any) -> None:
    a = team.spawn(Counter, "@A")
    b = team.spawn(Counter, "@B")
    for addr in (a, b):
        team.system.proxy_ask(addr, Counter).set_limit(10_000)
    a.send(b, Ping(n=0))
    team.system.wait_idle(timeout=120)
    seen_a = team.system.proxy_ask(a, Counter).get_seen()
    seen_b = team.system.proxy_ask(b, Counter).get_seen()
    assert seen_b == list(range(0, 10_000, 2))
    assert seen_a == list(range(1, 10_000, 2))


def test_dispatch_walks_the_message_class_mro(team: Any) -> None:
    a = team.spawn(Counter, "@A")
    a.send(a, Pong(n=7))
    team.system.wait_idle(5)
    assert team.system.proxy_ask(a, Counter).get_seen() == [7]


class Fragile(Actor[BaseConfig, Any]):
    def on_start(self) -> None:
        self.handled: list[int] = []

    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        if message.n == 1:
            raise ValueError("boom on one")
        self.handled.append(message.n)

    @remote
    def get_handled(self) -> list[int]:
        return self.handled


def test_handler_exception_reports_error_and_next_message_is_processed(team: Any) -> None:
    f = team.spawn(Fragile, "@Fragile")
    for n in (0, 1, 2):
        f.send(f, Ping(n=n))
    team.system.wait_idle(5)
    assert team.system.proxy_ask(f, Fragile).get_handled() == [0, 2]
    errors = team.recorder.of(ErrorMessage)
    assert [(e.exception_type, e.exception_value) for e in errors] == [
        ("ValueError", "boom on one")
    ]
    assert errors[0].sender == f


class Stuck(Actor[BaseConfig, Any]):
    """Blocks in its handler until the test releases it; each test gets its own class."""

    entered: threading.Event
    release: threading.Event

    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        self.entered.set()
        self.release.wait(30)


@pytest.fixture
def stuck() -> Iterator[type[Stuck]]:
    """A `Stuck` with fresh events, released at the end whatever the test did."""
    fresh: type[Stuck] = type(
        "Stuck", (Stuck,), {"entered": threading.Event(), "release": threading.Event()}
    )
    yield fresh
    fresh.release.set()


def test_shutdown_returns_within_timeout_while_an_actor_is_stuck(
    make_team: Any, stuck: type[Stuck]
) -> None:
    team = make_team()
    s = team.spawn(stuck, "@Stuck")
    s.send(s, Ping(n=0))
    assert stuck.entered.wait(5)
    started = time.monotonic()
    assert team.system.shutdown(timeout=0.5) is False
    assert time.monotonic() - started < 2


class Relay(Actor[BaseConfig, Any]):
    """Forwards a countdown along a chain of relays."""

    def on_start(self) -> None:
        self.next: ActorAddress | None = None
        self.last: int | None = None

    @remote
    def link(self, nxt: ActorAddress) -> None:
        self.next = nxt

    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        self.last = message.n
        if self.next is not None and message.n > 0:
            self.send(self.next, Ping(n=message.n - 1))

    @remote
    def get_last(self) -> int | None:
        return self.last


def test_wait_idle_returns_only_after_a_chain_has_drained(team: Any) -> None:
    relays = [team.spawn(Relay, f"@R{i}") for i in range(5)]
    for here, there in zip(relays, relays[1:] + relays[:1], strict=True):
        team.system.proxy_ask(here, Relay).link(there)
    relays[0].send(relays[0], Ping(n=500))
    team.system.wait_idle(30)
    # 501 hops around a ring of five: the last one lands on relay 500 % 5 == 0.
    lasts = [team.system.proxy_ask(r, Relay).get_last() for r in relays]
    assert lasts[0] == 0
    assert all(x is not None for x in lasts)
    sends = [m for m in team.recorder.of(SentMessage) if isinstance(m.message, Ping)]
    assert len(sends) == 501


def test_wait_idle_timeout_names_the_busy_actor(make_team: Any, stuck: type[Stuck]) -> None:
    team = make_team()
    s = team.spawn(stuck, "@Sleeper")
    s.send(s, Ping(n=0))
    assert stuck.entered.wait(5)
    with pytest.raises(IdleTimeoutError, match="@Sleeper"):
        team.system.wait_idle(timeout=0.2)
    stuck.release.set()
    assert team.system.shutdown(timeout=5)


def test_subscriber_sees_one_sent_message_per_send_in_order(team: Any) -> None:
    a = team.spawn(Counter, "@A")
    b = team.spawn(Counter, "@B")
    for n in range(50):
        a.send(b, Ping(n=n))
    team.system.wait_idle(5)
    sent = team.recorder.of(SentMessage)
    assert [m.message.n for m in sent] == list(range(50))
    assert all(m.message.sender == a and m.message.recipient == b for m in sent)
    assert len({m.message.id for m in sent}) == 50


class SelfAsker(Actor[BaseConfig, Any]):
    @remote
    def whoami(self) -> str:
        return self.myAddress.name

    @remote
    def ask_myself(self) -> str:
        answer: str = self.system.ask(self.myAddress, "whoami")
        return answer

    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        self.system.stop_actor(self.myAddress)


def test_self_ask_and_self_stop_do_not_hang(team: Any) -> None:
    s = team.spawn(SelfAsker, "@Self")
    assert team.system.proxy_ask(s, SelfAsker).ask_myself() == "@Self"
    s.send(s, Ping(n=0))
    team.system.wait_idle(5)
    assert not s.is_alive()
    assert s not in team.proxy.get_team_members()


def test_send_to_a_stopped_actor_becomes_a_dead_letter(team: Any) -> None:
    a = team.spawn(Counter, "@A")
    b = team.spawn(Counter, "@B")
    assert team.system.stop_actor(b, timeout=5)
    a.send(b, Ping(n=1))
    team.system.wait_idle(5)
    dead = [m.event for m in team.recorder.of(EventMessage) if isinstance(m.event, DeadLetterEvent)]
    assert [(d.sender, d.recipient, d.message_type) for d in dead] == [("@A", "@B", "Ping")]


def test_names_are_unique_in_a_team(team: Any) -> None:
    first = team.spawn(Counter, "@Developer", role="Developer")
    second = team.spawn(Counter, "@Developer", role="Developer")
    third = team.spawn(Counter, "@Developer", role="Developer")
    assert [first.name, second.name, third.name] == ["@Developer", "@Developer2", "@Developer3"]
    assert team.proxy.get_team_member("@Developer2") == second


def test_create_actor_with_unknown_dotted_path_fails_in_one_line() -> None:
    system = ActorSystem()
    with pytest.raises(ActorClassError) as info:
        system.createActor("no_such_package.module.Agent")
    assert "no_such_package.module.Agent" in str(info.value)
    assert "\n" not in str(info.value)
    with pytest.raises(ActorClassError, match="not a retinue Actor"):
        system.createActor("collections.OrderedDict")
    system.shutdown(1)


def test_ask_to_stopped_actor_and_unknown_method_are_clear(team: Any) -> None:
    a = team.spawn(Counter, "@A")
    with pytest.raises(AttributeError, match="no public method 'nope'"):
        team.system.proxy_ask(a, Counter).nope()
    team.system.stop_actor(a)
    with pytest.raises(ActorNotFoundError, match="@A"):
        team.system.proxy_ask(a, Counter).get_seen()


def test_messages_carry_parent_and_chain_ids(team: Any) -> None:
    relays = [team.spawn(Relay, f"@R{i}") for i in range(3)]
    team.system.proxy_ask(relays[0], Relay).link(relays[1])
    team.system.proxy_ask(relays[1], Relay).link(relays[2])
    relays[0].send(relays[0], Ping(n=2))
    team.system.wait_idle(5)
    hops = [m.message for m in team.recorder.of(SentMessage)]
    assert len(hops) == 3
    assert len({h.chain_id for h in hops}) == 1
    assert hops[1].parent_id == hops[0].id and hops[2].parent_id == hops[1].id


class Stateful(Actor[BaseConfig, Any]):
    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        pass


def test_agent_card_rejects_role_keyword_and_copies_config() -> None:
    config = BaseConfig(name="@Dev", role="Developer")
    card = AgentCard(description="d", agent_class=Counter, config=config)
    assert card.role == "Developer"
    copy = card.get_config_copy()
    copy.name = "@Other"
    assert card.config.name == "@Dev"
    with pytest.raises(ValueError, match=r"config\.role"):
        AgentCard(description="d", agent_class=Counter, config=config, role="X")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="colour"):
        AgentCard(description="d", agent_class=Counter, config=config, colour="red")  # type: ignore[call-arg]
    assert card.model_dump()["agent_class"].endswith("test_runtime.Counter")


def test_initial_state_checkpoint_is_published(team: Any) -> None:
    s = team.spawn(Stateful, "@S")
    team.system.wait_idle(5)
    assert any(m.sender == s for m in team.recorder.of(StateChangedMessage))


class NotesState(BaseState):
    notes: dict[str, list[str]] = Field(default_factory=dict)


class NoteTaker(Actor[BaseConfig, NotesState]):
    def default_state(self) -> NotesState:
        return NotesState()

    def receiveMsg_Ping(self, message: Ping, sender: ActorAddress | None) -> None:
        if message.n > 0:  # an in-place change deep inside the state
            self.state.notes.setdefault("pings", []).append(str(message.n))


def test_a_checkpoint_follows_each_change_and_only_changes(team: Any) -> None:
    taker = team.spawn(NoteTaker, "@Taker")
    for n in (1, 0, 2, 0):
        taker.send(taker, Ping(n=n))
    team.system.wait_idle(5)
    states = [m.state for m in team.recorder.of(StateChangedMessage) if m.sender == taker]
    assert [s.notes for s in states] == [{}, {"pings": ["1"]}, {"pings": ["1", "2"]}]
