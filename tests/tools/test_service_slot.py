"""`ServiceSlot`: a card's handle on its team's service, opened once, never carried by a copy."""

from __future__ import annotations

import pickle
from typing import Any, ClassVar

from pydantic import PrivateAttr
from retinue import ActorAddress, Runtime, ToolCard
from retinue.kit import ServiceSlot
from retinue.testing import StubHost

OPENED: list[tuple[Any, str, ActorAddress | None]] = []


def open_counter(system: Runtime, key: str, orchestrator: ActorAddress | None) -> object:
    """A stand-in for `open_board`: a new handle per call, each call kept."""
    OPENED.append((system, key, orchestrator))
    return object()


class CounterCard(ToolCard):
    name: ClassVar[str] = "counter"

    _counter: ServiceSlot[object] = PrivateAttr(default_factory=lambda: ServiceSlot(open_counter))

    @property
    def counter(self) -> object:
        return self._counter.open(self.host)

    def on_unbind(self) -> None:
        self._counter.clear()


def test_the_service_is_opened_once_per_binding_under_the_hosts_key() -> None:
    OPENED.clear()
    host = StubHost(ActorAddress(name="@Ada", role="Ada", agent_id="a1", team_id="t1"))
    card = CounterCard().bind(host)

    first = card.counter
    assert card.counter is first
    assert OPENED == [(None, "t1", None)]  # the team's key; StubHost has no runtime

    card.unbind()
    again = CounterCard().bind(host).counter
    assert again is not first and len(OPENED) == 2


def test_a_copy_of_a_card_holds_no_handle_and_equals_it() -> None:
    OPENED.clear()
    card = CounterCard().bind(StubHost(ActorAddress(name="@Solo", role="Solo", agent_id="s1")))
    handle = card.counter

    copied = pickle.loads(pickle.dumps(card))
    assert copied == card == CounterCard()
    bo = ActorAddress(name="@Bo", role="Bo", agent_id="b1")
    assert copied.bind(StubHost(bo)).counter is not handle
    assert [key for _, key, _ in OPENED] == ["agent-s1", "agent-b1"]
