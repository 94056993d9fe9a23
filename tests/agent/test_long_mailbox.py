"""A turn's cost does not depend on how much mail waits behind it (issue 9, section 4).

The mail queued behind a turn counts every read of its fields while that turn runs, on any
thread: the kernel may look at what arrived since the run began, never at the whole queue.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, AgentConfig, AgentMessage, ModelConfig, PromptTemplate
from retinue.testing import TeamHarness, incoming, send

QUEUED = 10_000

#: Reads of each queued message's fields, by its number (counted only while `counting`).
reads = [0] * QUEUED
counting = threading.Event()
entered = threading.Event()
gate = threading.Event()
measured = threading.Event()
#: How many reads of the mail still queued the measured turn had made by its model request.
seen_by_turn: list[int] = []

_FIELDS = frozenset({"content", "sender", "id", "type", "chain_id", "parent_id", "recipient"})


class CountedMail(AgentMessage):
    """An ordinary `AgentMessage` that counts how often its fields are read."""

    number: int = 0

    def __getattribute__(self, name: str) -> Any:
        if name in _FIELDS and counting.is_set():
            reads[object.__getattribute__(self, "__dict__")["number"]] += 1
        return super().__getattribute__(name)


async def long_queue(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """`first` waits at the gate while the mail piles up; mail 0 takes the measurement."""
    got = incoming(messages)
    if got.content == "first":
        entered.set()
        await asyncio.get_running_loop().run_in_executor(None, gate.wait, 30)
    elif got.content == "mail 0":
        seen_by_turn.append(sum(reads[1:]))  # what lies behind mail 0, read during its turn
        measured.set()
    return send(info)


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    for event in (counting, entered, gate, measured):
        event.clear()
    reads[:] = [0] * QUEUED
    seen_by_turn.clear()
    yield
    counting.clear()
    gate.set()


def test_a_turn_reads_none_of_the_10000_messages_queued_behind_it(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    worker = team.add(
        AgentCard(
            description="reads its mail one turn at a time",
            agent_class="retinue.BaseAgent",
            config=AgentConfig(
                name="@Worker",
                role="Worker",
                prompt=PromptTemplate(template="You are the worker."),
                model_cfg=ModelConfig(provider="function", model=f"{__name__}:long_queue"),
            ),
        )
    )
    team.say(worker, "first")
    assert entered.wait(10)
    for number in range(QUEUED):
        team.system.send(worker, CountedMail(content=f"mail {number}", number=number))
    team.roster()  # the orchestrator has recorded every send: it reads nothing from now on

    counting.set()
    gate.set()
    assert measured.wait(60)
    counting.clear()

    # Mail 0's turn started with 9,999 messages behind it and looked at none of them.
    assert seen_by_turn == [0]
