"""A turn's team context costs the same in a team of a thousand as in a team of two.

Issue 9 §4: with the team card, one message to each of 1,000 agents took minutes, because
every turn asked the orchestrator for the whole roster and copied it. Nothing here times
anything: the test counts the work a turn does — asks to the orchestrator, roster copies,
context-update blocks — with real agents on scripted models.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from retinue import (
    ActorAddress,
    ActorSystem,
    AgentMessage,
    BaseAgent,
    BaseConfig,
    HumanProxy,
    Orchestrator,
    SentMessage,
)
from retinue.actors import runtime
from retinue.testing import scripted_card, send_directive
from retinue.testing.team import Recorder
from retinue_team.card import ROLES_SECTION, ROSTER_SECTION

TEAM_SIZE = 1_000


class AskCountingSystem(ActorSystem):
    """A real actor system that also counts the asks each actor is sent, by method."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.asks: Counter[tuple[str, str]] = Counter()
        self._count_lock = threading.Lock()

    def _count(self, address: ActorAddress, method: str) -> None:
        with self._count_lock:
            self.asks[(address.name, method)] += 1

    def ask(
        self,
        address: ActorAddress,
        method: str,
        *args: Any,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        self._count(address, method)
        return super().ask(address, method, *args, timeout=timeout, **kwargs)

    def ask_future(self, address: ActorAddress, method: str, *args: Any, **kwargs: Any) -> Any:
        self._count(address, method)
        return super().ask_future(address, method, *args, **kwargs)

    def asks_to(self, name: str) -> Counter[str]:
        with self._count_lock:
            return Counter({method: n for (to, method), n in self.asks.items() if to == name})

    def reset(self) -> None:
        with self._count_lock:
            self.asks.clear()


@pytest.fixture
def system(retinue_plugin_manager: Any) -> Iterator[AskCountingSystem]:
    system = AskCountingSystem(plugin_manager=retinue_plugin_manager, ask_timeout=120.0)
    try:
        yield system
    finally:
        assert system.shutdown(timeout=30), "an actor was still stuck at the end of the test"


def _agent(address: ActorAddress) -> BaseAgent:
    actor = runtime.lookup(address.agent_id)
    assert isinstance(actor, BaseAgent)
    return actor


@pytest.mark.slow
def test_a_thousand_agents_take_their_turns_without_asking_for_or_copying_the_team(
    system: AskCountingSystem,
) -> None:
    orchestrator = system.createActor(
        Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    boss: Any = system.proxy_ask(orchestrator, Orchestrator)
    recorder = Recorder()
    boss.subscribe(recorder)
    human = boss.createActor(HumanProxy, BaseConfig(name="@Human", role="Human"))
    card = scripted_card("Worker")
    boss.register_agent_profiles([card])
    workers = [
        boss.createActor(card.get_agent_class(), card.get_config_copy()) for _ in range(TEAM_SIZE)
    ]
    reply = send_directive("@Human", "response", "done")

    def one_message_each() -> None:
        before = len(answers())
        system.reset()
        for worker in workers:
            system.send(worker, AgentMessage(content=reply), sender=human)
        system.wait_idle(600)
        assert len(answers()) - before == TEAM_SIZE  # every agent answered

    def answers() -> list[SentMessage]:
        return [
            m
            for m in recorder.messages
            if isinstance(m, SentMessage) and m.recipient is not None and m.recipient == human
        ]

    # First turns: each agent is shown the whole team once, as a full snapshot.
    one_message_each()
    assert system.asks_to("@Orchestrator") == Counter()  # nothing asked, whatever the team size
    agents = [_agent(w) for w in workers]
    rosters = {id(a.state.tool_state.baselines[ROSTER_SECTION]) for a in agents}
    profiles = {id(a.state.tool_state.baselines[ROLES_SECTION]) for a in agents}
    assert len(rosters) == 1, "the roster was copied per agent instead of shared"
    assert len(profiles) == 1, "the role profiles were copied per agent instead of shared"
    assert len(agents[0].state.tool_state.baselines[ROSTER_SECTION]) == TEAM_SIZE + 1
    assert {a.state.tool_state.last_block for a in agents} == {1}
    shown = agents[0].state.tool_state.baselines[ROSTER_SECTION]

    # Second turns: the team did not change, so no agent is told anything about it (no
    # delta from busy flags either), and the roster is neither asked for nor copied.
    one_message_each()
    assert system.asks_to("@Orchestrator") == Counter()
    assert {a.state.tool_state.last_block for a in agents} == {1}
    assert all(a.state.tool_state.baselines[ROSTER_SECTION] is shown for a in agents)
