"""Run cancellation on real runs: mid-run, idle, stale, and the mid-run arrival notice."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import cast

import pytest
from agent_cards import card
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import AgentInfo
from retinue import (
    ActorAddress,
    AgentMessage,
    BaseAgent,
    CancelMessage,
    ErrorMessage,
    HandledMessage,
    Message,
    StructuredOutput,
    is_cancel,
)
from retinue.actors import Letter, Mailbox
from retinue.agent import Cancellation, render_arrival_notice
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


class GatedPrompt(BaseAgent):
    """Pauses in its turn before the run starts (rendering the prompt; see the fixture)."""

    preparing: threading.Event
    release: threading.Event

    def render_prompt(self, message: AgentMessage) -> str:
        if message.content.startswith("task 1"):
            self.preparing.set()
            self.release.wait(10)
        return super().render_prompt(message)


@pytest.fixture
def gated_prompt() -> Iterator[type[GatedPrompt]]:
    """A `GatedPrompt` class with fresh events for this test, released at its end."""
    fresh: type[GatedPrompt] = type(
        "GatedPrompt",
        (GatedPrompt,),
        {"preparing": threading.Event(), "release": threading.Event()},
    )
    yield fresh
    fresh.release.set()


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
    fresh: type[GatedRouter] = type(
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


def test_a_stop_while_the_turn_prepares_its_run_stops_that_run(
    retinue_team: TeamHarness, gated_prompt: type[GatedPrompt]
) -> None:
    team = retinue_team
    asked: list[str] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        asked.append(got.content)
        return send(info, ("@Human", "response", "done: " + got.content))

    worker = team.add(card("Worker", agent_class=gated_prompt), model=answer)
    team.say(worker, "task 1")
    assert gated_prompt.preparing.wait(5)  # the turn is in progress, its run not started
    team.say(worker, "/stop")
    team.say(worker, "task 2")
    gated_prompt.release.set()
    team.wait_idle()
    assert to_human(team) == ["Run interrupted.", "done: task 2"]
    assert asked == ["task 2"]  # the stopped run never reached the model


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
    agent = ActorAddress(name="@Bot", role="Bot")
    person = ActorAddress(name="@Human", role="Human", is_user_proxy=True)
    assert not is_cancel(AgentMessage(content="/stop", sender=agent))
    assert is_cancel(AgentMessage(content="/stop", sender=person))
    assert is_cancel(AgentMessage(content=" /stop "))
    assert is_cancel(CancelMessage(sender=agent))


class Desk:
    """The agent as `Cancellation` sees it: a real mailbox, the run in flight, what it sent."""

    def __init__(self) -> None:
        self.mailbox = Mailbox()
        self.run: str | None = None
        self.turn: str | None = None
        self.interrupted: list[str] = []
        self.handled: list[str] = []
        self.sent: list[tuple[ActorAddress, Message]] = []
        self.chain: str | None = None
        self.dropped_chains: list[str] = []

    def consume_flagged(self) -> list[Letter]:
        letters = self.mailbox.take_flagged()
        self.handled += [letter.message.id for letter in letters]
        return letters

    def running_run_id(self) -> str | None:
        return self.run

    def interrupt_run(self, run_id: str) -> None:
        self.interrupted.append(run_id)

    def send(self, recipient: ActorAddress, message: Message) -> None:
        self.sent.append((recipient, message))

    def current_chain_id(self) -> str | None:
        return self.chain

    def current_turn_id(self) -> str | None:
        return self.turn

    def chain_stopped(self, chain_id: str | None) -> bool:
        return False

    def stop_downstream(self, cancel: Message, chain_id: str | None) -> bool:
        return False  # no team: nothing downstream

    def drop_chain_mail(self, chain_id: str) -> None:
        self.dropped_chains.append(chain_id)


HUMAN = ActorAddress(name="@Human", role="Human", is_user_proxy=True)


def test_cancels_are_stamped_on_arrival_and_the_purge_takes_every_one() -> None:
    desk = Desk()
    cancellation = Cancellation(desk)
    old, idle, live = CancelMessage(), AgentMessage(content="/stop", sender=HUMAN), CancelMessage()
    task = AgentMessage(content="more work", sender=HUMAN)
    desk.run = "run-1"
    desk.mailbox.put(Letter(old))
    desk.run = None
    desk.mailbox.put(Letter(idle))
    desk.mailbox.put(Letter(task))
    desk.run = "run-2"
    desk.mailbox.put(Letter(live))
    assert desk.interrupted == ["run-1", "run-2"]  # each fired the run it was stamped with
    assert cancellation.pending()

    assert cancellation.purge("run-2") is True
    assert desk.mailbox.peek() == [task]
    assert set(desk.handled) == {old.id, idle.id, live.id}
    # the stale ones interrupt nothing; a person's stale /stop is told so
    assert [(to, cast(AgentMessage, m).content) for to, m in desk.sent] == [
        (HUMAN, Cancellation.stale_answer)
    ]
    assert not cancellation.pending()


def test_a_cascades_cancel_interrupts_only_a_run_of_its_chain() -> None:
    desk = Desk()
    cancellation = Cancellation(desk)
    desk.run, desk.chain = "run-1", "other-chain"
    desk.mailbox.put(Letter(CancelMessage(stop_chain="stopped-chain")))
    assert desk.interrupted == []  # a run of another chain goes on
    desk.chain = "stopped-chain"
    desk.mailbox.put(Letter(CancelMessage(stop_chain="stopped-chain")))
    assert desk.interrupted == ["run-1"]
    assert cancellation.purge("run-1") is True
    assert desk.dropped_chains == ["stopped-chain"]  # the stale one still drops its chain's mail
    assert desk.sent == []  # a cascade's cancels are never answered


def test_a_cancel_before_the_turns_run_is_aimed_at_that_run_only() -> None:
    desk = Desk()
    cancellation = Cancellation(desk)
    desk.turn = "turn-1"  # the turn is preparing: no run yet
    desk.mailbox.put(Letter(CancelMessage()))
    assert desk.interrupted == []  # nothing to fire yet
    assert cancellation.purge("run-of-turn-2", "turn-2") is False  # another turn's run goes on
    desk.mailbox.put(Letter(CancelMessage()))
    assert cancellation.purge("run-1", "turn-1") is True  # the run the turn starts stops


def test_only_stale_cancels_do_not_interrupt() -> None:
    desk = Desk()
    cancellation = Cancellation(desk)
    desk.run = "run-1"
    desk.mailbox.put(Letter(CancelMessage()))
    assert cancellation.purge("run-2") is False
    assert desk.mailbox.qsize() == 0


def test_arrivals_are_what_came_after_the_mark_and_still_waits() -> None:
    desk = Desk()
    cancellation = Cancellation(desk, "Call read_mailbox to read them now")
    desk.mailbox.put(Letter(AgentMessage(content="before the run")))
    mark = cancellation.mark()
    first, second = AgentMessage(content="first"), AgentMessage(content="second", sender=HUMAN)
    for message in (first, CancelMessage(), second):
        desk.mailbox.put(Letter(message))

    fresh, mark = cancellation.arrivals_since(mark)
    assert fresh == [first, second]  # the cancel is not news, the older mail is not either
    assert cancellation.arrivals_since(mark) == ([], mark)
    assert cancellation.arrival_notice(fresh) == (
        "[retinue] 2 new messages arrived while you were working: @Operator (request), "
        "@Human (request). Call read_mailbox to read them now, or they arrive as their own "
        "turn after this one."
    )
    flood = [AgentMessage(content=f"note {i}", sender=HUMAN) for i in range(10_000)]
    assert render_arrival_notice(flood, None).startswith(
        "[retinue] 10,000 new messages arrived while you were working: "
        + ", ".join(["@Human (request)"] * 5)
        + " and 9,995 more. "
    )
    assert render_arrival_notice([first], None).endswith(
        "1 new message arrived while you were working: @Operator (request). "
        "They arrive as their own turn after this one."
    )


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
