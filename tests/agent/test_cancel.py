"""Run cancellation on real runs: mid-run, idle, stale, and the mid-run arrival notice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import agent_scripts
import pytest
from agent_cards import GatedRouterAgent, card
from retinue import AgentMessage, CancelMessage, ErrorMessage, HandledMessage
from retinue.agent.cancel import MailboxCapability, is_cancel, purge_cancels
from retinue.testing import PingTool, TeamHarness


@pytest.fixture(autouse=True)
def _fresh_gates() -> Iterator[None]:
    agent_scripts.gate.clear()
    agent_scripts.entered.clear()
    agent_scripts.seen.clear()
    GatedRouterAgent.routing.clear()
    GatedRouterAgent.release.clear()
    yield
    agent_scripts.gate.set()
    GatedRouterAgent.release.set()


def to_human(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human")]


def test_cancel_mid_run_interrupts_once_and_the_next_message_runs(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "gated_step", tools=[PingTool()]))
    team.say(worker, "task 1")
    assert agent_scripts.entered.wait(5)
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


def test_cancel_during_the_final_request_ends_it_at_once(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "gated_final"))
    team.say(worker, "task 1")
    assert agent_scripts.entered.wait(5)
    team.say(worker, "task 2")
    team.say(worker, "/stop")
    team.wait_idle()  # returns although the gate is still shut: the request was cut short
    assert to_human(team) == ["Run interrupted.", "done: task 2"]


def test_stale_cancel_never_interrupts_a_later_run(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "gated_final", agent_class="agent_cards.GatedRouterAgent"))
    agent_scripts.gate.set()
    team.say(worker, "task 1")
    assert GatedRouterAgent.routing.wait(5)  # run 1 is over; its output is being routed
    team.say(worker, "task 2")
    team.say(worker, "/stop")
    GatedRouterAgent.release.set()
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
    assert "silent" not in agent_scripts.seen  # neither reached the model


def test_mid_run_message_is_announced_once_then_gets_its_own_turn(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "gated_step", tools=[PingTool()]))
    team.say(worker, "task 1")
    assert agent_scripts.entered.wait(5)
    team.say(worker, "task 2")
    agent_scripts.gate.set()
    team.wait_idle()
    (after_step,) = agent_scripts.seen["gated_after_step"]
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


def test_stop_with_words_interrupts_a_run(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "gated_final"))
    team.say(worker, "task 1")
    assert agent_scripts.entered.wait(5)
    team.say(worker, "  /stop now, wrong task")
    team.say(worker, "task 2")
    team.wait_idle()
    assert to_human(team) == ["Run interrupted.", "done: task 2"]


def test_stop_with_words_while_idle_gets_the_same_answer(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "silent"))
    answer = team.command(worker, "/stop now please")
    assert "no run" in answer.lower()
    assert "silent" not in agent_scripts.seen  # it never reached the model
