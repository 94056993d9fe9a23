"""Run cancellation on real runs: mid-run, idle, stale, and the mid-run arrival notice."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from agent_cards import card
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import AgentInfo
from retinue import (
    AgentMessage,
    BaseAgent,
    CancelMessage,
    ErrorMessage,
    HandledMessage,
    StructuredOutput,
)
from retinue.agent.cancel import MailboxCapability, is_cancel, purge_cancels
from retinue.testing import PingTool, TeamHarness, call_tool, incoming, send, user_texts


class Gate:
    """Scripts whose run on "task 1" parks at a gate the test opens; one per test.

    `entered` is set once a run is parked. The parked request waits off the model loop, so
    other agents' runs go on meanwhile.
    """

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()
        #: Everything the model was shown in the request after a `ping` step, per such step.
        self.after_step: list[str] = []

    async def _park(self) -> None:
        self.entered.set()
        await asyncio.get_running_loop().run_in_executor(None, self.opened.wait, 10)

    async def step(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """Task 1 parks its first request, then takes a `ping` step; every task answers."""
        got = incoming(messages)
        if _pinged(messages):
            self.after_step.append("\n".join(user_texts(messages)))
            return send(info, ("@Human", "response", "done: step"))
        if got.content.startswith("task 1"):
            await self._park()
            return call_tool("ping")
        return send(info, ("@Human", "response", "done: " + got.content))

    async def final(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """Task 1's only (final) request parks; every task answers."""
        got = incoming(messages)
        if got.content.startswith("task 1"):
            await self._park()
        return send(info, ("@Human", "response", "done: " + got.content))


def _pinged(messages: list[ModelMessage]) -> bool:
    """Whether the latest request carries a `ping` tool result (this run took a step)."""
    last = messages[-1]
    return isinstance(last, ModelRequest) and any(
        isinstance(p, ToolReturnPart) and p.tool_name == "ping" for p in last.parts
    )


@pytest.fixture
def gate() -> Iterator[Gate]:
    fresh = Gate()
    yield fresh
    fresh.opened.set()  # never leave a run parked behind the test


class GatedRouter(BaseAgent):
    """Pauses between the end of its run and the routing of its output (see the fixture)."""

    routing: threading.Event
    release: threading.Event

    def _route_output(self, output: StructuredOutput) -> bool:
        self.routing.set()
        self.release.wait(10)
        return super()._route_output(output)


@pytest.fixture
def gated_router() -> Iterator[type[GatedRouter]]:
    """A `GatedRouter` class with fresh events for this test, released at its end."""
    fresh = type(
        "GatedRouter", (GatedRouter,), {"routing": threading.Event(), "release": threading.Event()}
    )
    yield fresh
    fresh.release.set()


def to_human(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human")]


def test_cancel_mid_run_interrupts_once_and_the_next_message_runs(
    retinue_team: TeamHarness, gate: Gate
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", tools=[PingTool()]), model=gate.step)
    team.say(worker, "task 1")
    assert gate.entered.wait(5)
    team.say(worker, "/stop")
    team.system.send(worker, CancelMessage())
    team.say(worker, "task 2")
    team.wait_idle()
    replies = to_human(team)
    assert replies.count("Run interrupted.") == 1
    assert replies[-1] == "done: task 2"
    assert "done: step" not in replies  # the interrupted run never took its step
    assert not any("No run is in progress" in r for r in replies)  # the /stop was purged
    assert team.of(ErrorMessage) == []
    assert len(team.of(HandledMessage)) >= 1


def test_cancel_during_the_final_request_ends_it_at_once(
    retinue_team: TeamHarness, gate: Gate
) -> None:
    team = retinue_team
    worker = team.add(card("Worker"), model=gate.final)
    team.say(worker, "task 1")
    assert gate.entered.wait(5)
    team.say(worker, "task 2")
    team.say(worker, "/stop")
    team.wait_idle()  # returns although the gate is still shut: the request was cut short
    assert to_human(team) == ["Run interrupted.", "done: task 2"]


def test_stale_cancel_never_interrupts_a_later_run(
    retinue_team: TeamHarness, gate: Gate, gated_router: type[GatedRouter]
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", agent_class=gated_router), model=gate.final)
    gate.opened.set()
    team.say(worker, "task 1")
    assert gated_router.routing.wait(5)  # run 1 is over; its output is being routed
    team.say(worker, "task 2")
    team.say(worker, "/stop")
    gated_router.release.set()
    team.wait_idle()
    replies = to_human(team)
    assert replies[0] == "done: task 1"
    assert replies[-1] == "done: task 2"
    assert "Run interrupted." not in replies
    assert any("nothing was interrupted" in r for r in replies)


def test_cancel_while_idle_gets_an_explicit_answer(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    team.say(worker, "/stop")
    team.system.send(worker, CancelMessage())
    team.wait_idle()
    assert len(to_human(team)) == 1
    assert "no run" in to_human(team)[0].lower()
    assert team.of(ErrorMessage) == []
    assert team.model_requests("@Worker") == []  # neither reached the model


def test_mid_run_message_is_announced_once_then_gets_its_own_turn(
    retinue_team: TeamHarness, gate: Gate
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", tools=[PingTool()]), model=gate.step)
    team.say(worker, "task 1")
    assert gate.entered.wait(5)
    team.say(worker, "task 2")
    gate.opened.set()
    team.wait_idle()
    (after_step,) = gate.after_step
    assert after_step.count("new message arrived while you were working") == 1
    assert "@Human (request)" in after_step
    assert to_human(team) == ["done: step", "done: task 2"]


def test_agent_written_stop_is_not_a_cancel() -> None:
    from retinue import ActorAddress

    agent = ActorAddress(name="@Bot", role="Bot")
    person = ActorAddress(name="@Human", role="Human", is_user_proxy=True)
    assert not is_cancel(AgentMessage(content="/stop", sender=agent))
    assert is_cancel(AgentMessage(content="/stop", sender=person))
    assert is_cancel(AgentMessage(content=" /stop "))
    assert is_cancel(CancelMessage(sender=agent))


class FakeHost:
    """The mailbox as the hook sees it, without an actor."""

    def __init__(self, pending: list[Any], stamps: dict[str, str | None]) -> None:
        self.pending = pending
        self.stamps = stamps
        self.handled: list[str] = []
        self.stale: list[str] = []

    def peek_mailbox(self) -> list[Any]:
        return list(self.pending)

    def consume_mailbox(self, predicate: Any) -> list[Any]:
        taken = [m for m in self.pending if predicate(m)]
        self.pending = [m for m in self.pending if not predicate(m)]
        self.handled += [m.id for m in taken]
        return taken

    def take_cancel_stamp(self, message_id: str) -> str | None:
        return self.stamps.pop(message_id, None)

    def running_run_id(self) -> str | None:
        return "run-2"

    def answer_stale_cancel(self, message: Any) -> None:
        self.stale.append(message.id)

    def offers_mailbox_tool(self) -> bool:
        return True


def test_the_hook_purges_every_pending_cancel() -> None:
    live, old, idle = CancelMessage(), CancelMessage(), AgentMessage(content="/stop")
    task = AgentMessage(content="more work")
    host = FakeHost([live, task, old, idle], {live.id: "run-2", old.id: "run-1"})
    assert purge_cancels(host, "run-2") is True
    assert host.pending == [task]
    assert set(host.handled) == {live.id, old.id, idle.id}
    assert set(host.stale) == {old.id, idle.id}


def test_only_stale_cancels_do_not_interrupt() -> None:
    old = CancelMessage()
    host = FakeHost([old], {old.id: "run-1"})
    assert purge_cancels(host, "run-2") is False
    assert host.stale == [old.id]
    assert MailboxCapability(host) is not None


def test_stop_followed_by_words_is_a_cancel() -> None:
    assert is_cancel(AgentMessage(content="  /stop now"))
    assert is_cancel(AgentMessage(content="/stop\tthat was the wrong file"))
    assert is_cancel(AgentMessage(content="/stop\n"))
    assert not is_cancel(AgentMessage(content="/stopwatch"))
    assert not is_cancel(AgentMessage(content="please /stop"))


def test_stop_with_words_interrupts_a_run(retinue_team: TeamHarness, gate: Gate) -> None:
    team = retinue_team
    worker = team.add(card("Worker"), model=gate.final)
    team.say(worker, "task 1")
    assert gate.entered.wait(5)
    team.say(worker, "  /stop now, wrong task")
    team.say(worker, "task 2")
    team.wait_idle()
    assert to_human(team) == ["Run interrupted.", "done: task 2"]


def test_stop_with_words_while_idle_gets_the_same_answer(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    answer = team.command(worker, "/stop now please")
    assert "no run" in answer.lower()
    assert team.model_requests("@Worker") == []  # it never reached the model
