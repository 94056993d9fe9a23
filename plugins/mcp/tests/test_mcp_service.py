"""The service behind `retinue mcp serve`, in process: requests are told apart by task chain."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from retinue import EventMessage, EventSubscriber, Message, RunStartedEvent
from retinue.teamfile import load_team_file
from retinue_mcp.serve import TeamService, start

TEAM = Path(__file__).parent / "teams" / "follow.toml"
TIMEOUT = 60


@pytest.fixture
def service() -> Iterator[TeamService]:
    made = TeamService(timeout=TIMEOUT)
    running = start(load_team_file(TEAM), made)
    try:
        yield made
    finally:
        assert running.shutdown(30)


async def no_progress(step: float, text: str) -> None:
    """Progress is not what these tests look at."""


class RunWatch(EventSubscriber):
    """Set once a run of `member` has started (its run is then the one a /stop stops)."""

    def __init__(self, member: str) -> None:
        self.member = member
        self.started = threading.Event()

    def on_message(self, message: Message) -> None:
        event = message.event if isinstance(message, EventMessage) else None
        if isinstance(event, RunStartedEvent) and event.agent_name == self.member:
            self.started.set()


def test_requests_wait_at_once_and_each_gets_the_answer_of_its_own_chain(
    service: TeamService,
) -> None:
    assert service.running is not None
    helper = RunWatch("@Helper")
    service.running.team.subscribe(helper)

    async def scenario() -> tuple[str, str, str, str]:
        blocked = asyncio.create_task(
            service.ask("send @Helper request: wait until stopped", no_progress)
        )
        # While the first request waits on the Helper, a second one is answered: two answers
        # in one turn, so the second arrives after its request has ended. It must not be
        # taken for the waiting request's answer.
        quick = await service.ask(
            "send @Client response: the quick answer\nsend @Client response: an afterthought",
            no_progress,
        )
        again = await service.ask("send @Client response: once more", no_progress)
        assert await asyncio.to_thread(helper.started.wait, TIMEOUT)
        stopped = await asyncio.to_thread(service.stop)
        return quick, again, stopped, await asyncio.wait_for(blocked, TIMEOUT)

    quick, again, stopped, blocked = asyncio.run(scenario())
    assert quick == "@Lead (response): the quick answer"
    assert again == "@Lead (response): once more"
    # The Lead may still be finishing its last turn, so it can be stopped too.
    assert stopped.startswith("Sent /stop to ") and "@Helper" in stopped
    assert blocked == f"Stopped by the client. {stopped}"
    service.running.wait_idle(TIMEOUT)
    assert "@Lead (response): an afterthought" in service.describe()
