"""`read_mailbox` in real runs: mail is absorbed, cancels and operator commands are not."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import ClassVar

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import (
    ActorAddress,
    AgentMessage,
    BaseAgent,
    CancelMessage,
    ErrorMessage,
    HandledMessage,
    Message,
    SentMessage,
)
from retinue.actors import Letter
from retinue.testing import (
    TeamHarness,
    call_directive,
    follow,
    scripted_card,
    send_directive,
)

READ = call_directive("read_mailbox")


class DuringFirstRequest:
    """A model that runs `follow`, and runs `action` once inside its first request.

    The action makes mail "arrive" while the model is busy; each test builds its own.
    """

    def __init__(self) -> None:
        self.action: Callable[[], None] | None = None

    def follow(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        action, self.action = self.action, None
        if action is not None:
            action()
        return follow(messages, info)


def read_as_mail_arrives(
    team: TeamHarness, mail_arrives: Callable[[ActorAddress], None], answer: str
) -> None:
    """@Reader reads its mailbox, then answers `answer` to @Human.

    `mail_arrives(reader)` runs inside the reader's first model request, so the mail lands
    while the model is busy, before the read.
    """
    arrival = DuringFirstRequest()
    reader = team.add(scripted_card("Reader"), model=arrival.follow)
    arrival.action = lambda: mail_arrives(reader)
    team.say(reader, f"{READ}\n{send_directive('@Human', 'response', answer)}")
    team.wait_idle(20)


class MailArrivesDuringRead(BaseAgent):
    """A `BaseAgent` whose mail (`ARRIVALS`) lands exactly while `read_mailbox` runs.

    A cancel sent while a run is in flight ends that run at once, so the only moment a read
    can meet a cancel is when the cancel lands while the tool is already running; this agent
    makes that moment happen every time. Its cancel purge also waits for the read to finish,
    so the read always looks at the mailbox before the purge does.
    """

    #: (sender, message) pairs delivered to this agent at the start of its first read.
    ARRIVALS: ClassVar[list[tuple[ActorAddress | None, Message]]]
    #: What the read took.
    TAKEN: ClassVar[list[Message]]
    READ_DONE: ClassVar[threading.Event]

    def consume_flagged(self) -> list[Letter]:
        # the kernel's purge of cancels: let the read go first
        assert type(self).READ_DONE.wait(10), "the read never ran"
        return super().consume_flagged()

    def consume_mailbox(self, predicate: Callable[[Message], bool]) -> list[Message]:
        if type(self).READ_DONE.is_set():
            return super().consume_mailbox(predicate)
        for sender, message in type(self).ARRIVALS:
            self.system.post_from_outside(sender, self.myAddress, message)
        try:
            taken = super().consume_mailbox(predicate)
            type(self).TAKEN.extend(taken)
            return taken
        finally:
            type(self).READ_DONE.set()


@pytest.fixture
def mail_during_read() -> Iterator[type[MailArrivesDuringRead]]:
    """A `MailArrivesDuringRead` class with this test's own arrivals, take and event."""

    class Fresh(MailArrivesDuringRead):
        ARRIVALS: ClassVar[list[tuple[ActorAddress | None, Message]]] = []
        TAKEN: ClassVar[list[Message]] = []
        READ_DONE: ClassVar[threading.Event] = threading.Event()

    yield Fresh
    Fresh.READ_DONE.set()  # a purge still waiting for the read gives up at once


def _inbox(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human")]


def _sent_ids(team: TeamHarness, content: str) -> list[str]:
    return [
        m.message.id
        for m in team.of(SentMessage)
        if isinstance(m.message, AgentMessage) and m.message.content == content
    ]


def _handled_ids(team: TeamHarness) -> set[str]:
    return {m.message_id for m in team.of(HandledMessage)}


def test_read_mailbox_absorbs_two_queued_messages_and_they_get_no_turn(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    peer = team.add(scripted_card("Peer"))

    def mail_arrives(reader: ActorAddress) -> None:
        peer.send(reader, AgentMessage(content="First note", type="notification"))
        team.human.send(reader, AgentMessage(content="Second note"))

    read_as_mail_arrives(team, mail_arrives, "Read my mail.")

    assert team.tool_results("@Reader") == [
        "2 messages taken from your mailbox; none will arrive again:\n\n"
        "@Peer notifies you:\n<message>\nFirst note\n</message>\n\n"
        "@Human waits for your response:\n<message>\nSecond note\n</message>"
    ]
    # One run of two model requests (the read, then the answer): the notes had no turn.
    assert len(team.model_requests("@Reader")) == 2
    assert _inbox(team) == ["Read my mail."]
    absorbed = _sent_ids(team, "First note") + _sent_ids(team, "Second note")
    assert len(absorbed) == 2
    assert set(absorbed) <= _handled_ids(team)


def test_an_empty_mailbox_reads_as_empty(retinue_team: TeamHarness) -> None:
    team = retinue_team
    reader = team.add(scripted_card("Reader"))

    team.say(reader, f"{READ}\n{send_directive('@Human', 'response', 'Nothing for me.')}")
    team.wait_idle(20)

    assert team.tool_results("@Reader") == ["Your mailbox is empty."]
    assert _inbox(team) == ["Nothing for me."]


def test_the_read_leaves_an_operators_command_for_the_registry(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team

    def mail_arrives(reader: ActorAddress) -> None:
        team.human.send(reader, AgentMessage(content="A note"))
        team.human.send(reader, AgentMessage(content="/compact"))

    read_as_mail_arrives(team, mail_arrives, "Done.")

    [read] = team.tool_results("@Reader")
    assert read.startswith("1 message taken from your mailbox")
    assert "A note" in read
    assert "/compact" not in read
    answers = _inbox(team)
    assert answers[0] == "Done."
    assert len(answers) == 2  # /compact was dispatched as a command after the run
    assert len(team.model_requests("@Reader")) == 2  # and never reached the model


@pytest.mark.parametrize("cancel", ["/stop", "CancelMessage"])
def test_a_cancel_queued_during_the_read_survives_it_and_still_cancels(
    retinue_team: TeamHarness, cancel: str, mail_during_read: type[MailArrivesDuringRead]
) -> None:
    team = retinue_team
    reader = team.add(scripted_card("Reader", agent_class=mail_during_read))
    peer = team.add(scripted_card("Peer"))
    stop: Message = AgentMessage(content="/stop") if cancel == "/stop" else CancelMessage()
    mail_during_read.ARRIVALS = [
        (peer, AgentMessage(content="First note", type="notification")),
        (team.human, stop),
        (team.human, AgentMessage(content="Second note")),
    ]

    team.say(reader, f"{READ}\n{send_directive('@Human', 'response', 'Finished.')}")
    team.wait_idle(20)

    taken = [m.content for m in mail_during_read.TAKEN if isinstance(m, AgentMessage)]
    assert taken == ["First note", "Second note"]
    assert len(mail_during_read.TAKEN) == 2  # the cancel was left in place ...
    assert _inbox(team) == ["Run interrupted."]  # ... and it cancelled the run
    assert len(team.model_requests("@Reader")) == 1  # no answer, no turn for the notes
    assert not team.of(ErrorMessage)
